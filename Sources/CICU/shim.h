// ICU (Debian's libicu-dev): UAX #14 line breaking, grapheme clusters, the bidi algorithm, emoji properties.
//
// ICU renames every C function after its version (ubrk_open becomes ubrk_open_72), which Swift cannot follow
// through the macros: these inline wrappers call the functions by their unversioned names, so the Swift code
// builds against any ICU version.
#include <unicode/utypes.h>
#include <unicode/ubrk.h>
#include <unicode/ubidi.h>
#include <unicode/uchar.h>

/// A break iterator with no text yet: kind 0 for grapheme clusters, 1 for UAX #14 line breaks.
static inline UBreakIterator *weft_break_open(int kind, UErrorCode *status) {
    return ubrk_open(kind == 0 ? UBRK_CHARACTER : UBRK_LINE, "", NULL, 0, status);
}

static inline void weft_break_set_text(UBreakIterator *iterator, const UChar *text, int32_t length, UErrorCode *status) {
    ubrk_setText(iterator, text, length, status);
}

/// The next boundary after the current one, or -1 at the end.
static inline int32_t weft_break_next(UBreakIterator *iterator) { return ubrk_next(iterator); }

static inline int32_t weft_break_first(UBreakIterator *iterator) { return ubrk_first(iterator); }

/// Whether the current line boundary is a mandatory (hard) break.
static inline int weft_break_is_hard(UBreakIterator *iterator) {
    int32_t status = ubrk_getRuleStatus(iterator);
    return status >= UBRK_LINE_HARD && status < UBRK_LINE_HARD_LIMIT;
}

static inline void weft_break_close(UBreakIterator *iterator) { ubrk_close(iterator); }

static inline UBiDi *weft_bidi_open(void) { return ubidi_open(); }

static inline void weft_bidi_close(UBiDi *bidi) { ubidi_close(bidi); }

/// Runs the bidi algorithm over a paragraph whose base direction comes from its first strong character.
static inline void weft_bidi_set_paragraph(UBiDi *bidi, const UChar *text, int32_t length, UErrorCode *status) {
    ubidi_setPara(bidi, text, length, UBIDI_DEFAULT_LTR, NULL, status);
}

/// The end of the level run that starts at `start`, and its level in `level`.
static inline int32_t weft_bidi_run_end(UBiDi *bidi, int32_t start, UBiDiLevel *level) {
    int32_t limit = start;
    ubidi_getLogicalRun(bidi, start, &limit, level);
    return limit;
}

static inline int weft_has_emoji_presentation(UChar32 c) { return u_hasBinaryProperty(c, UCHAR_EMOJI_PRESENTATION); }

static inline int weft_is_extended_pictographic(UChar32 c) { return u_hasBinaryProperty(c, UCHAR_EXTENDED_PICTOGRAPHIC); }

static inline int weft_is_emoji_modifier(UChar32 c) { return u_hasBinaryProperty(c, UCHAR_EMOJI_MODIFIER); }

static inline int weft_is_regional_indicator(UChar32 c) { return u_hasBinaryProperty(c, UCHAR_REGIONAL_INDICATOR); }
