/* rows.c: visible rows, folds, selection and scrolling of one tab (see rows.h). */
#include "sparkplan/rows.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "sparkplan/opclass.h"
#include "sparkplan/thread.h"

bool rows_init(struct rows *r, struct plan_section *s, struct plan_node *scope)
{
    memset(r, 0, sizeof *r);
    r->section = s;
    r->height = 1;
    if (scope && scope->section == s && plan_node_preorder(scope) < s->n_nodes) {
        r->scope = scope;
        r->begin = plan_node_preorder(scope);
        r->end = plan_node_preorder(scope) + scope->subtree_size + 1;
        r->base_depth = scope->depth;
    } else {
        r->begin = 0;
        r->end = s ? s->n_nodes : 0;
    }
    if (s && r->end > s->n_nodes)
        r->end = s->n_nodes;
    if (r->end < r->begin)
        r->end = r->begin;
    r->elisions = s && s->n_elided > 0;
    r->folded = calloc(r->end > r->begin ? r->end - r->begin : 1, 1);
    if (!r->folded) {
        r->end = r->begin;
        return false;
    }
    r->sel = r->top = rows_first(r);
    return true;
}

static void sort_drop(struct rows *r);
static void scan_drop(struct rows *r);

void rows_free(struct rows *r)
{
    sort_drop(r);
    scan_drop(r); /* stops a search's thread before the spans it reads go */
    free(r->byte_freq);
    free(r->folded);
    free(r->pattern);
    free(r->matches);
    free(r->exchanges);
    free(r->stage_starts);
    free(r->depth8);
    free(r->spans);
    free(r->loose);
    memset(r, 0, sizeof *r);
}

/* Is n a node of this tab?  Its pre-order position goes to *pre (a jump hands it on: the
 * position's chase through section, plan and document is a third of a jump's loads on a
 * big plan). */
static bool contains_at(const struct rows *r, const struct plan_node *n, uint32_t *pre)
{
    if (!n || n->section != r->section)
        return false;
    *pre = plan_node_preorder(n);
    return *pre >= r->begin && *pre < r->end && plan_section_node(r->section, *pre) == n;
}

bool rows_contains(const struct rows *r, const struct plan_node *n)
{
    uint32_t pre;
    return contains_at(r, n, &pre);
}

bool rows_has_children(const struct rows *r, const struct plan_node *n)
{
    (void)r;
    return plan_node_first_child(n) != NULL;
}

bool rows_is_folded(const struct rows *r, const struct plan_node *n)
{
    return plan_node_first_child(n) && r->folded[plan_node_preorder(n) - r->begin];
}

uint32_t rows_rel_depth(const struct rows *r, const struct plan_node *n)
{
    return n->depth >= r->base_depth ? n->depth - r->base_depth : 0;
}

/* The parent, unless n is a root of the tab. */
static struct plan_node *tab_parent(const struct rows *r, const struct plan_node *n)
{
    return n == r->scope ? NULL : plan_node_parent(n);
}

struct plan_node *rows_first(const struct rows *r)
{
    return r->begin < r->end ? plan_section_node(r->section, r->begin) : NULL;
}

/* The row that shows n, the last node of a stretch of the pre-order whose top is `top` (an
   ancestor of n or n): n itself, or its outermost folded ancestor up to and including top. */
static struct plan_node *shown_from(struct rows *r, struct plan_node *n, const struct plan_node *top)
{
    struct plan_node *v = n;
    for (struct plan_node *a = n; a != top && plan_node_parent(a); ) { /* bounded by depth */
        a = plan_node_parent(a);
        r->steps++;
        if (rows_is_folded(r, a))
            v = a;
    }
    return v;
}

/* The ancestor of n (or n itself) at the given depth. */
static const struct plan_node *ancestor_at(const struct plan_node *n, uint32_t depth)
{
    while (n->depth > depth && plan_node_parent(n)) /* bounded by depth */
        n = plan_node_parent(n);
    return n;
}

struct plan_node *rows_last(struct rows *r)
{
    if (r->begin >= r->end)
        return NULL;
    /* The last node in pre-order, shown by its outermost folded ancestor (the tab's scope
       or a section root at most). */
    struct plan_node *last = plan_section_node(r->section, r->end - 1);
    uint32_t top_depth = r->scope ? r->scope->depth : 0;
    return shown_from(r, last, ancestor_at(last, top_depth));
}

struct plan_node *rows_next(struct rows *r, const struct plan_node *n)
{
    r->steps++;
    uint32_t p = plan_node_preorder(n) + 1 + (rows_is_folded(r, n) ? n->subtree_size : 0);
    return p < r->end ? plan_section_node(r->section, p) : NULL;
}

struct plan_node *rows_prev(struct rows *r, const struct plan_node *n)
{
    r->steps++;
    if (plan_node_preorder(n) <= r->begin)
        return NULL;
    if (n == r->scope)
        return tab_parent(r, n);
    /* The node before n in pre-order is its parent (n is a first child) or the last node
       of the previous sibling's subtree, shown by its outermost folded ancestor up to that
       sibling. */
    struct plan_node *q = plan_section_node(r->section, plan_node_preorder(n) - 1);
    if (q == plan_node_parent(n))
        return tab_parent(r, n);
    return shown_from(r, q, ancestor_at(q, n->depth));
}

/* The outermost folded ancestor of n, or n itself when all its ancestors are open. */
static struct plan_node *visible_ancestor(struct rows *r, struct plan_node *n)
{
    struct plan_node *v = n;
    for (struct plan_node *a = tab_parent(r, n); a; a = tab_parent(r, a)) { /* depth */
        r->steps++;
        if (rows_is_folded(r, a))
            v = a;
    }
    return v;
}

/* Every fold change goes through here: it keeps fold_gen and the hidden bound. */
static void fold_byte(struct rows *r, const struct plan_node *n, bool folded)
{
    uint8_t *b = &r->folded[plan_node_preorder(n) - r->begin];
    if (*b == (uint8_t)folded)
        return;
    *b = (uint8_t)folded;
    r->fold_gen++;
    if (r->hidden != ROWS_HIDDEN_UNKNOWN && plan_node_first_child(n))
        r->hidden = folded ? r->hidden + n->subtree_size : r->hidden - n->subtree_size;
}

/* Folds over the whole tab: the hidden bound is known again only after unfold all. */
static void folds_changed_everywhere(struct rows *r, bool none_left)
{
    r->fold_gen++;
    r->hidden = none_left ? 0 : ROWS_HIDDEN_UNKNOWN;
}

void rows_unfold_to(struct rows *r, const struct plan_node *n)
{
    if (r->hidden == 0)
        return; /* nothing is folded: no walk up a deep tree */
    for (struct plan_node *a = tab_parent(r, n); a; a = tab_parent(r, a)) { /* depth */
        r->steps++;
        fold_byte(r, a, false);
    }
}

unsigned rows_elision_lines(const struct rows *r, const struct plan_node *n)
{
    return r->elisions && (n->flags & NODE_ELIDED) ? 1 : 0;
}

/* Every row one line: the fast paths that count rows as lines hold. */
static bool uniform_rows(const struct rows *r)
{
    return !r->height_fn && !r->elisions;
}

static unsigned row_height(struct rows *r, const struct plan_node *n)
{
    unsigned h = r->height_fn ? r->height_fn(n, r->height_ctx) : 1;
    return (h ? h : 1) + rows_elision_lines(r, n);
}

void rows_set_height(struct rows *r, unsigned height)
{
    r->height = height ? height : 1;
    rows_fix_scroll(r);
}

void rows_set_height_fn(struct rows *r, rows_height_fn *fn, void *ctx)
{
    r->height_fn = fn;
    r->height_ctx = ctx;
    rows_fix_scroll(r);
}

/* The screen as rows_fix_scroll left it is still the screen. */
static bool screen_valid(const struct rows *r)
{
    const struct rows_screen *sc = &r->screen;
    return sc->valid && uniform_rows(r) && sc->top == r->top && sc->sel == r->sel &&
           sc->height == r->height && sc->fold_gen == r->fold_gen;
}

