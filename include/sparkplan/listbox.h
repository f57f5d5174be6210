/* listbox: the one list widget of the explorer — a selection in a list of n entries and
 * the window of `rows` entries on screen — used by the help, the document list, the
 * findings and id lists and the details' line cursor (the tree has its own row model,
 * rows.h).  Plain numbers: it knows nothing of what the entries are, draws nothing and
 * owns no memory.
 *
 * A list view keeps one in its state, sets n and rows (its box's inside) before moving,
 * calls listbox_key with the action (the same movement actions in every context), and
 * draws entries top .. top + rows - 1, showing sel as selected.
 */
#ifndef SPARKPLAN_LISTBOX_H
#define SPARKPLAN_LISTBOX_H

#include <stdbool.h>
#include <stddef.h>

#include "sparkplan/keys.h"

struct listbox {
    size_t n;         /* entries */
    size_t rows;      /* entries on screen (at least 1) */
    size_t sel, top;  /* the selection and the first entry on screen */
    bool page_whole;  /* a page is the whole box (else rows - 1: a line of context) */
};

/* Moves the selection by delta, clamped to the list, and scrolls to keep it on screen. */
void listbox_move(struct listbox *lb, long delta);
/* Scrolls a list without a selection (the help): top by delta, clamped to 0..n - rows. */
void listbox_scroll(struct listbox *lb, long delta);
/* Puts the selection back on screen (after rows changed). */
void listbox_show_sel(struct listbox *lb);
/* A page: rows - 1 (one line of context kept), at least 1 (page_whole aside). */
long listbox_page(const struct listbox *lb);
/* The movement of an action: the entries it moves by (LONG_MAX / -LONG_MAX: last,
 * first), or 0 when a is no movement: KA_DOWN, KA_UP, KA_PAGE_DOWN, KA_PAGE_UP, KA_FIRST,
 * KA_LAST, KA_WHEEL_DOWN, KA_WHEEL_UP (whichever context they were bound in). */
long listbox_delta(const struct listbox *lb, enum key_action a);

#endif
