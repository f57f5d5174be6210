/* diffrows: the diff view's model — which entries of a diff's merged tree are visible (an
 * unchanged subtree folds into one row, "[=12]"), stepping from difference to difference,
 * the words that differ between two values, and one sentence per difference for the guided
 * walk.  Plain C, no curses: the explorer draws what this says.
 *
 * Owns: the fold bytes and the visible-row list (malloc, diffrows_free()).
 * Borrows: the diff result (it outlives the rows).
 * Never: recursion, curses, printing; every pass is linear in the entries.
 */
#ifndef SPARKPLAN_DIFFROWS_H
#define SPARKPLAN_DIFFROWS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sparkplan/diff.h"

struct diffrows {
    const struct diff_result *r;
    uint8_t *folded;        /* per entry: 1 when its subtree is hidden */
    uint32_t *rows;         /* visible entries in pre-order */
    size_t n_rows;
};

/* All-same subtrees folded when fold_same.  False on allocation failure. */
bool diffrows_init(struct diffrows *dr, const struct diff_result *r, bool fold_same);
void diffrows_free(struct diffrows *dr);
/* Folds or unfolds the entry shown at row; returns the row it is at afterwards (the same). */
size_t diffrows_toggle(struct diffrows *dr, size_t row);
/* The entry's row, or SIZE_MAX when it is inside a folded subtree. */
size_t diffrows_row_of(const struct diffrows *dr, uint32_t entry);
/* Hidden descendants of the entry at row (0 when it is not folded). */
uint32_t diffrows_hidden(const struct diffrows *dr, size_t row);
/* The next (dir > 0) or previous (dir < 0) row after `from` that is a difference (not
 * same), SIZE_MAX when there is none.  Differences are never folded away. */
size_t diffrows_next_change(const struct diffrows *dr, size_t from, int dir);

/* The words of a that b lacks, as byte ranges of a: tokens are runs of letters, digits and
 * '_', '#', '.', and each other byte alone; the common prefix and suffix of the two token
 * sequences are equal, and in the middle a token counts as differing when the other
 * middle has no equal token left.  A span starts at a word and runs over the differing
 * tokens after it.  Writes up to cap spans, returns how many there are.  Linear in the two
 * lengths. */
struct diff_span {
    uint32_t start, end;
};
size_t diff_words(struct slice a, struct slice b, struct diff_span *out, size_t cap);

/* One sentence about an entry for the guided walk and the status line:
 * "Replaced: SortMergeJoin became BroadcastHashJoin", "Removed: Sort",
 * "Changed: PushedFilters, DataFilters", "Added: ShuffleQueryStage (a wrapper AQE inserted)",
 * "Moved: Filter is under another parent", "Same".  Returns the length written. */
size_t diff_describe(const struct diff_entry *e, char *buf, size_t cap);

#endif
