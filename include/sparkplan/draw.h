/* draw: putting text on the curses screen, clipped to a box, in display columns.
 *
 * Every piece of plan text goes through sanitize_next() here, so control characters and
 * escape sequences are drawn as visible text ("^[") and never reach the terminal.
 * Widths are display columns (wcwidth): CJK takes two, combining marks none.  When the
 * locale is not UTF-8, characters outside ASCII are drawn as '?'.
 * Owns nothing; draws into stdscr only; never refreshes (the loop calls doupdate once).
 */
#ifndef SPARKPLAN_DRAW_H
#define SPARKPLAN_DRAW_H

#include <curses.h>
#include <stdbool.h>
#include <stddef.h>

#include "sparkplan/slice.h"
#include "sparkplan/wrap.h"

void draw_set_utf8(bool utf8);
bool draw_utf8(void);

/* A cursor over one screen line: x advances as text is drawn; nothing goes past limit;
 * the first skip columns of what is drawn are skipped (horizontal scrolling). */
struct draw_line {
    int y, x, limit;
    int skip;
    bool cut;     /* something did not fit */
};

void draw_line_start(struct draw_line *dl, int y, int x, int width, int skip);
/* Draw text (sanitized); stops at the first newline when one_line. */
void draw_put(struct draw_line *dl, struct slice text, attr_t attr, bool one_line);
void draw_puts(struct draw_line *dl, const char *s, attr_t attr);
/* Fill the rest of the line with spaces in attr. */
void draw_fill(struct draw_line *dl, attr_t attr);
/* When the line was cut, overwrite its last column with a cut marker (… or >). */
void draw_cut_marker(struct draw_line *dl, attr_t attr);

/* Display columns of text as drawn (sanitized), first line only when one_line. */
int draw_width(struct slice text, bool one_line);
/* Bytes of text that fit in width columns (at least one character when width > 0). */
size_t draw_fit(struct slice text, int width);

/* The wrapping rule of every text pane: wrap_next (wrap.h) measured in display columns as
 * drawn: the bytes of text that make its next display line of at most width columns (at
 * least one character; 0 for empty text).  The caller skips what it does not draw. */
size_t draw_wrap(struct slice text, int width, enum wrap_mode mode);

/* Blank a rectangle. */
void draw_clear(int y, int x, int h, int w, attr_t attr);

#endif
