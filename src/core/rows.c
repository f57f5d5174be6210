/* rows.c: visible rows, folds, selection and scrolling of one tab (see rows.h). */
#include "sparkplan/rows.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sparkplan/opclass.h"

bool rows_init(struct rows *r, struct plan_section *s, struct plan_node *scope)
{
    memset(r, 0, sizeof *r);
    r->section = s;
    r->height = 1;
    if (scope && scope->section == s && scope->preorder < s->n_nodes) {
        r->scope = scope;
        r->begin = scope->preorder;
        r->end = scope->preorder + scope->subtree_size + 1;
        r->base_depth = scope->depth;
    } else {
        r->begin = 0;
        r->end = s ? s->n_nodes : 0;
    }
    if (s && r->end > s->n_nodes)
        r->end = s->n_nodes;
    if (r->end < r->begin)
        r->end = r->begin;
    r->folded = calloc(r->end > r->begin ? r->end - r->begin : 1, 1);
    if (!r->folded) {
        r->end = r->begin;
        return false;
    }
    r->sel = r->top = rows_first(r);
    return true;
}

void rows_free(struct rows *r)
{
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

bool rows_contains(const struct rows *r, const struct plan_node *n)
{
    return n && n->section == r->section && n->preorder >= r->begin && n->preorder < r->end &&
           r->section->preorder[n->preorder] == n;
}

bool rows_has_children(const struct rows *r, const struct plan_node *n)
{
    (void)r;
    return n->first_child != NULL;
}

bool rows_is_folded(const struct rows *r, const struct plan_node *n)
{
    return n->first_child && r->folded[n->preorder - r->begin];
}

uint32_t rows_rel_depth(const struct rows *r, const struct plan_node *n)
{
    return n->depth >= r->base_depth ? n->depth - r->base_depth : 0;
}

/* The parent, unless n is a root of the tab. */
static struct plan_node *tab_parent(const struct rows *r, const struct plan_node *n)
{
    return n == r->scope ? NULL : n->parent;
}

struct plan_node *rows_first(const struct rows *r)
{
    return r->begin < r->end ? r->section->preorder[r->begin] : NULL;
}

struct plan_node *rows_last(struct rows *r)
{
    if (r->begin >= r->end)
        return NULL;
    struct plan_node *n = r->scope ? r->scope : r->section->last_root;
    while (n && n->last_child && !rows_is_folded(r, n)) { /* bounded by depth */
        n = n->last_child;
        r->steps++;
    }
    return n;
}

struct plan_node *rows_next(struct rows *r, const struct plan_node *n)
{
    r->steps++;
    uint32_t p = n->preorder + 1 + (rows_is_folded(r, n) ? n->subtree_size : 0);
    return p < r->end ? r->section->preorder[p] : NULL;
}

struct plan_node *rows_prev(struct rows *r, const struct plan_node *n)
{
    r->steps++;
    if (n->preorder <= r->begin)
        return NULL;
    if (n == r->scope || !n->prev_sibling)
        return tab_parent(r, n);
    /* The row above is the last visible descendant of the previous sibling. */
    struct plan_node *s = n->prev_sibling;
    while (s->last_child && !rows_is_folded(r, s)) { /* bounded by depth */
        s = s->last_child;
        r->steps++;
    }
    return s;
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

void rows_unfold_to(struct rows *r, const struct plan_node *n)
{
    for (struct plan_node *a = tab_parent(r, n); a; a = tab_parent(r, a)) { /* depth */
        r->steps++;
        r->folded[a->preorder - r->begin] = 0;
    }
}

static unsigned row_height(struct rows *r, const struct plan_node *n)
{
    if (!r->height_fn)
        return 1;
    unsigned h = r->height_fn(n, r->height_ctx);
    return h ? h : 1;
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

/* Is n fully on screen with the current top?  Walks at most one screen of rows. */
static bool on_screen(struct rows *r, const struct plan_node *n)
{
    if (!r->top || n->preorder < r->top->preorder)
        return false;
    unsigned lines = 0;
    for (struct plan_node *m = r->top; m && lines < r->height; m = rows_next(r, m)) {
        unsigned h = row_height(r, m);
        if (m == n)
            return lines + h <= r->height || m == r->top;
        lines += h;
    }
    return false;
}

/* Put top so that n is the last row on screen. */
static void top_for_bottom(struct rows *r, struct plan_node *n)
{
    struct plan_node *p;
    unsigned lines = row_height(r, n);
    r->top = n;
    while ((p = rows_prev(r, r->top)) && lines + row_height(r, p) <= r->height) {
        lines += row_height(r, p);
        r->top = p;
    }
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
    if (r->sel->preorder < r->top->preorder)
        r->top = r->sel;
    else if (!on_screen(r, r->sel))
        top_for_bottom(r, r->sel);
    /* Do not leave empty lines at the bottom while rows above could fill them. */
    unsigned lines = 0;
    for (struct plan_node *m = r->top; m && lines < r->height; m = rows_next(r, m))
        lines += row_height(r, m);
    struct plan_node *p;
    while (lines < r->height && (p = rows_prev(r, r->top)) &&
           lines + row_height(r, p) <= r->height) {
        lines += row_height(r, p);
        r->top = p;
    }
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

void rows_select_centered(struct rows *r, struct plan_node *n)
{
    if (!rows_contains(r, n))
        return;
    rows_unfold_to(r, n);
    if (!r->top)
        r->top = n;
    if (!on_screen(r, n)) {
        r->top = walk(r, n, -(int)(r->height / 2));
    }
    r->sel = n;
    rows_fix_scroll(r);
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
    if (r->sel->preorder < r->top->preorder) {
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
    if (x && x->preorder > n->preorder && x->preorder <= n->preorder + n->subtree_size)
        return (struct plan_node *)n;
    return x;
}

void rows_set_folded(struct rows *r, struct plan_node *n, bool folded)
{
    if (!rows_contains(r, n))
        return;
    r->folded[n->preorder - r->begin] = folded ? 1 : 0;
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
    if (r->sel && r->sel->first_child)
        rows_set_folded(r, r->sel, !rows_is_folded(r, r->sel));
}

void rows_left(struct rows *r)
{
    struct plan_node *n = r->sel;
    if (!n)
        return;
    if (n->first_child && !rows_is_folded(r, n))
        rows_set_folded(r, n, true);
    else if (tab_parent(r, n))
        rows_select(r, tab_parent(r, n));
}

void rows_right(struct rows *r)
{
    struct plan_node *n = r->sel;
    if (!n || !n->first_child)
        return;
    if (rows_is_folded(r, n))
        rows_set_folded(r, n, false);
    else
        rows_select(r, n->first_child);
}

void rows_fold_all(struct rows *r)
{
    memset(r->folded, 1, r->end - r->begin);
    refold(r);
}

void rows_unfold_all(struct rows *r)
{
    memset(r->folded, 0, r->end - r->begin);
    rows_fix_scroll(r);
}

void rows_show_levels(struct rows *r, unsigned levels)
{
    if (levels == 0)
        levels = 1;
    if (!r->exchanges_ready)
        rows_build_indexes(r, NULL);
    if (r->depth8) /* one byte per node: no pointer chasing over a million nodes */
        for (uint32_t i = 0; i < r->end - r->begin; i++)
            r->folded[i] = r->depth8[i] + 1u >= levels;
    else
        for (uint32_t i = r->begin; i < r->end; i++)
            r->folded[i - r->begin] = rows_rel_depth(r, r->section->preorder[i]) + 1 >= levels;
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
    if (!doc || s.ptr < doc->text || s.ptr + s.len > doc->text + doc->text_len ||
        doc->text_len > UINT32_MAX)
        return false;
    if (r->n_spans == *cap) {
        size_t nc = *cap ? *cap * 2 : 256;
        struct rows_span *ns = realloc(r->spans, nc * sizeof *ns);
        if (!ns)
            return false;
        r->spans = ns;
        *cap = nc;
    }
    uint32_t start = (uint32_t)(s.ptr - doc->text);
    r->spans[r->n_spans++] = (struct rows_span){start, start + (uint32_t)s.len, pre};
    return true;
}

static int compare_span(const void *a, const void *b)
{
    const struct rows_span *x = a, *y = b;
    return (x->start > y->start) - (x->start < y->start);
}

bool rows_build_indexes(struct rows *r, struct op_summary *sum)
{
    if (sum)
        memset(sum, 0, sizeof *sum);
    free(r->exchanges);
    free(r->stage_starts);
    free(r->depth8);
    free(r->spans);
    free(r->loose);
    r->exchanges = r->stage_starts = r->loose = NULL;
    r->spans = NULL;
    r->n_exchanges = r->n_stage_starts = r->n_spans = r->n_loose = 0;
    r->depth8 = malloc(r->end > r->begin ? r->end - r->begin : 1);
    const struct document *doc =
        r->section && r->section->plan ? r->section->plan->doc : NULL;
    size_t cap_x = 0, cap_s = 0, cap_sp = 0, cap_l = 0;
    bool ok = r->depth8 != NULL;
    bool sorted = true;
    for (uint32_t i = r->begin; i < r->end; i++) {
        const struct plan_node *n = r->section->preorder[i];
        uint32_t d = rows_rel_depth(r, n);
        if (r->depth8)
            r->depth8[i - r->begin] = (uint8_t)(d > 255 ? 255 : d);
        size_t before = r->n_spans;
        if (!add_span(r, &cap_sp, n->text.len ? n->text : n->name, i, doc) ||
            !add_span(r, &cap_sp, n->details_text, i, doc)) {
            r->n_spans = before;
            ok &= push(&r->loose, &r->n_loose, &cap_l, i);
        }
        for (size_t k = before; k < r->n_spans; k++)
            if (k > 0 && r->spans[k].start < r->spans[k - 1].start)
                sorted = false;
        enum op_class c = op_class_of(n);
        if (op_class_is_exchange(c))
            ok &= push(&r->exchanges, &r->n_exchanges, &cap_x, i);
        if (n->stage >= 0 && (n == r->scope || !n->parent || n->parent->stage != n->stage))
            ok &= push(&r->stage_starts, &r->n_stage_starts, &cap_s, i);
    }
    /* Formatted plans put details blocks after the tree: sort once. */
    if (!sorted)
        qsort(r->spans, r->n_spans, sizeof *r->spans, compare_span);
    r->exchanges_ready = r->stages_ready = true;
    /* The header counts what --summary counts, with the same function (QA #1). */
    if (sum && r->section && !op_summary_compute(sum, r->section, r->begin, r->end))
        ok = false;
    return ok;
}

static void build_indexes(struct rows *r)
{
    if (!r->exchanges_ready)
        rows_build_indexes(r, NULL);
}

static bool jump_in(struct rows *r, const uint32_t *a, size_t n, int dir, bool *wrapped)
{
    if (!r->sel || n == 0)
        return false;
    size_t i = pick_next(a, n, r->sel->preorder, dir, wrapped);
    rows_select_centered(r, r->section->preorder[a[i]]);
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
    return contains(n->text, pat, m, fold) || contains(n->details_text, pat, m, fold);
}

/* A match at text offset at: mark the node whose span holds it.  *k is a cursor over the
 * sorted spans that only moves forward.  Returns where scanning may resume. */
static uint32_t mark_match(const struct rows *r, size_t *k, uint32_t at, size_t m,
                           uint64_t *marks)
{
    while (*k < r->n_spans && r->spans[*k].end < at + m) /* forward only: linear overall */
        (*k)++;
    if (*k == r->n_spans || r->spans[*k].start > at)
        return at + 1; /* not inside a node's text (a tree prefix, another section) */
    uint32_t bit = r->spans[*k].preorder - r->begin;
    marks[bit >> 6] |= 1ull << (bit & 63);
    return r->spans[(*k)++].end; /* one match per span is enough */
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

/* Search the document text under the tab's spans in one forward pass: memchr finds the
 * pattern's rarest byte (both cases when folding), each hit is checked in place, and a
 * cursor walks the sorted spans alongside; a node is done after its first match.  The
 * work is memchr over the text plus a few steps per hit, whatever the number of nodes.
 * marks has one bit per node of the tab. */
static void scan_spans(const struct rows *r, const char *pat, size_t m, bool fold,
                       uint64_t *marks)
{
    if (r->n_spans == 0 || m == 0)
        return;
    const unsigned char *text = (const unsigned char *)r->section->plan->doc->text;
    const unsigned char *p = (const unsigned char *)pat; /* already lower-cased if fold */
    uint32_t limit = 0;
    for (size_t i = 0; i < r->n_spans; i++)
        if (r->spans[i].end > limit)
            limit = r->spans[i].end;
    size_t anchor = 0;
    unsigned best = ~0u;
    for (size_t i = 0; i < m; i++) { /* bounded by m */
        unsigned w = byte_weight(p[i]);
        if (fold && p[i] >= 'a' && p[i] <= 'z')
            w += byte_weight((unsigned char)(p[i] - 32));
        if (w < best)
            best = w, anchor = i;
    }
    unsigned char c0 = p[anchor], c1 = c0;
    if (fold && c0 >= 'a' && c0 <= 'z')
        c1 = (unsigned char)(c0 - 32);
    size_t k = 0;
    uint32_t pos = r->spans[0].start + (uint32_t)anchor; /* where the anchor byte may be */
    /* Next occurrences of each case, kept between rounds: asking memchr again for one that
     * is not there would make the scan quadratic. */
    const unsigned char *a = NULL, *b = NULL;
    bool a_done = false, b_done = c1 == c0;
    uint32_t stop = limit - (uint32_t)(m - 1 - anchor); /* the anchor's last position + 1 */
    while (pos < stop && k < r->n_spans && limit >= m) {
        if (!a_done && (!a || a < text + pos) && !(a = memchr(text + pos, c0, stop - pos)))
            a_done = true;
        if (!b_done && (!b || b < text + pos) && !(b = memchr(text + pos, c1, stop - pos)))
            b_done = true;
        const unsigned char *c = a_done ? NULL : a;
        if (!b_done && (!c || b < c))
            c = b;
        if (!c)
            break;
        uint32_t hit = (uint32_t)(c - text);
        uint32_t at = hit - (uint32_t)anchor;
        if (hit < anchor) {
            pos = hit + 1;
            continue;
        }
        size_t j = 0;
        if (fold)
            while (j < m && lower(text[at + j]) == p[j]) /* bounded by m */
                j++;
        else
            while (j < m && text[at + j] == p[j])
                j++;
        if (j < m) {
            pos = hit + 1;
            continue;
        }
        uint32_t next = mark_match(r, &k, at, m, marks);
        pos = (next > at + 1 ? next : at + 1) + (uint32_t)anchor;
    }
}

long rows_search(struct rows *r, const char *pattern)
{
    free(r->pattern);
    free(r->matches);
    r->pattern = NULL;
    r->matches = NULL;
    r->n_matches = 0;
    if (!pattern || !*pattern)
        return 0;
    size_t m = strlen(pattern);
    r->pattern = malloc(m + 1);
    if (!r->pattern)
        return -1;
    bool fold = !has_upper(pattern);
    for (size_t i = 0; i <= m; i++)
        r->pattern[i] = fold ? (char)lower((unsigned char)pattern[i]) : pattern[i];
    size_t cap = 0;
    if (!r->exchanges_ready)
        rows_build_indexes(r, NULL);
    size_t n = r->end - r->begin;
    uint64_t *marks = calloc(n / 64 + 1, sizeof *marks);
    if (!marks)
        return -1;
    scan_spans(r, r->pattern, m, fold, marks);
    for (size_t i = 0; i < r->n_loose; i++) /* text outside the document: node by node */
        if (node_matches(r->pattern, m, fold, r->section->preorder[r->loose[i]])) {
            uint32_t bit = r->loose[i] - r->begin;
            marks[bit >> 6] |= 1ull << (bit & 63);
        }
    for (size_t w = 0; w <= n / 64; w++) /* matches in pre-order, 64 nodes at a time */
        for (uint64_t bits = marks[w]; bits; bits &= bits - 1) {
            uint32_t pre = r->begin + (uint32_t)(w * 64) + (uint32_t)__builtin_ctzll(bits);
            if (!push(&r->matches, &r->n_matches, &cap, pre)) {
                free(marks);
                return -1;
            }
        }
    free(marks);
    return (long)r->n_matches;
}

bool rows_search_step(struct rows *r, int dir, bool *wrapped)
{
    return jump_in(r, r->matches, r->n_matches, dir, wrapped);
}

size_t rows_match_index(const struct rows *r)
{
    if (!r->sel || r->n_matches == 0)
        return 0;
    size_t lo = 0, hi = r->n_matches;
    uint32_t key = r->sel->preorder;
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
    return a != r->scope && a->next_sibling != NULL;
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
    const char *bar = ascii ? "| " : "\xE2\x94\x82 ";

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
        const struct plan_node *a = n->parent;
        for (uint32_t k = shown; k-- > 0 && a;) { /* bounded by max_levels */
            r->steps++;
            cont[k] = continues(r, a);
            a = a->parent;
        }
        size_t len = 0;
        for (uint32_t k = 0; k < shown; k++)
            add(out->guides, sizeof out->guides, &len, cont[k] ? bar : "  ");
        bool more = n->next_sibling != NULL && n != r->scope;
        memcpy(out->cont, out->guides, len + 1);
        cont_len = len;
        add(out->cont, sizeof out->cont, &cont_len, more ? bar : "  ");
        add(out->guides, sizeof out->guides, &len,
            more ? (ascii ? "|-" : "\xE2\x94\x9C\xE2\x94\x80")
                 : (ascii ? "\\-" : "\xE2\x94\x94\xE2\x94\x80"));
        out->guide_cols = 2 * (shown + 1);
    } else if (skip > 0) {
        snprintf(out->hint, sizeof out->hint, "%s%u ", ascii ? "..." : "\xE2\x80\xA6", skip);
    }
    const char *g;
    if (!n->first_child)
        g = ascii ? "- " : "\xE2\x94\x80 ";
    else if (rows_is_folded(r, n))
        g = ascii ? "+ " : "\xE2\x96\xB8 ";
    else
        g = ascii ? "- " : "\xE2\x96\xBE ";
    snprintf(out->glyph, sizeof out->glyph, "%s", g);
    /* Open children hang from the glyph's column. */
    add(out->cont, sizeof out->cont, &cont_len,
        n->first_child && !rows_is_folded(r, n) ? bar : "  ");
    if (n->first_child && rows_is_folded(r, n))
        snprintf(out->marker, sizeof out->marker, "[+%u] ", (unsigned)n->subtree_size);
}
