/* rows: the tree pane's model — which nodes of one tab are visible, with which guides,
 * which one is selected and which one is at the top of the pane.  Plain C, no curses.
 *
 * A tab is a section, or one subtree of it (an AQE "== Final Plan ==" label): the nodes
 * of the section's pre-order [begin..end) (plan_section_node).  The visible rows are that
 * pre-order with folded subtrees skipped, so moving a row is O(1) (node->subtree_size jumps
 * over a folded subtree) and going back one row is O(depth).  Nothing here builds a list of
 * all visible rows: the view asks for the rows around the viewport only.  Whole-tab passes
 * (fold all, unfold all, levels, search, the exchange and stage indexes) are linear and run
 * once per request.
 *
 * Owns: the fold bytes, the search matches and the lazy indexes (malloc, rows_free()).
 * Borrows: the section and its nodes (the document outlives the rows).
 * Never: recursion, curses, printing.
 */
#ifndef SPARKPLAN_ROWS_H
#define SPARKPLAN_ROWS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sparkplan/plan.h"

/* Where a node's text (or details block) lies in doc->text: [start, end). */
struct rows_span {
    uint32_t start, end, preorder;
};

#define ROWS_HIDDEN_UNKNOWN UINT64_MAX

/* Screen lines a row takes (1 unless the view wraps long text); NULL means 1. */
typedef unsigned rows_height_fn(const struct plan_node *n, void *ctx);

struct rows {
    struct plan_section *section;
    struct plan_node *scope;      /* the tab's single root, or NULL for the whole section */
    uint32_t begin, end;          /* the tab's nodes: the section's pre-order [begin..end) */
    uint32_t base_depth;          /* depth of the tab's roots */
    uint8_t *folded;              /* 1 = folded; indexed by node->preorder - begin */
    struct plan_node *sel;        /* selected node, always visible (NULL only when empty) */
    struct plan_node *top;        /* first row on screen, always visible */
    unsigned height;              /* screen lines of the pane (>= 1) */
    bool narrow_guides;           /* one column per level ("│├") instead of two ("│ ├─"):
                                     set by the view when the depths on screen need it */
    rows_height_fn *height_fn;
    void *height_ctx;
    bool elisions;                /* some node of the section is NODE_ELIDED: it takes one
                                     more line, a "…" row under it (rows_elision_lines) */

    /* Search: matching nodes' pre-order positions, ascending.  While a search is still
     * scanning (rows_searching), matches is NULL, n_matches counts what is found so far
     * and scan holds the rest. */
    char *pattern;
    uint32_t *matches;
    size_t n_matches;
    size_t match_hint;            /* the match n/N went to last (a guess: checked on use) */
    struct rows_scan {
        uint64_t *marks;          /* one bit per node of the tab; NULL: no scan */
        size_t found;             /* bits set */
        const char *pattern;      /* the pattern it serves (r->pattern while live) */
        size_t m, anchor, k;      /* pattern length, anchor byte, span cursor */
        size_t anchor2;           /* the second rarest byte's position (== anchor if m < 2) */
        bool fold;
        uint32_t first, pos, stop, limit; /* text offsets: start, resume, end of the scan */
    } scan;
    uint32_t *byte_freq;          /* sampled byte counts of the tab's text (first search) */
    /* A search over a big text reads its second half on a thread of its own (rows.c);
     * NULL when none runs.  split_min: text bytes from which a search splits (0: the
     * default, 16 MB; the tests lower it). */
    struct rows_search_worker *worker;
    size_t split_min;

    /* Built in one pass (rows_build_indexes): positions of exchanges and of codegen stage
     * entries; each node's depth capped at 255 (levels); where each node's text and
     * details lie in the document text, sorted (search scans the text, not the nodes). */
    uint32_t *exchanges, *stage_starts;
    size_t n_exchanges, n_stage_starts;
    bool exchanges_ready, stages_ready;
    uint8_t *depth8;
    struct rows_span *spans;
    size_t n_spans;
    uint32_t spans_end;           /* the largest span end: where a search stops (kept as the
                                     spans are made, not found again at every search) */
    uint32_t *loose;              /* nodes whose text is not inside the document text */
    size_t n_loose;
    struct rows_index {           /* the pass in progress (rows_index_more) */
        uint32_t next;            /* next pre-order position to read */
        size_t cap_x, cap_s, cap_sp, cap_l;
        bool started, sorted, ok;
        /* then the spans' radix sort, in slices too: digit pass, counting or placing,
         * position in the spans, the other buffer and the digit counts (malloc) */
        unsigned sort_pass;
        bool sort_placing;
        size_t sort_pos;
        struct rows_span *sort_tmp;
        uint32_t *sort_count;
    } ix;