static void screen_save(struct rows *r, unsigned sel_line)
{
    r->screen = (struct rows_screen){r->top, r->sel, r->height, sel_line,
                                     plan_node_preorder(r->top), r->fold_gen, uniform_rows(r)};
}

/* The top row's pre-order position, without touching the node when the screen knows it
 * (after a jump the top row is a node no key has read yet). */
static uint32_t top_pre(const struct rows *r)
{
    return r->screen.top == r->top ? r->screen.top_pre : plan_node_preorder(r->top);
}

/* Are there at least need rows from n (itself included, at pre-order position pre) to the
 * end of the tab?  O(1) when the folds hide fewer nodes than lie beyond; else walks at most
 * need rows. */
static bool rows_from_at_least(struct rows *r, const struct plan_node *n, uint32_t pre,
                               unsigned need)
{
    uint64_t nodes = r->end - pre;
    if (r->hidden != ROWS_HIDDEN_UNKNOWN && nodes >= r->hidden + need)
        return true;
    unsigned k = 0;
    for (const struct plan_node *m = n; m && k < need; m = rows_next(r, m)) /* <= need */
        k++;
    return k >= need;
}

/* Is n fully on screen with the current top?  *line (may be NULL) gets its line.  Walks at
 * most one screen of rows; none when nothing is folded (the rows are the pre-order), or
 * when n is further in pre-order than a screen plus what the folds hide. */
static bool on_screen_at(struct rows *r, const struct plan_node *n, uint32_t pre,
                         unsigned *line)
{
    if (!r->top || pre < top_pre(r))
        return false;
    uint32_t dist = pre - top_pre(r);
    if (uniform_rows(r) && r->hidden == 0) {
        if (line)
            *line = dist;
        return dist < r->height;
    }
    if (uniform_rows(r) && r->hidden != ROWS_HIDDEN_UNKNOWN && dist >= r->hidden + r->height)
        return false;
    unsigned lines = 0;
    for (struct plan_node *m = r->top; m && lines < r->height; m = rows_next(r, m)) {
        unsigned h = row_height(r, m);
        if (m == n) {
            if (line)
                *line = lines;
            return lines + h <= r->height || m == r->top;
        }
        lines += h;
    }
    return false;
}

static bool on_screen(struct rows *r, const struct plan_node *n)
{
    return on_screen_at(r, n, plan_node_preorder(n), NULL);
}

/* Put top so that n is the last row on screen; returns the lines above n. */
static unsigned top_for_bottom(struct rows *r, struct plan_node *n)
{
    struct plan_node *p;
    unsigned lines = 0;
    r->top = n;
    while ((p = rows_prev(r, r->top)) && lines + row_height(r, n) + row_height(r, p) <= r->height) {
        lines += row_height(r, p);
        r->top = p;
    }
    return lines;
}

void rows_fix_scroll(struct rows *r)
{
    if (!r->sel) {
        r->sel = r->top = rows_first(r);
        if (!r->sel)
            return;
    }
    /* sel and top are visible here: whoever folds moves them out of hidden subtrees. */
    if (!r->top)
        r->top = r->sel;
    if (screen_valid(r))
        return; /* nothing moved since the last look */
    if (plan_node_preorder(r->sel) < plan_node_preorder(r->top))
        r->top = r->sel;
    /* One walk down the screen: where sel is, and how many lines the rows fill. */
    unsigned lines = 0, sel_at = UINT32_MAX, sel_h = 1;
    for (struct plan_node *m = r->top; m && lines < r->height; m = rows_next(r, m)) {
        unsigned h = row_height(r, m);
        if (m == r->sel)
            sel_at = lines, sel_h = h;
        lines += h;
    }
    if (sel_at == UINT32_MAX || (sel_at + sel_h > r->height && r->sel != r->top)) {
        sel_at = top_for_bottom(r, r->sel);
    } else {
        /* Do not leave empty lines at the bottom while rows above could fill them. */
        struct plan_node *p;
        while (lines < r->height && (p = rows_prev(r, r->top)) &&
               lines + row_height(r, p) <= r->height) {
            unsigned h = row_height(r, p);
            lines += h;
            sel_at += h;
            r->top = p;
        }
    }
    screen_save(r, sel_at);
}

static struct plan_node *walk(struct rows *r, struct plan_node *n, int delta)
{
    struct plan_node *m;
    for (; delta > 0 && (m = rows_next(r, n)); delta--)
        n = m;
    for (; delta < 0 && (m = rows_prev(r, n)); delta++)
        n = m;
    return n;
}

void rows_move(struct rows *r, int delta)
{
    if (!r->sel)
        return;
    if ((delta == 1 || delta == -1) && screen_valid(r)) {
        /* j/k: one row, and the screen moves by at most one; nothing else to walk. */
        struct plan_node *m = delta > 0 ? rows_next(r, r->sel) : rows_prev(r, r->sel);
        if (!m)
            return;
        unsigned line = r->screen.sel_line;
        r->sel = m;
        if (delta > 0 && line + 1 < r->height)
            line++;
        else if (delta > 0)
            r->top = rows_next(r, r->top);
        else if (line > 0)
            line--;
        else
            r->top = m;
        screen_save(r, line);
        return;
    }
    r->sel = walk(r, r->sel, delta);
    rows_fix_scroll(r);
}

void rows_page(struct rows *r, int pages2)
{
    if (!r->sel)
        return;
    int lines = (int)r->height * pages2 / 2;
    if (lines == 0)
        lines = pages2 > 0 ? 1 : -1;
    struct plan_node *old_top = r->top;
    r->top = walk(r, r->top, lines);
    if (r->top == old_top)  /* already at the end: move the selection to the edge */
        r->sel = walk(r, r->sel, lines > 0 ? (int)r->height : -(int)r->height);
    else
        r->sel = walk(r, r->sel, lines);
    rows_fix_scroll(r);
}

void rows_go_first(struct rows *r)
{
    r->sel = r->top = rows_first(r);
    rows_fix_scroll(r);
}

void rows_go_last(struct rows *r)
{
    struct plan_node *n = rows_last(r);
    if (n) {
        r->sel = n;
        rows_fix_scroll(r);
    }
}

void rows_select(struct rows *r, struct plan_node *n)
{
    if (!rows_contains(r, n))
        return;
    rows_unfold_to(r, n);
    r->sel = n;
    rows_fix_scroll(r);
}

/* Puts top half a screen above n (at pre-order position pre); returns the rows between
 * them.  Sets *top_at to the top's pre-order position. */
static unsigned top_half_above(struct rows *r, struct plan_node *n, uint32_t pre,
                               uint32_t *top_at)
{
    unsigned half = r->height / 2;
    if (r->hidden == 0) { /* nothing folded: the rows are the pre-order itself */
        uint32_t back = pre - r->begin < half ? pre - r->begin : half;
        *top_at = pre - back;
        r->top = plan_section_node(r->section, *top_at);
        return back;
    }
    unsigned back = 0;
    struct plan_node *m = n, *p;
    while (back < half && (p = rows_prev(r, m))) /* bounded by half a screen */
        m = p, back++;
    r->top = m;
    *top_at = plan_node_preorder(m);
    return back;
}

/* rows_select_centered of n, at pre-order position pre of the tab.  Jumps from the
 * tab's own indexes (n, x, ]) come here with the position they hold: with nothing folded
 * neither the target nor the new top row is read (the frame reads them when it draws). */
