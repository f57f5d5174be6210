/* keys.c (bench): see keys.h.  Drives the explorer's row model (rows.h) the way the tree
 * view does — the same calls per key — without curses, so a key's cost is measured alone.
 *
 * Per-key mode prints one line per key: "key=NAME ns=NS ns8=NS frame_ns=NS iters=N", where
 * ns is the model's cost of the key (38-line pane), ns8 the same with an 8-line pane and
 * frame_ns adds laying out the screen (38 rows with their guides, as view_tree.c does before
 * drawing).
 */
#include "keys.h"

#include <stdio.h>

#if defined(__has_include)
#if __has_include("sparkplan/rows.h")
#define HAVE_ROWS 1
#endif
#endif

#ifndef HAVE_ROWS
int bench_keys(const char *path, long n_keys)
{
    (void)path, (void)n_keys;
    printf("keys=n/a reason=no-row-model\n");
    return 0;
}
#else

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sparkplan/load.h"
#include "sparkplan/rows.h"

#define SCREEN_ROWS 38u   /* a 40-line terminal minus title and status lines */
#define MAX_LEVELS 100u   /* the view's cap on drawn guide levels */

struct bench {
    struct document *doc;
    struct plan *plan;
    struct rows rows;
    struct plan_node *middle;      /* a node with children half-way down the section */
    int32_t id_a, id_b;            /* two formatted ids far apart, or -1 */
    struct plan_node *node_a, *node_b; /* the same jump targets when there are no ids */
    unsigned long sink;
};

/* The section the explorer opens on for a single-plan file: the one with most nodes. */
static struct plan_section *main_section(struct document *doc, struct plan **plan)
{
    struct plan_section *best = NULL;
    for (struct plan *p = doc->first_plan; p; p = p->next)
        for (struct plan_section *s = p->first_section; s; s = s->next)
            if (!best || s->n_nodes > best->n_nodes) {
                best = s;
                *plan = p;
            }
    return best;
}

/* What the view does after every key: walk the rows on screen and build their guides. */
static void layout_frame(struct bench *b)
{
    struct rows *r = &b->rows;
    unsigned y = 0;
    for (struct plan_node *n = r->top; n && y < SCREEN_ROWS; n = rows_next(r, n), y++) {
        struct rows_prefix pf;
        rows_prefix(r, n, false, 0, MAX_LEVELS, &pf);
        b->sink += pf.guide_cols;
    }
}

static int setup(struct bench *b, const char *path)
{
    struct diag err = {0};
    memset(b, 0, sizeof *b);
    if (load_path(path, &b->doc, &err) != SP_OK) {
        fprintf(stderr, "spbench: %s: %s\n", path, err.message);
        return 1;
    }
    struct plan_section *s = main_section(b->doc, &b->plan);
    if (!s || !rows_init(&b->rows, s, NULL)) {
        fprintf(stderr, "spbench: %s: no section to browse\n", path);
        return 1;
    }
    rows_set_height(&b->rows, SCREEN_ROWS);
    /* Start half-way down (or on a node with children near it): a key in the middle of a
     * big plan is the fair case, not the first rows. */
    uint32_t mid = s->n_nodes / 2;
    while (mid + 1 < s->n_nodes && !plan_node_first_child(plan_section_node(s, mid)))
        mid++;
    b->middle = plan_section_node(s, mid);
    b->node_a = plan_section_node(s, s->n_nodes / 3);
    b->node_b = plan_section_node(s, 2 * (s->n_nodes / 3));
    b->id_a = b->node_a->id;
    b->id_b = b->node_b->id;
    rows_select_centered(&b->rows, b->middle);
    return 0;
}

static void teardown(struct bench *b)
{
    rows_free(&b->rows);
    document_free(b->doc);
}

/* ---- the keys, as view_tree.c / ui.c call them ---------------------------------------- */

static void key_move(struct bench *b, long i)
{
    rows_move(&b->rows, i & 1 ? -1 : 1); /* j, k, j, k: stays half-way down */
}

static void key_fold(struct bench *b, long i)
{
    (void)i;
    rows_toggle(&b->rows); /* Space on the middle node: fold, unfold, ... */
}

static void key_unfold_all(struct bench *b, long i)
{
    (void)i;
    rows_unfold_all(&b->rows); /* E (timed after a C that folded everything) */
}

static void key_search_next(struct bench *b, long i)
{
    (void)i;
    bool wrapped;
    rows_search_step(&b->rows, 1, &wrapped); /* n */
}

static void key_jump_id(struct bench *b, long i)
{
    /* :N — look the id up in the plan, then select it centred (tui_goto_id). */
    struct plan_node *n;
    if (b->id_a >= 0 && b->id_b >= 0)
        n = plan_node_find_by_id(b->plan, i & 1 ? b->id_b : b->id_a);
    else
        n = i & 1 ? b->node_b : b->node_a;
    rows_select_centered(&b->rows, n);
}