    /* For the keys' fast paths.  fold_gen changes with every fold; hidden bounds the nodes
     * the folds hide (the subtree sizes of folded nodes, nested ones counted again), or
     * ROWS_HIDDEN_UNKNOWN after fold all and levels (until unfold all).  screen is where
     * rows_fix_scroll left things: valid while top, sel, the height and the folds are the
     * same and every row is one line; sel_line is the selection's line in the pane.  With
     * them j/k cost O(1) and a jump or a fold the rows it shows, not two screens' walks. */
    uint64_t fold_gen, hidden;
    struct rows_screen {
        const struct plan_node *top, *sel;
        unsigned height, sel_line;
        uint32_t top_pre;         /* top's pre-order position */
        uint64_t fold_gen;
        bool valid;
    } screen;

    /* Nodes visited by navigation since init: lets tests prove that a key's cost does
     * not grow with the plan. */
    uint64_t steps;
};

/* scope NULL: the whole section; otherwise that node and its subtree (must belong to s).
 * Returns false on allocation failure (the rows are then empty but safe to free). */
bool rows_init(struct rows *r, struct plan_section *s, struct plan_node *scope);
void rows_free(struct rows *r);

bool rows_contains(const struct rows *r, const struct plan_node *n);
bool rows_is_folded(const struct rows *r, const struct plan_node *n);
bool rows_has_children(const struct rows *r, const struct plan_node *n);
uint32_t rows_rel_depth(const struct rows *r, const struct plan_node *n);

/* Visible-row walks; NULL past either end. */
struct plan_node *rows_first(const struct rows *r);
struct plan_node *rows_last(struct rows *r);
struct plan_node *rows_next(struct rows *r, const struct plan_node *n);
struct plan_node *rows_prev(struct rows *r, const struct plan_node *n);

/* Layout: lines available, and how tall a row is. */
void rows_set_height(struct rows *r, unsigned height);
void rows_set_height_fn(struct rows *r, rows_height_fn *fn, void *ctx);
/* Lines a row takes below its text: 1 for an elided node (a dim "…" row where the input left
 * operators out), else 0.  Part of every row height the model counts. */
unsigned rows_elision_lines(const struct rows *r, const struct plan_node *n);

/* Selection and scrolling.  Each keeps sel and top visible and sel on screen. */
void rows_move(struct rows *r, int delta);       /* j/k: delta rows */
void rows_page(struct rows *r, int pages2);      /* pages2 half-pages: +2 PgDn, -1 Ctrl-u */
void rows_go_first(struct rows *r);
void rows_go_last(struct rows *r);
void rows_select(struct rows *r, struct plan_node *n);  /* unfolds ancestors, scrolls */
void rows_select_centered(struct rows *r, struct plan_node *n);
void rows_scroll(struct rows *r, int delta);     /* mouse wheel: top moves, sel follows */
void rows_fix_scroll(struct rows *r);            /* after folds or a resize */

/* Folding. */
void rows_set_folded(struct rows *r, struct plan_node *n, bool folded);
void rows_toggle(struct rows *r);                /* Space */
void rows_left(struct rows *r);                  /* h: fold, or go to the parent */
void rows_right(struct rows *r);                 /* l: unfold, or go to the first child */
void rows_fold_all(struct rows *r);              /* C */
void rows_unfold_all(struct rows *r);            /* E */
void rows_show_levels(struct rows *r, unsigned levels);  /* 1-9 */
void rows_unfold_to(struct rows *r, const struct plan_node *n);  /* n's ancestors */

/* The exchange and codegen-stage indexes x/X and ]/[ use, in one linear pass; also fills
 * *sum (may be NULL) with the tab's summary counts, from op_summary_compute (a second linear
 * pass: the counts --summary shows, of the plan that runs).  Built on first use otherwise;
 * calling it when the tab opens keeps every later jump O(log n).  False when memory ran out. */