static void select_centered_node(struct rows *r, struct plan_node *n, uint32_t pre)
{
    bool unchanged = screen_valid(r); /* top, height and folds as fix_scroll left them */
    uint64_t gen = r->fold_gen;
    rows_unfold_to(r, n);
    if (!r->top)
        r->top = n;
    unsigned line;
    if (on_screen_at(r, n, pre, &line)) {
        if (unchanged && gen == r->fold_gen) {
            /* n is on the screen as it is: only the selection moves. */
            r->sel = n;
            r->screen.sel = n;
            r->screen.sel_line = line;
            return;
        }
    } else {
        if (uniform_rows(r)) {
            uint32_t top_at;
            unsigned above = top_half_above(r, n, pre, &top_at);
            r->sel = n;
            /* The rows below fill the rest of the screen: nothing more to walk. */
            if (rows_from_at_least(r, n, pre, r->height - above)) {
                r->screen = (struct rows_screen){r->top, n, r->height, above, top_at,
                                                 r->fold_gen, true};
                return;
            }
        } else {
            r->top = walk(r, n, -(int)(r->height / 2));
        }
    }
    r->sel = n;
    rows_fix_scroll(r);
}

static void select_centered_at(struct rows *r, uint32_t pre)
{
    select_centered_node(r, plan_section_node(r->section, pre), pre);
}

void rows_select_centered(struct rows *r, struct plan_node *n)
{
    uint32_t pre;
    if (contains_at(r, n, &pre))
        select_centered_node(r, n, pre);
}

/* Lines from n to the end, counting no further than the screen height. */
static unsigned lines_from(struct rows *r, const struct plan_node *n)
{
    unsigned lines = 0;
    for (; n && lines < r->height; n = rows_next(r, n))
        lines += row_height(r, n);
    return lines;
}

void rows_scroll(struct rows *r, int delta)
{
    if (!r->sel)
        return;
    /* Down: only while the rows below still fill the screen.  O(delta * height). */
    for (; delta > 0; delta--) {
        struct plan_node *m = rows_next(r, r->top);
        if (!m || lines_from(r, m) < r->height)
            break;
        r->top = m;
    }
    r->top = walk(r, r->top, delta < 0 ? delta : 0);
    if (plan_node_preorder(r->sel) < plan_node_preorder(r->top)) {
        r->sel = r->top;
    } else if (!on_screen(r, r->sel)) {
        /* The selection went off the top edge: the last row that fits takes it. */
        unsigned lines = 0;
        struct plan_node *m = r->top, *last = r->top;
        while (m && lines + row_height(r, m) <= r->height) {
            lines += row_height(r, m);
            last = m;
            m = rows_next(r, m);
        }
        r->sel = last;
    }
    rows_fix_scroll(r);
}

/* After folding n, a selection or top row inside n's subtree is hidden: n takes its place.
 * O(1): the subtree is a pre-order range. */
static struct plan_node *out_of_fold(const struct plan_node *n, struct plan_node *x)
{
    if (x && plan_node_preorder(x) > plan_node_preorder(n) &&
        plan_node_preorder(x) <= plan_node_preorder(n) + n->subtree_size)
        return (struct plan_node *)n;
    return x;
}

void rows_set_folded(struct rows *r, struct plan_node *n, bool folded)
{
    if (!rows_contains(r, n))
        return;
    bool was_valid = screen_valid(r);
    unsigned line = r->screen.sel_line;
    fold_byte(r, n, folded);
    if (was_valid && n == r->sel) {
        /* Space on the selection: the rows above it stay; only the rows below change, and
         * they need only fill the rest of the screen. */
        if (rows_from_at_least(r, n, plan_node_preorder(n), r->height - line)) {
            screen_save(r, line);
            return;
        }
    }
    if (folded) {
        r->sel = out_of_fold(n, r->sel);
        r->top = out_of_fold(n, r->top);
    }
    rows_fix_scroll(r);
}

/* After folds all over the tab: climb sel and top to rows still visible.  O(depth). */
static void refold(struct rows *r)
{
    if (r->sel)
        r->sel = visible_ancestor(r, r->sel);
    if (r->top)
        r->top = visible_ancestor(r, r->top);
    rows_fix_scroll(r);
}

void rows_toggle(struct rows *r)
{
    if (r->sel && plan_node_first_child(r->sel))
        rows_set_folded(r, r->sel, !rows_is_folded(r, r->sel));
}

void rows_left(struct rows *r)
{
    struct plan_node *n = r->sel;
    if (!n)
        return;
    if (plan_node_first_child(n) && !rows_is_folded(r, n))
        rows_set_folded(r, n, true);
    else if (tab_parent(r, n))
        rows_select(r, tab_parent(r, n));
}

void rows_right(struct rows *r)
{
    struct plan_node *n = r->sel;
    if (!n || !plan_node_first_child(n))
        return;
    if (rows_is_folded(r, n))
        rows_set_folded(r, n, false);
    else
        rows_select(r, plan_node_first_child(n));
}

static void build_indexes(struct rows *r);

void rows_fold_all(struct rows *r)
{
    memset(r->folded, 1, r->end - r->begin);
    folds_changed_everywhere(r, false);
    refold(r);
}

void rows_unfold_all(struct rows *r)
{
    memset(r->folded, 0, r->end - r->begin);
    folds_changed_everywhere(r, true);
    rows_fix_scroll(r);
}

void rows_show_levels(struct rows *r, unsigned levels)
{
    if (levels == 0)
        levels = 1;
    build_indexes(r);
    if (r->depth8) /* one byte per node: no pointer chasing over a million nodes */
        for (uint32_t i = 0; i < r->end - r->begin; i++)
            r->folded[i] = r->depth8[i] + 1u >= levels;
    else
        for (uint32_t i = r->begin; i < r->end; i++)
            r->folded[i - r->begin] =
                rows_rel_depth(r, plan_section_node(r->section, i)) + 1 >= levels;
    folds_changed_everywhere(r, false);
    refold(r);
}

/* ---- indexes and jumps ------------------------------------------------------------- */

/* First index in a[0..n) whose value is > key (dir > 0), or last whose value is < key
 * (dir < 0), wrapping around; n must be > 0. */
static size_t pick_next(const uint32_t *a, size_t n, uint32_t key, int dir, bool *wrapped)
{
    size_t lo = 0, hi = n;
    while (lo < hi) { /* first index with a[i] > key */
        size_t mid = lo + (hi - lo) / 2;
        if (a[mid] <= key)
            lo = mid + 1;
        else
            hi = mid;
    }
    bool wrap = false;
    size_t i;
    if (dir > 0) {
        wrap = lo == n;
        i = wrap ? 0 : lo;
    } else {
        /* lo - 1 is the last index with a[i] <= key; step over key itself. */
        size_t j = lo;
        while (j > 0 && a[j - 1] >= key)
            j--;
        wrap = j == 0;
        i = wrap ? n - 1 : j - 1;
    }
    if (wrapped)
        *wrapped = wrap;
    return i;
}

static bool push(uint32_t **a, size_t *n, size_t *cap, uint32_t v)
{
    if (*n == *cap) {
        size_t nc = *cap ? *cap * 2 : 64;
        uint32_t *na = realloc(*a, nc * sizeof *na);
        if (!na)
            return false;
        *a = na;
        *cap = nc;
    }
    (*a)[(*n)++] = v;
    return true;
}

/* Record where s lies in the document text, or report that it does not. */
static bool add_span(struct rows *r, size_t *cap, struct slice s, uint32_t pre,
                     const struct document *doc)
{
    if (s.len == 0)
        return true;
    if (!doc || s.ptr < doc->src.text || s.ptr + s.len > doc->src.text + doc->src.text_len ||
        doc->src.text_len > UINT32_MAX)
        return false;
    if (r->n_spans == *cap) {
        size_t nc = *cap ? *cap * 2 : 256;
        struct rows_span *ns = realloc(r->spans, nc * sizeof *ns);
        if (!ns)
            return false;
        r->spans = ns;
        *cap = nc;
    }
    uint32_t start = (uint32_t)(s.ptr - doc->src.text);
    r->spans[r->n_spans++] = (struct rows_span){start, start + (uint32_t)s.len, pre};
    return true;
}

