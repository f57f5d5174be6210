/* wrap: the one line-breaking function of the program: where the next display line of a
 * text ends.  The explorer's panes (draw_wrap, measuring sanitized display columns) and the
 * core's wrapped texts (insight.c, measuring bytes of ASCII text) both call wrap_next.
 *
 * Owns nothing, allocates nothing, no state; linear in the bytes that fit.
 * Never: reads past text.len, draws, decides what a column is (the caller's `fit` does).
 */
#ifndef SPARKPLAN_WRAP_H
#define SPARKPLAN_WRAP_H

#include <stddef.h>

#include "sparkplan/slice.h"

/* Where a line may end:
 *   WRAP_CHARS   as many bytes as fit;
 *   WRAP_SPACES  after the last space that fits, when there is one (the help);
 *   WRAP_PATHS   after the last space, '/' or ',', or before the last '(' or '[', that
 *                fits; mid-word only when there is none (the details);
 *   WRAP_WORDS   before a space at or just past the end of what fits (that space left for
 *                the caller to skip), else mid-word: the core's texts (the findings'
 *                advice, the catalogue's entries). */
enum wrap_mode { WRAP_CHARS, WRAP_SPACES, WRAP_PATHS, WRAP_WORDS };

/* How many bytes of text fit in width columns; NULL: one column a byte. */
typedef size_t wrap_fit_fn(struct slice text, int width, void *ctx);

/* The bytes of text that make its next line of at most width columns (0 for empty text;
 * whatever `fit` says otherwise, at least what it returns for a single character). */
size_t wrap_next(struct slice text, int width, enum wrap_mode mode, wrap_fit_fn *fit, void *ctx);

#endif
