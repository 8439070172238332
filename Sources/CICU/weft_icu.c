// The ICU calls behind weft_icu.h (see there).
#include "weft_icu.h"

#include <unicode/ubidi.h>
#include <unicode/ubrk.h>
#include <unicode/uchar.h>
#include <unicode/utypes.h>

WeftBreakIterator *weft_break_open(int kind, int32_t *status) {
    UErrorCode error = U_ZERO_ERROR;
    UBreakIterator *iterator = ubrk_open(kind == 0 ? UBRK_CHARACTER : UBRK_LINE, "", NULL, 0, &error);
    if (error > *status) *status = error;
    return (WeftBreakIterator *)iterator;
}

void weft_break_set_text(WeftBreakIterator *iterator, const uint16_t *text, int32_t length, int32_t *status) {
    UErrorCode error = U_ZERO_ERROR;
    ubrk_setText((UBreakIterator *)iterator, (const UChar *)text, length, &error);
    *status = error;
}

int32_t weft_break_next(WeftBreakIterator *iterator) { return ubrk_next((UBreakIterator *)iterator); }

int32_t weft_break_first(WeftBreakIterator *iterator) { return ubrk_first((UBreakIterator *)iterator); }

int weft_break_is_hard(WeftBreakIterator *iterator) {
    int32_t rule = ubrk_getRuleStatus((UBreakIterator *)iterator);
    return rule >= UBRK_LINE_HARD && rule < UBRK_LINE_HARD_LIMIT;
}

void weft_break_close(WeftBreakIterator *iterator) { ubrk_close((UBreakIterator *)iterator); }

WeftBidi *weft_bidi_open(void) { return (WeftBidi *)ubidi_open(); }

void weft_bidi_close(WeftBidi *bidi) { ubidi_close((UBiDi *)bidi); }

void weft_bidi_set_paragraph(WeftBidi *bidi, const uint16_t *text, int32_t length, int32_t *status) {
    UErrorCode error = U_ZERO_ERROR;
    ubidi_setPara((UBiDi *)bidi, (const UChar *)text, length, UBIDI_DEFAULT_LTR, NULL, &error);
    *status = error;
}

const uint8_t *weft_bidi_levels(WeftBidi *bidi, int32_t *status) {
    UErrorCode error = U_ZERO_ERROR;
    const UBiDiLevel *levels = ubidi_getLevels((UBiDi *)bidi, &error);
    *status = error;
    return U_SUCCESS(error) ? levels : NULL;
}

int weft_has_emoji_presentation(int32_t c) { return u_hasBinaryProperty(c, UCHAR_EMOJI_PRESENTATION); }

int weft_is_extended_pictographic(int32_t c) { return u_hasBinaryProperty(c, UCHAR_EXTENDED_PICTOGRAPHIC); }

int weft_is_emoji_modifier(int32_t c) { return u_hasBinaryProperty(c, UCHAR_EMOJI_MODIFIER); }

int weft_is_regional_indicator(int32_t c) { return u_hasBinaryProperty(c, UCHAR_REGIONAL_INDICATOR); }