/* Sorts the spans by start: a stable radix sort on the 32-bit offsets, 11 bits at a time
 * (formatted plans put the details blocks after the tree, so a million nodes give two
 * million spans in two interleaved runs; a comparison sort of them took longer than the
 * whole first frame).  Done in slices of about budget spans (0: all), as the node pass is:
 * the sort of two million spans is 200 ms in one go.  1 when sorted, 0 when there is more,
 * -1 when memory ran out (the spans are then left as they were). */
#define SPAN_RADIX_BITS 11
#define SPAN_RADIX_PASSES 3
static int sort_spans_more(struct rows *r, size_t budget)
{
    struct rows_index *ix = &r->ix;
    size_t n = r->n_spans, digits = (size_t)1 << SPAN_RADIX_BITS;
    const uint32_t mask = (uint32_t)digits - 1;
    if (!ix->sort_tmp) {
        ix->sort_tmp = malloc((n ? n : 1) * sizeof *ix->sort_tmp);
        ix->sort_count = calloc(digits, sizeof *ix->sort_count);
        if (!ix->sort_tmp || !ix->sort_count) {
            free(ix->sort_tmp);
            free(ix->sort_count);
            ix->sort_tmp = NULL;
            ix->sort_count = NULL;
            return -1;
        }
        ix->sort_pass = 0;
        ix->sort_placing = false;
        ix->sort_pos = 0;
    }
    size_t work = budget ? budget : SIZE_MAX;
    while (ix->sort_pass < SPAN_RADIX_PASSES && work > 0) { /* bounded by the budget */
        unsigned shift = ix->sort_pass * SPAN_RADIX_BITS;
        size_t stop = n - ix->sort_pos > work ? ix->sort_pos + work : n;
        work -= stop - ix->sort_pos;
        uint32_t *count = ix->sort_count;
        if (!ix->sort_placing) {
            for (size_t i = ix->sort_pos; i < stop; i++)
                count[(r->spans[i].start >> shift) & mask]++;
        } else {
            for (size_t i = ix->sort_pos; i < stop; i++)
                ix->sort_tmp[count[(r->spans[i].start >> shift) & mask]++] = r->spans[i];
        }
        ix->sort_pos = stop;
        if (stop < n)
            break;
        ix->sort_pos = 0;
        if (!ix->sort_placing) { /* counts -> where each digit's run starts */
            uint32_t sum = 0;
            for (size_t d = 0; d < digits; d++) { /* bounded by the digit's range */
                uint32_t c = count[d];
                count[d] = sum;
                sum += c;
            }
            ix->sort_placing = true;
        } else { /* the placed copy becomes the spans */
            struct rows_span *t = r->spans;
            r->spans = ix->sort_tmp;
            ix->sort_tmp = t;
            memset(count, 0, digits * sizeof *count);
            ix->sort_placing = false;
            ix->sort_pass++;
        }
        if (work == 0)
            break;
    }
    if (ix->sort_pass < SPAN_RADIX_PASSES)
        return 0;
    free(ix->sort_tmp);
    free(ix->sort_count);
    ix->sort_tmp = NULL;
    ix->sort_count = NULL;
    return 1;
}

static void sort_drop(struct rows *r)
{
    free(r->ix.sort_tmp);
    free(r->ix.sort_count);
    r->ix.sort_tmp = NULL;
    r->ix.sort_count = NULL;
}

/* Drops the indexes and starts the pass again from the tab's first node. */
static void index_restart(struct rows *r)
{
    scan_drop(r); /* a scan walks the spans freed here */
    free(r->exchanges);
    free(r->stage_starts);
    free(r->depth8);
    free(r->spans);
    free(r->loose);
    sort_drop(r);
    r->exchanges = r->stage_starts = r->loose = NULL;
    r->spans = NULL;
    r->n_exchanges = r->n_stage_starts = r->n_spans = r->n_loose = 0;
    r->spans_end = 0;
    r->exchanges_ready = r->stages_ready = false;
    memset(&r->ix, 0, sizeof r->ix);
    r->ix.started = true;
    r->ix.next = r->begin;
    r->ix.sorted = true;
    r->depth8 = malloc(r->end > r->begin ? r->end - r->begin : 1);
    r->ix.ok = r->depth8 != NULL;
}

/* One node into the indexes. */
static void index_node(struct rows *r, uint32_t i, const struct document *doc)
{
    struct rows_index *ix = &r->ix;
    const struct plan_node *n = plan_section_node(r->section, i);
    uint32_t d = rows_rel_depth(r, n);
    if (r->depth8)
        r->depth8[i - r->begin] = (uint8_t)(d > 255 ? 255 : d);
    size_t before = r->n_spans;
    if (!add_span(r, &ix->cap_sp, plan_node_text(n).len ? plan_node_text(n) : plan_node_name(n), i,
                  doc) ||
        !add_span(r, &ix->cap_sp, plan_node_details_text(n), i, doc)) {
        r->n_spans = before;
        ix->ok &= push(&r->loose, &r->n_loose, &ix->cap_l, i);
    }
    for (size_t k = before; k < r->n_spans; k++) { /* at most 2 */
        if (k > 0 && r->spans[k].start < r->spans[k - 1].start)
            ix->sorted = false;
        if (r->spans[k].end > r->spans_end)
            r->spans_end = r->spans[k].end;
    }
    enum op_class c = op_class_of(n);
    if (op_class_is_exchange(c))
        ix->ok &= push(&r->exchanges, &r->n_exchanges, &ix->cap_x, i);
    if (n->stage >= 0 &&
        (n == r->scope || !plan_node_parent(n) || plan_node_parent(n)->stage != n->stage))
        ix->ok &= push(&r->stage_starts, &r->n_stage_starts, &ix->cap_s, i);
}

int rows_index_more(struct rows *r, size_t budget)
{
    if (r->exchanges_ready)
        return 1;
    if (!r->ix.started)
        index_restart(r);
    struct rows_index *ix = &r->ix;
    const struct document *doc =
        r->section && r->section->plan ? r->section->plan->doc : NULL;
    uint32_t stop = budget && r->end - ix->next > budget ? ix->next + (uint32_t)budget : r->end;
    for (uint32_t i = ix->next; i < stop; i++)
        index_node(r, i, doc);
    size_t read = stop - ix->next;
    ix->next = stop;
    if (stop < r->end)
        return 0;
    /* The sort takes what is left of the slice (a span costs less than a node). */
    size_t left = budget > read ? budget - read : 1;
    int sorted = ix->sorted ? 1 : sort_spans_more(r, budget ? left * 2 : 0);
    if (sorted == 0)
        return 0;
    if (sorted < 0) {
        /* No memory to sort: no spans, every node is searched on its own. */
        free(r->spans);
        r->spans = NULL;
        r->n_spans = 0;
        r->spans_end = 0;
        free(r->loose);
        r->loose = NULL;
        r->n_loose = 0;
        size_t cap = 0;
        for (uint32_t i = r->begin; i < r->end && ix->ok; i++)
            ix->ok &= push(&r->loose, &r->n_loose, &cap, i);
    }
    r->exchanges_ready = r->stages_ready = true;
    ix->started = false;
    return ix->ok ? 1 : -1;
}

bool rows_indexed(const struct rows *r)
{
    return r->exchanges_ready;
}

bool rows_build_indexes(struct rows *r, struct op_summary *sum)
{
    if (sum)
        memset(sum, 0, sizeof *sum);
    index_restart(r);
    bool ok = rows_index_more(r, 0) > 0;
    /* The header counts what --summary counts, with the same function (QA #1). */
    if (sum && r->section && !op_summary_compute(sum, r->section, r->begin, r->end))
        ok = false;
    return ok;
}

static void build_indexes(struct rows *r)
{
    if (!r->exchanges_ready)
        rows_index_more(r, 0);
}

static bool jump_in(struct rows *r, const uint32_t *a, size_t n, int dir, bool *wrapped)
{
    if (!r->sel || n == 0)
        return false;
    size_t i = pick_next(a, n, plan_node_preorder(r->sel), dir, wrapped);
    select_centered_at(r, a[i]);
    return true;
}