static void key_search_all(struct bench *b, long i)
{
    (void)i;
    /* "/broadcast" Enter: smart case, so case-insensitive over every node and details. */
    b->sink += (unsigned long)rows_search(&b->rows, "broadcast");
}

/* Not a key: one memchr pass over the document text for a byte it does not hold, the
 * floor of any search that reads every byte (search_all's context in the table). */
static void key_text_floor(struct bench *b, long i)
{
    (void)i;
    b->sink += memchr(b->doc->src.text, '\x01', b->doc->src.text_len) != NULL;
}

typedef void key_fn(struct bench *b, long i);

/* ns per key over iters calls (median of 3 batches); before runs untimed ahead of each call. */
static double time_key(struct bench *b, key_fn *fn, key_fn *before, long iters, bool frame)
{
    double batch[3];
    for (int k = 0; k < 3; k++) {
        double total = 0;
        double t0 = bench_now();
        for (long i = 0; i < iters; i++) {
            if (before) { /* untimed set-up (fold all before unfold all) */
                total += bench_now() - t0;
                before(b, i);
                t0 = bench_now();
            }
            fn(b, i);
            if (frame)
                layout_frame(b);
        }
        total += bench_now() - t0;
        batch[k] = total * 1e9 / (double)iters;
    }
    return bench_median(batch, 3);
}

static void fold_all(struct bench *b, long i)
{
    (void)i;
    rows_fold_all(&b->rows);
}

/* The same start for every measurement: the middle node selected, everything unfolded. */
static void reset(struct bench *b, unsigned height)
{
    rows_set_height(&b->rows, height);
    rows_unfold_all(&b->rows);
    rows_select_centered(&b->rows, b->middle);
}

/* ns: the key alone with a full-height pane; ns8: with an 8-line pane, which a 10-node plan
 * fills too (so the ratio shows the plan's size, not how much of the screen is filled);
 * frame_ns: the key plus laying out the screen it leads to. */
static void measure(struct bench *b, const char *name, key_fn *fn, key_fn *before, long iters,
                    long frame_iters)
{
    reset(b, SCREEN_ROWS);
    double ns = time_key(b, fn, before, iters, false);
    reset(b, 8);
    double ns8 = time_key(b, fn, before, iters, false);
    double frame_ns = 0;
    if (frame_iters > 0) {
        reset(b, SCREEN_ROWS);
        frame_ns = time_key(b, fn, before, frame_iters, true);
    }
    printf("key=%s ns=%.1f ns8=%.1f frame_ns=%.1f iters=%ld nodes=%u\n", name, ns, ns8,
           frame_ns, iters, b->rows.end - b->rows.begin);
    fflush(stdout);
}

/* n_keys > 0: a mixed session for the leak / flat-memory check under valgrind. */
static void session(struct bench *b, long n_keys)
{
    static const char *const patterns[] = {"exchange", "Filter", "sum(", "nothing-matches"};
    for (long i = 0; i < n_keys; i++) {
        struct rows *r = &b->rows;
        bool wrapped;
        switch (i % 12) {
        case 0: rows_move(r, 3); break;
        case 1: rows_toggle(r); break;
        case 2: rows_search(r, patterns[(i / 12) % 4]); break;
        case 3: rows_search_step(r, 1, &wrapped); break;
        case 4: key_jump_id(b, i); break;
        case 5: rows_page(r, 2); break;
        case 6: rows_next_exchange(r, 1, &wrapped); break;
        case 7: rows_next_stage(r, -1, &wrapped); break;
        case 8: rows_fold_all(r); break;
        case 9: rows_show_levels(r, 3); break;
        case 10: rows_unfold_all(r); break;
        default: rows_move(r, -2); break;
        }
        layout_frame(b);
    }
    printf("session keys=%ld sink=%lu\n", n_keys, b->sink);
}

int bench_keys(const char *path, long n_keys)
{
    struct bench b;
    if (setup(&b, path) != 0)
        return 1;
    if (n_keys > 0) {
        session(&b, n_keys);
        teardown(&b);
        return 0;
    }
    long cheap = 100000, frames = 10000;
    bool big = b.rows.end - b.rows.begin > 1000;
    measure(&b, "move", key_move, NULL, cheap, frames);
    measure(&b, "fold", key_fold, NULL, cheap, frames);
    rows_search(&b.rows, "exchange");
    measure(&b, "search_next", key_search_next, NULL, cheap, frames);
    measure(&b, "jump_id", key_jump_id, NULL, cheap, frames);
    /* The global keys: linear by design, a handful of runs on the big plan. */
    measure(&b, "unfold_all", key_unfold_all, fold_all, big ? 20 : cheap / 10, 0);
    measure(&b, "search_all", key_search_all, NULL, big ? 2 : cheap / 10, 0);
    measure(&b, "text_floor", key_text_floor, NULL, big ? 3 : cheap / 10, 0);
    teardown(&b);
    return 0;
}

#endif