struct op_summary;
bool rows_build_indexes(struct rows *r, struct op_summary *sum);
/* The same pass in slices of budget nodes (0: the rest), so the explorer can index a
 * million nodes between frames instead of before the first one: 0 while there is more,
 * 1 when done, -1 when done but memory ran out.  A key that needs an index before the pass
 * is over (x, ], 1-9, /) finishes it then.  rows_indexed: the pass is over. */
int rows_index_more(struct rows *r, size_t budget);
bool rows_indexed(const struct rows *r);

/* Jumps; each returns false when there is nothing to go to.  *wrapped (may be NULL) says
 * the search went past the end and started again from the other one. */
bool rows_next_exchange(struct rows *r, int dir, bool *wrapped);
bool rows_next_stage(struct rows *r, int dir, bool *wrapped);

/* Search node text and details blocks; smart case (case-insensitive unless the pattern
 * has an upper-case letter).  Returns the number of matching nodes, or -1 when memory ran
 * out.  Does not move; rows_search_step(r, +1) goes to the first match from the selection. */
long rows_search(struct rows *r, const char *pattern);
/* The same in slices, so the explorer never waits a frame for a plan's whole text (a
 * million nodes are 233 MB): start (false when memory ran out; NULL or "" clears the
 * search), then more with a budget of text bytes (0: all) until it returns 1 (done; -1:
 * memory ran out).  Meanwhile n/N, the counter and the highlight use what is found so
 * far.  A pattern and matches set by someone else end the scan.  From split_min bytes of
 * text on, the second half is read by a thread of its own from the start (its matches
 * join at the end); rows_search_start again, rows_search(r, NULL) or rows_free stop it. */
bool rows_search_start(struct rows *r, const char *pattern);
int rows_search_more(struct rows *r, size_t budget);
bool rows_searching(const struct rows *r);
unsigned rows_search_progress(const struct rows *r);  /* percent of the text read */
bool rows_search_step(struct rows *r, int dir, bool *wrapped);
/* 1-based index of the selected node among the matches, 0 when it is not one. */
size_t rows_match_index(const struct rows *r);
bool rows_node_matches(const struct rows *r, const struct plan_node *n);

/* The guides, connector and fold glyph drawn left of a node's text.
 *
 * skip: the levels hidden at the left of the whole screen (rows_window_skip): every row
 * on screen drops the same columns and starts with the same hint "…7 ", so the guides of
 * consecutive rows stay in line.  max_levels bounds what is left: a row deeper than that
 * (a screen spanning more levels than fit) shows only its nearest max_levels/4 levels
 * (at least 2) after a hint "…(depth N)".  Either way drawing a row costs O(max_levels),
 * not O(depth). */
#define ROWS_PREFIX_MAX 512
struct rows_prefix {
    char hint[32];          /* "…7 " (a screen's hidden levels), "…(depth 12345) " or "" */
    char guides[ROWS_PREFIX_MAX]; /* ancestors' continuation columns + own connector */
    unsigned guide_cols;    /* display columns of guides (2 per level, 1 when narrow) */
    char glyph[8];          /* "▸ " folded, "▾ " open, "─ " leaf (ASCII: "+ ", "- ", "- ") */
    char marker[24];        /* "[+123] " hidden-node count when folded, else "" */
    char cont[ROWS_PREFIX_MAX]; /* guides for a wrapped row's further lines: the columns
                                   that continue past it, up to its glyph column */
};
void rows_prefix(struct rows *r, const struct plan_node *n, bool ascii, unsigned skip,
                 unsigned max_levels, struct rows_prefix *out);

/* How many levels of guides (2 columns each, the connector included) fit beside a row's
 * text: plain, with room for the text and no hint; soft, the same room after the hint of
 * a compressed screen; hard, the least room the text keeps (deeper rows compress alone). */
struct rows_fit {
    unsigned plain, soft, hard;
};

/* The levels a screen hides at its left, from the relative depths of the rows on it
 * (dmin..dmax, rows_rel_depth): 0 while the deepest row fits (plain); else enough that
 * the deepest row fits (soft, or at least hard), never hiding a row's own connector (at
 * most dmin - 1).  The previous screen's value is kept while it still works, and a new
 * one leaves slack for the next few levels, so scrolling through a deep branch shifts the
 * guides seldom. */
unsigned rows_window_skip(uint32_t dmin, uint32_t dmax, struct rows_fit fit, unsigned prev);

#endif