bool rows_next_exchange(struct rows *r, int dir, bool *wrapped)
{
    build_indexes(r);
    return jump_in(r, r->exchanges, r->n_exchanges, dir, wrapped);
}

bool rows_next_stage(struct rows *r, int dir, bool *wrapped)
{
    build_indexes(r);
    return jump_in(r, r->stage_starts, r->n_stage_starts, dir, wrapped);
}

/* ---- search ------------------------------------------------------------------------ */

static unsigned char lower(unsigned char c)
{
    return (c >= 'A' && c <= 'Z') ? (unsigned char)(c + 32) : c;
}

static bool has_upper(const char *p)
{
    for (; *p; p++)
        if (*p >= 'A' && *p <= 'Z')
            return true;
    return false;
}

/* Does s contain pat?  memchr finds candidates for the first byte (both cases when
 * folding), so the scan runs at memchr speed on text that mostly does not match. */
static bool contains(struct slice s, const char *pat, size_t m, bool fold)
{
    if (m == 0)
        return true;
    if (s.len < m)
        return false;
    const unsigned char *p = (const unsigned char *)pat;
    const char *end = s.ptr + s.len - m + 1; /* last start + 1 */
    unsigned char c0 = p[0], c1 = p[0];
    if (fold && c0 >= 'a' && c0 <= 'z')
        c1 = (unsigned char)(c0 - 32);
    const char *a = NULL, *b = NULL; /* next candidates for c0 and c1 */
    bool a_done = false, b_done = c1 == c0;
    const char *at = s.ptr;
    while (at < end) {
        if (!a_done && (!a || a < at) && !(a = memchr(at, c0, (size_t)(end - at))))
            a_done = true;
        if (!b_done && (!b || b < at) && !(b = memchr(at, c1, (size_t)(end - at))))
            b_done = true;
        if (a_done)
            a = NULL;
        if (b_done)
            b = NULL;
        const char *c = a;
        if (c1 != c0 && b && (!c || b < c))
            c = b;
        if (!c)
            return false;
        size_t k = 1;
        if (fold)
            while (k < m && lower((unsigned char)c[k]) == p[k]) /* bounded by m */
                k++;
        else
            while (k < m && (unsigned char)c[k] == p[k])
                k++;
        if (k == m)
            return true;
        at = c + 1;
    }
    return false;
}

static bool node_matches(const char *pat, size_t m, bool fold, const struct plan_node *n)
{
    return contains(plan_node_text(n), pat, m, fold) ||
           contains(plan_node_details_text(n), pat, m, fold);
}

/* A match at text offset at: mark the node whose span holds it.  The scan's span cursor
 * only moves forward.  Returns where scanning may resume. */
static uint32_t mark_match(const struct rows *r, struct rows_scan *sc, uint32_t at, size_t m)
{
    while (sc->k < r->n_spans && r->spans[sc->k].end < at + m) /* forward only: linear overall */
        sc->k++;
    if (sc->k == r->n_spans || r->spans[sc->k].start > at)
        return at + 1; /* not inside a node's text (a tree prefix, another section) */
    uint32_t bit = r->spans[sc->k].preorder - r->begin;
    uint64_t mask = 1ull << (bit & 63);
    if (!(sc->marks[bit >> 6] & mask)) {
        sc->marks[bit >> 6] |= mask;
        sc->found++;
    }
    return r->spans[sc->k++].end; /* one match per span is enough */
}

/* How common a byte is in plan text, roughly (English letter frequencies; ids, brackets
 * and '#' are everywhere in plans).  The search anchors on the pattern's rarest byte. */
static unsigned byte_weight(unsigned char c)
{
    static const unsigned char letters[26] = {
        /* a..z */ 82, 15, 28, 43, 127, 22, 20, 61, 70, 2, 8, 40, 24,
        67, 75, 19, 1, 60, 63, 91, 28, 10, 24, 2, 20, 1};
    if (c >= 'a' && c <= 'z')
        return letters[c - 'a'];
    if (c >= 'A' && c <= 'Z')
        return letters[c - 'A'] / 4 + 1;
    if (c >= '0' && c <= '9')
        return 50;
    switch (c) {
    case ' ':
        return 150;
    case '#':
    case '_':
    case ',':
    case '[':
    case ']':
    case '(':
    case ')':
        return 45;
    default:
        return 5;
    }
}

/* How often each byte occurs in the tab's text, from SAMPLE_CHUNKS pieces of SAMPLE_BYTES
 * spread over it (a few hundred KB whatever the plan's size); computed on the first
 * search.  False when memory ran out (the letter weights are used then). */
#define SAMPLE_CHUNKS 32
#define SAMPLE_BYTES 8192
static bool sample_bytes(struct rows *r, uint32_t first, uint32_t limit)
{
    if (r->byte_freq)
        return true;
    r->byte_freq = calloc(256, sizeof *r->byte_freq);
    if (!r->byte_freq)
        return false;
    const unsigned char *text = (const unsigned char *)r->section->plan->doc->src.text;
    uint32_t len = limit > first ? limit - first : 0;
    uint32_t step = len / SAMPLE_CHUNKS;
    for (uint32_t c = 0; c < SAMPLE_CHUNKS && len; c++) {
        uint32_t from = first + c * step;
        uint32_t to = from + SAMPLE_BYTES < limit ? from + SAMPLE_BYTES : limit;
        for (uint32_t i = from; i < to; i++) /* bounded by SAMPLE_BYTES */
            r->byte_freq[text[i]]++;
    }
    return true;
}

/* Sets up the scan of the document text under the tab's spans: the anchor (the pattern's
 * rarest byte in this text, both cases when folding) and the range to read. */
static void scan_begin(struct rows *r, size_t m, bool fold)
{
    struct rows_scan *sc = &r->scan;
    const unsigned char *p = (const unsigned char *)r->pattern; /* lower-cased if fold */
    sc->m = m;
    sc->fold = fold;
    sc->k = 0;
    sc->limit = r->spans_end;
    /* The two rarest positions: the vector filter wants both anchor bytes where the
     * pattern puts them, which leaves few candidates for the full check. */
    uint64_t best = UINT64_MAX, second = UINT64_MAX;
    sc->anchor = sc->anchor2 = 0;
    bool sampled = r->n_spans && sample_bytes(r, r->spans[0].start, sc->limit);
    for (size_t i = 0; i < m; i++) { /* bounded by m */
        unsigned char up = fold && p[i] >= 'a' && p[i] <= 'z' ? (unsigned char)(p[i] - 32) : 0;
        /* Sampled counts, with the letter weights breaking ties (and standing in when a
         * byte was not seen). */
        uint64_t w = byte_weight(p[i]) + (up ? byte_weight(up) : 0);
        if (sampled)
            w += (uint64_t)(r->byte_freq[p[i]] + (up ? r->byte_freq[up] : 0)) * 1024;
        if (w < best) {
            second = best, sc->anchor2 = sc->anchor;
            best = w, sc->anchor = i;
        } else if (w < second) {
            second = w, sc->anchor2 = i;
        }
    }
    if (m < 2)
        sc->anchor2 = sc->anchor;
    sc->first = r->n_spans ? r->spans[0].start : 0;
    sc->pos = sc->first + (uint32_t)sc->anchor; /* where the anchor byte may be */
    /* the anchor's last position + 1 */
    sc->stop = sc->limit >= m ? sc->limit - (uint32_t)(m - 1 - sc->anchor) : 0;
    if (r->n_spans == 0 || m == 0 || sc->limit < m)
        sc->pos = sc->stop = 0;
}

/* Scans at most budget bytes more of the text: memchr finds the anchor (both cases when
 * folding), each hit is checked in place, and the span cursor walks the sorted spans
 * alongside; a node is done after its first match.  The work is memchr over the text
 * plus a few steps per hit, whatever the number of nodes.  True when the text is done. */
