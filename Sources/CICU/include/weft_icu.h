// ICU (Debian's libicu-dev) for WeftText: UAX #14 line breaking, grapheme clusters, the bidi algorithm and
// emoji properties, behind plain C types.
//
// No ICU type appears here: Foundation carries its own copy of ICU's headers, and a Swift module that sees
// both (a test that imports Foundation and WeftText) would refuse the two definitions of UErrorCode. ICU also
// renames every function after its version (ubrk_open becomes ubrk_open_72); weft_icu.c calls them by their
// unversioned names, so this builds against any ICU version. A status is ICU's UErrorCode: <= 0 is success.
#ifndef WEFT_ICU_H
#define WEFT_ICU_H

#include <stdint.h>

typedef struct WeftBreakIterator WeftBreakIterator;
typedef struct WeftBidi WeftBidi;

/// A break iterator with no text yet: kind 0 for grapheme clusters, 1 for UAX #14 line breaks.
WeftBreakIterator *weft_break_open(int kind, int32_t *status);
void weft_break_set_text(WeftBreakIterator *iterator, const uint16_t *text, int32_t length, int32_t *status);
/// The next boundary after the current one, or -1 at the end.
int32_t weft_break_next(WeftBreakIterator *iterator);
int32_t weft_break_first(WeftBreakIterator *iterator);
/// Whether the current line boundary is a mandatory (hard) break.
int weft_break_is_hard(WeftBreakIterator *iterator);
void weft_break_close(WeftBreakIterator *iterator);

WeftBidi *weft_bidi_open(void);
void weft_bidi_close(WeftBidi *bidi);
/// Runs the bidi algorithm over a paragraph whose base direction comes from its first strong character.
void weft_bidi_set_paragraph(WeftBidi *bidi, const uint16_t *text, int32_t length, int32_t *status);
/// The resolved level of each unit of the paragraph (rule L1 applied), or NULL on failure: ICU's memory,
/// valid until the next weft_bidi_set_paragraph on `bidi`. One array, so that walking the level runs is one
/// pass (ubidi_getLogicalRun searches the runs from the first on every call).
const uint8_t *weft_bidi_levels(WeftBidi *bidi, int32_t *status);

int weft_has_emoji_presentation(int32_t c);
int weft_is_extended_pictographic(int32_t c);
int weft_is_emoji_modifier(int32_t c);
int weft_is_regional_indicator(int32_t c);

#endif