static bool scan_window(const struct rows *r, struct rows_scan *sc, const unsigned char *p,
                        size_t budget);

/* Reads budget bytes as windows of SCAN_WINDOW: when folding, the two memchr streams (one
 * per case) then read the same window while it is in the cache, not the text twice. */
#define SCAN_WINDOW (256u << 10)
static bool scan_some(const struct rows *r, struct rows_scan *sc, const unsigned char *p,
                      size_t budget)
{
    for (;;) { /* bounded by budget / SCAN_WINDOW windows */
        size_t step = budget < SCAN_WINDOW ? budget : SCAN_WINDOW;
        if (scan_window(r, sc, p, step))
            return true;
        if (budget <= SCAN_WINDOW)
            return false;
        budget -= SCAN_WINDOW;
    }
}

/* Is the pattern at text offset at (at + m within the text)? */
static bool pattern_at(const struct rows_scan *sc, const unsigned char *text, uint32_t at,
                       const unsigned char *p)
{
    size_t j = 0, m = sc->m;
    if (sc->fold)
        while (j < m && lower(text[at + j]) == p[j]) /* bounded by m */
            j++;
    else
        while (j < m && text[at + j] == p[j])
            j++;
    return j == m;
}

#ifdef __SSE2__
/* The first offset h in [pos, end) where the anchor byte sits at h and the second anchor
 * byte at h + (anchor2 - anchor), either case of a letter when folding; end if none.
 * Sixteen offsets per step, one pass over the text: two memchr streams (one per case) and
 * a check per single-byte hit cost twice that on a big plan.  Every offset looked at lies
 * in [first + anchor, stop), so both loads stay inside the pattern's span of the text. */
static uint32_t next_candidate(const struct rows_scan *sc, const unsigned char *text,
                               const unsigned char *p, uint32_t pos, uint32_t end)
{
    unsigned char a = p[sc->anchor], b = p[sc->anchor2];
    /* (x | 0x20) == c holds for exactly c and its upper case when c is a lower-case letter */
    unsigned char fa = sc->fold && a >= 'a' && a <= 'z' ? 0x20 : 0;
    unsigned char fb = sc->fold && b >= 'a' && b <= 'z' ? 0x20 : 0;
    ptrdiff_t d = (ptrdiff_t)sc->anchor2 - (ptrdiff_t)sc->anchor;
    const __m128i va = _mm_set1_epi8((char)a), vb = _mm_set1_epi8((char)b);
    const __m128i ma = _mm_set1_epi8((char)fa), mb = _mm_set1_epi8((char)fb);
#define HITS_AT(o)                                                                          \
    _mm_and_si128(                                                                          \
        _mm_cmpeq_epi8(_mm_or_si128(_mm_loadu_si128((const __m128i *)(text + (o))), ma), va), \
        _mm_cmpeq_epi8(_mm_or_si128(_mm_loadu_si128((const __m128i *)(text + (o) + d)), mb), vb))
    /* 64 offsets per branch: the loop is bound by memory, not by the compares */
    while (pos + 64 <= end) { /* bounded by (end - pos) / 64 */
        __m128i h0 = HITS_AT(pos), h1 = HITS_AT(pos + 16), h2 = HITS_AT(pos + 32),
                h3 = HITS_AT(pos + 48);
        __m128i any = _mm_or_si128(_mm_or_si128(h0, h1), _mm_or_si128(h2, h3));
        if (_mm_movemask_epi8(any)) {
            uint64_t bits = (uint64_t)(unsigned)_mm_movemask_epi8(h0) |
                            (uint64_t)(unsigned)_mm_movemask_epi8(h1) << 16 |
                            (uint64_t)(unsigned)_mm_movemask_epi8(h2) << 32 |
                            (uint64_t)(unsigned)_mm_movemask_epi8(h3) << 48;
            return pos + (uint32_t)__builtin_ctzll(bits);
        }
        pos += 64;
    }
    while (pos + 16 <= end) { /* at most three steps */
        unsigned bits = (unsigned)_mm_movemask_epi8(HITS_AT(pos));
        if (bits)
            return pos + (uint32_t)__builtin_ctz(bits);
        pos += 16;
    }
#undef HITS_AT
    for (; pos < end; pos++) /* the last few offsets */
        if ((text[pos] | fa) == a && (text[pos + d] | fb) == b)
            return pos;
    return end;
}

#else
/* next_candidate without SSE2: memchr for the anchor byte when it has one case, a byte loop
 * over both cases otherwise. */
static uint32_t next_candidate(const struct rows_scan *sc, const unsigned char *text,
                               const unsigned char *p, uint32_t pos, uint32_t end)
{
    unsigned char a = p[sc->anchor], b = p[sc->anchor2];
    unsigned char fa = sc->fold && a >= 'a' && a <= 'z' ? 0x20 : 0;
    unsigned char fb = sc->fold && b >= 'a' && b <= 'z' ? 0x20 : 0;
    ptrdiff_t d = (ptrdiff_t)sc->anchor2 - (ptrdiff_t)sc->anchor;
    while (pos < end) { /* bounded by end - pos */
        if (!fa) {
            const unsigned char *h = memchr(text + pos, a, end - pos);
            if (!h)
                return end;
            pos = (uint32_t)(h - text);
        } else if ((text[pos] | fa) != a) {
            pos++;
            continue;
        }
        if ((text[pos + d] | fb) == b)
            return pos;
        pos++;
    }
    return end;
}
#endif

static bool scan_window(const struct rows *r, struct rows_scan *sc, const unsigned char *p,
                        size_t budget)
{
    const unsigned char *text = (const unsigned char *)r->section->plan->doc->src.text;
    uint32_t end = sc->stop;
    if (budget < end - sc->pos && sc->pos < end)
        end = sc->pos + (uint32_t)budget;
    while (sc->pos < end && sc->k < r->n_spans) {
        uint32_t hit = next_candidate(sc, text, p, sc->pos, end);
        if (hit >= end) {
            sc->pos = end;
            break;
        }
        uint32_t at = hit - (uint32_t)sc->anchor;
        if (!pattern_at(sc, text, at, p)) {
            sc->pos = hit + 1;
            continue;
        }
        uint32_t next = mark_match(r, sc, at, sc->m);
        sc->pos = (next > at + 1 ? next : at + 1) + (uint32_t)sc->anchor;
    }
    return sc->pos >= sc->stop || sc->k >= r->n_spans;
}

/* ---- the second half of a big search, on a thread of its own ------------------------- */

/* One pass over the text is bound by one core's memory speed (a bare memchr over the 233 MB
 * of the 1M-node plan takes 15 ms); two cores read it in about half.  The main thread reads
 * the first half in slices as before; the thread reads the second half at once, with its
 * own scan state, marks and pattern copy, and a copy of the rows (a tab's struct may move in
 * its array meanwhile).  It reads the spans and the document text, which nothing changes
 * while a scan lives: everything that frees the spans calls scan_drop first. */
#define SPLIT_MIN_DEFAULT ((size_t)16 << 20)

struct rows_search_worker {
    pthread_t thread;
    struct rows rows;             /* shallow copy: spans, begin, section */
    struct rows_scan sc;          /* [mid, stop) of the text, marks of its own */
    unsigned char *pattern;
    atomic_int cancel;
};

static void *worker_main(void *arg)
{
    struct rows_search_worker *w = arg;
    while (!atomic_load_explicit(&w->cancel, memory_order_relaxed) && /* a window a round */
           !scan_window(&w->rows, &w->sc, w->pattern, SCAN_WINDOW))
        ;
    return NULL;
}

/* The first span that ends at or after pos: the span cursor's start for a scan from pos
 * (spans are sorted by start and do not overlap, so their ends are sorted too). */
static size_t span_from(const struct rows *r, uint32_t pos)
{
    size_t lo = 0, hi = r->n_spans;
    while (lo < hi) { /* binary search */
        size_t mid = lo + (hi - lo) / 2;
        if (r->spans[mid].end < pos)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static void worker_free(struct rows_search_worker *w)
{
    free(w->sc.marks);
    free(w->pattern);
    free(w);
}

/* Hands the second half of a big scan to a thread; the scan stays whole when the text is
 * small or a thread or memory cannot be had. */
static void scan_split(struct rows *r)
{
    struct rows_scan *sc = &r->scan;
    size_t min = r->split_min ? r->split_min : SPLIT_MIN_DEFAULT;
    if (sc->stop <= sc->pos || sc->stop - sc->pos < min)
        return;
    struct rows_search_worker *w = calloc(1, sizeof *w);
    if (!w)
        return;
    size_t n = r->end - r->begin;
    w->rows = *r;
    w->sc = *sc;
    w->sc.marks = calloc(n / 64 + 1, sizeof *w->sc.marks);
    w->pattern = malloc(sc->m + 1);
    if (!w->sc.marks || !w->pattern) {
        worker_free(w);
        return;
    }
    memcpy(w->pattern, r->pattern, sc->m + 1);
    uint32_t mid = sc->pos + (sc->stop - sc->pos) / 2;
    w->sc.pos = mid;
    w->sc.found = 0;
    w->sc.k = span_from(r, mid);
    atomic_init(&w->cancel, 0);
    if (!thread_start_quiet(&w->thread, worker_main, w)) {
        worker_free(w);
        return;
    }
    sc->stop = mid; /* candidates at mid and after are the thread's */
    r->worker = w;
}

/* Waits for the thread; its marks join the scan's unless cancel. */
static void scan_join(struct rows *r, bool cancel)
{
    struct rows_search_worker *w = r->worker;
    if (!w)
        return;
    if (cancel)
        atomic_store(&w->cancel, 1);
    pthread_join(w->thread, NULL);
    if (!cancel && r->scan.marks) {
        size_t words = (r->end - r->begin) / 64 + 1;
        for (size_t i = 0; i < words; i++) /* bounded by nodes / 64 */
            r->scan.marks[i] |= w->sc.marks[i];
    }
    worker_free(w);
    r->worker = NULL;
}

static void scan_drop(struct rows *r)
{
    scan_join(r, true);
    free(r->scan.marks);
    memset(&r->scan, 0, sizeof r->scan);
}

/* Is the scan still the one for the tab's search?  Something else (a trace) may have set
 * its own pattern and matches since. */
static bool scan_live(const struct rows *r)
{
    return r->scan.marks && r->scan.pattern == r->pattern && !r->matches;
}

bool rows_searching(const struct rows *r)
{
    return scan_live(r);
}

unsigned rows_search_progress(const struct rows *r)
{
    const struct rows_scan *sc = &r->scan;
    if (!scan_live(r) || sc->stop <= sc->first)
        return 100;
    return (unsigned)((uint64_t)(sc->pos - sc->first) * 100 / (sc->stop - sc->first));
}

/* The marks become the sorted match list once the whole text is read. */
static bool scan_finish(struct rows *r)
{
    struct rows_scan *sc = &r->scan;
    size_t n = r->end - r->begin, cap = 0;
    uint32_t *list = NULL;
    size_t count = 0;
    for (size_t i = 0; i < r->n_loose; i++) /* text outside the document: node by node */
        if (node_matches(r->pattern, sc->m, sc->fold, plan_section_node(r->section, r->loose[i]))) {
            uint32_t bit = r->loose[i] - r->begin;
            sc->marks[bit >> 6] |= 1ull << (bit & 63);
        }
    for (size_t w = 0; w <= n / 64; w++) /* matches in pre-order, 64 nodes at a time */
        for (uint64_t bits = sc->marks[w]; bits; bits &= bits - 1) {
            uint32_t pre = r->begin + (uint32_t)(w * 64) + (uint32_t)__builtin_ctzll(bits);
            if (!push(&list, &count, &cap, pre)) {
                free(list);
                scan_drop(r);
                return false;
            }
        }
    scan_drop(r);
    r->matches = list;
    r->n_matches = count;
    return true;
}

bool rows_search_start(struct rows *r, const char *pattern)
{
    scan_drop(r);
    free(r->pattern);
    free(r->matches);
    r->pattern = NULL;
    r->matches = NULL;
    r->n_matches = 0;
    if (!pattern || !*pattern)
        return true;
    size_t m = strlen(pattern);
    r->pattern = malloc(m + 1);
    if (!r->pattern)
        return false;
    bool fold = !has_upper(pattern);
    for (size_t i = 0; i <= m; i++)
        r->pattern[i] = fold ? (char)lower((unsigned char)pattern[i]) : pattern[i];
    build_indexes(r);
    size_t n = r->end - r->begin;
    r->scan.marks = calloc(n / 64 + 1, sizeof *r->scan.marks);
    if (!r->scan.marks)
        return false;
    r->scan.pattern = r->pattern;
    scan_begin(r, m, fold);
    scan_split(r);
    return true;
}

int rows_search_more(struct rows *r, size_t budget)
{
    if (!r->scan.marks)
        return 1;
    if (!scan_live(r)) {
        scan_drop(r);
        return 1;
    }
    if (!scan_some(r, &r->scan, (const unsigned char *)r->pattern, budget ? budget : SIZE_MAX)) {
        r->n_matches = r->scan.found; /* the counter shows what is found so far */
        return 0;
    }
    /* The first half is read: the thread, started with it on as much text, is about done. */
    scan_join(r, false);
    return scan_finish(r) ? 1 : -1;
}

long rows_search(struct rows *r, const char *pattern)
{
    if (!rows_search_start(r, pattern))
        return -1;
    if (rows_search_more(r, 0) < 0)
        return -1;
    return (long)r->n_matches;
}

/* The first set bit of w in [lo, hi), or SIZE_MAX; a word at a time. */
static size_t first_set(const uint64_t *w, size_t lo, size_t hi)
{
    while (lo < hi) { /* bounded by (hi - lo) / 64 words */
        uint64_t bits = w[lo >> 6] >> (lo & 63);
        if (bits) {
            size_t i = lo + (size_t)__builtin_ctzll(bits);
            return i < hi ? i : SIZE_MAX;
        }
        lo = (lo | 63) + 1;
    }
    return SIZE_MAX;
}

/* The last set bit of w in [lo, hi), or SIZE_MAX. */
static size_t last_set(const uint64_t *w, size_t lo, size_t hi)
{
    while (hi > lo) { /* bounded by (hi - lo) / 64 words */
        size_t top = hi - 1;
        uint64_t bits = w[top >> 6] & (~0ull >> (63 - (top & 63)));
        if (bits) {
            size_t i = (top & ~(size_t)63) + 63 - (size_t)__builtin_clzll(bits);
            return i >= lo ? i : SIZE_MAX;
        }
        hi = top & ~(size_t)63;
    }
    return SIZE_MAX;
}

/* While a scan goes on: the next (or previous) marked node from the selection, wrapping
 * around.  O(nodes / 64). */
static bool step_in_marks(struct rows *r, int dir, bool *wrapped)
{
    const uint64_t *marks = r->scan.marks;
    size_t n = r->end - r->begin;
    if (!r->sel || r->scan.found == 0)
        return false;
    size_t from = plan_node_preorder(r->sel) - r->begin, i;
    bool wrap = false;
    if (dir > 0) {
        i = first_set(marks, from + 1, n);
        if (i == SIZE_MAX)
            i = first_set(marks, 0, from + 1), wrap = true;
    } else {
        i = last_set(marks, 0, from);
        if (i == SIZE_MAX)
            i = last_set(marks, from, n), wrap = true;
    }
    if (i == SIZE_MAX)
        return false;
    if (wrapped)
        *wrapped = wrap;
    rows_select_centered(r, plan_section_node(r->section, r->begin + i));
    return true;
}

/* The selection's index among the matches when it is the match n/N last went to: then
 * the next one is beside it, no binary search over a million matches.  SIZE_MAX if not. */
static size_t match_at_sel(const struct rows *r)
{
    size_t i = r->match_hint; /* compared by pointer: the selection's node is not read */
    return r->sel && i < r->n_matches && r->matches &&
                   plan_section_node(r->section, r->matches[i]) == r->sel
               ? i
               : SIZE_MAX;
}

bool rows_search_step(struct rows *r, int dir, bool *wrapped)
{
    if (scan_live(r))
        return step_in_marks(r, dir, wrapped);
    if (!r->sel || r->n_matches == 0)
        return false;
    size_t i = match_at_sel(r);
    bool wrap;
    if (i == SIZE_MAX) {
        i = pick_next(r->matches, r->n_matches, plan_node_preorder(r->sel), dir, &wrap);
    } else if (dir > 0) {
        wrap = i + 1 == r->n_matches;
        i = wrap ? 0 : i + 1;
    } else {
        wrap = i == 0;
        i = wrap ? r->n_matches - 1 : i - 1;
    }
    if (wrapped)
        *wrapped = wrap;
    r->match_hint = i;
    select_centered_at(r, r->matches[i]);
    return true;
}

size_t rows_match_index(const struct rows *r)
{
    if (!r->sel)
        return 0;
    if (scan_live(r)) { /* while scanning: its rank among the marks found so far */
        size_t at = plan_node_preorder(r->sel) - r->begin;
        const uint64_t *w = r->scan.marks;
        if (!(w[at >> 6] & (1ull << (at & 63))))
            return 0;
        size_t rank = 0;
        for (size_t k = 0; k < at >> 6; k++) /* bounded by nodes / 64 */
            rank += (size_t)__builtin_popcountll(w[k]);
        return rank + (size_t)__builtin_popcountll(w[at >> 6] & (~0ull >> (63 - (at & 63))));
    }
    if (r->n_matches == 0)
        return 0;
    if (match_at_sel(r) != SIZE_MAX)
        return match_at_sel(r) + 1;
    size_t lo = 0, hi = r->n_matches;
    uint32_t key = plan_node_preorder(r->sel);
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (r->matches[mid] < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < r->n_matches && r->matches[lo] == key ? lo + 1 : 0;
}

bool rows_node_matches(const struct rows *r, const struct plan_node *n)
{
    if (!r->pattern || !*r->pattern)
        return false;
    return node_matches(r->pattern, strlen(r->pattern), !has_upper(r->pattern), n);
}

/* ---- guides ------------------------------------------------------------------------ */

static void add(char *buf, size_t cap, size_t *len, const char *s)
{
    size_t n = strlen(s);
    if (*len + n < cap) {
        memcpy(buf + *len, s, n);
        *len += n;
        buf[*len] = '\0';
    }
}

/* Does the column of ancestor a continue below the current row? */
static bool continues(const struct rows *r, const struct plan_node *a)
{
    return a != r->scope && plan_node_next_sibling(a) != NULL;
}

unsigned rows_window_skip(uint32_t dmin, uint32_t dmax, struct rows_fit fit, unsigned prev)
{
    if (dmax <= fit.plain)
        return 0;
    uint32_t soft = fit.soft ? fit.soft : 1, hard = fit.hard > soft ? fit.hard : soft;
    uint32_t lo = dmax > hard ? dmax - hard : 0;  /* the deepest row keeps the least room */
    uint32_t hi = dmin > 0 ? dmin - 1 : 0;        /* the shallowest row keeps its connector */
    if (lo >= hi)
        return hi; /* more levels on screen than fit: the deepest rows compress alone */
    if (prev >= lo && prev <= hi && prev > 0)
        return prev;
    uint32_t want = dmax > soft ? dmax - soft : 0;  /* the deepest row keeps its room */
    uint32_t slack = soft / 4 ? soft / 4 : 1;
    if (prev > hi) /* going up: room for a few shallower rows */
        want = want > slack ? want - slack : 0;
    else           /* going deeper: room for a few deeper ones */
        want += slack;
    return want < lo ? lo : want > hi ? hi : want;
}

void rows_prefix(struct rows *r, const struct plan_node *n, bool ascii, unsigned skip,
                 unsigned max_levels, struct rows_prefix *out)
{
    /* Each level takes at most 4 bytes ("│ "): keep the guides inside the buffer. */
    const unsigned cap_levels = (ROWS_PREFIX_MAX - 8) / 4;
    if (max_levels < 1)
        max_levels = 1;
    if (max_levels > cap_levels)
        max_levels = cap_levels;
    out->hint[0] = out->guides[0] = out->marker[0] = out->cont[0] = '\0';
    out->guide_cols = 0;
    size_t cont_len = 0;
    bool narrow = r->narrow_guides;
    const char *bar = narrow ? (ascii ? "|" : "\xE2\x94\x82") : ascii ? "| " : "\xE2\x94\x82 ";
    const char *blank = narrow ? " " : "  ";

    uint32_t d = rows_rel_depth(r, n);
    if (d > 0) {
        /* Ancestor columns 1..d-1, less the screen's hidden ones; past max_levels, only
         * the nearest quarter of them: the hint carries the depth, the text keeps room. */
        uint32_t cols = d - 1 > skip ? d - 1 - skip : 0;
        uint32_t keep = max_levels / 4 < 2 ? 2 : max_levels / 4;
        uint32_t shown = cols < max_levels ? cols : (keep < max_levels ? keep : max_levels) - 1;
        if (shown < cols)
            snprintf(out->hint, sizeof out->hint, "%s(depth %u) ", ascii ? "..." : "\xE2\x80\xA6",
                     (unsigned)d);
        else if (skip > 0)
            snprintf(out->hint, sizeof out->hint, "%s%u ", ascii ? "..." : "\xE2\x80\xA6",
                     skip);
        bool cont[ROWS_PREFIX_MAX / 4];
        const struct plan_node *a = plan_node_parent(n);
        for (uint32_t k = shown; k-- > 0 && a;) { /* bounded by max_levels */
            r->steps++;
            cont[k] = continues(r, a);
            a = plan_node_parent(a);
        }
        size_t len = 0;
        for (uint32_t k = 0; k < shown; k++)
            add(out->guides, sizeof out->guides, &len, cont[k] ? bar : blank);
        bool more = plan_node_next_sibling(n) != NULL && n != r->scope;
        memcpy(out->cont, out->guides, len + 1);
        cont_len = len;
        add(out->cont, sizeof out->cont, &cont_len, more ? bar : blank);
        static const char *const conn[2][2][2] = {
            /* [narrow][ascii][more] */
            {{"\xE2\x94\x94\xE2\x94\x80", "\xE2\x94\x9C\xE2\x94\x80"}, {"\\-", "|-"}},
            {{"\xE2\x94\x94", "\xE2\x94\x9C"}, {"\\", "|"}},
        };
        add(out->guides, sizeof out->guides, &len, conn[narrow][ascii][more]);
        out->guide_cols = (narrow ? 1 : 2) * (shown + 1);
    } else if (skip > 0) {
        snprintf(out->hint, sizeof out->hint, "%s%u ", ascii ? "..." : "\xE2\x80\xA6", skip);
    }
    const char *g;
    if (!plan_node_first_child(n))
        g = ascii ? "- " : "\xE2\x94\x80 ";
    else if (rows_is_folded(r, n))
        g = ascii ? "+ " : "\xE2\x96\xB8 ";
    else
        g = ascii ? "- " : "\xE2\x96\xBE ";
    snprintf(out->glyph, sizeof out->glyph, "%s", g);
    /* Open children hang from the glyph's column. */
    add(out->cont, sizeof out->cont, &cont_len,
        plan_node_first_child(n) && !rows_is_folded(r, n) ? (ascii ? "| " : "\xE2\x94\x82 ")
                                                          : "  ");
    if (plan_node_first_child(n) && rows_is_folded(r, n))
        snprintf(out->marker, sizeof out->marker, "[+%u] ", (unsigned)n->subtree_size);
}
