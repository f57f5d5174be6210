/* diff: matching two plan forests and classifying every node (see diff.h).
 *
 * Each side is flattened into arrays in pre-order (index 0 is a virtual root above the
 * forest), so a subtree is a contiguous range and every pass is a loop, never recursion.
 * The two sides are flattened and hashed on two threads; then:
 *   1. identical subtrees, largest first (a counting sort by size), from a hash table of
 *      B's subtrees: those that occur once on each side, or under parents already paired;
 *   2. bottom-up: an unmatched node looks for a partner among the B ancestors (through
 *      wrappers and at most one gained node) of where its children's partners are, or of
 *      what its unmatched children looked for;
 *   3. top-down: the unmatched children of matched pairs, identical ones first (in order,
 *      however wide the parent), then by operator, then by class, looking through unmatched
 *      wrappers and stepping over one lost or gained node;
 *   4. the identical subtrees left (now beside their paired surroundings), then 2 and 3
 *      again, then nodes of the same content near the same place;
 *   5. classification, the merged tree (B's shape, removed nodes put back where they were)
 *      and the summary (diff_merge.c).
 * Candidate scans are bounded by small constants, so the cost stays linear in practice.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "diff_impl.h"
#include "sparkplan/nodeinfo.h"
#include "sparkplan/opclass.h"
#include "sparkplan/thread.h"

#define SCAN_CANDIDATES 16 /* equal subtrees examined for the parent preference */
#define CLIMB_LEVELS 8     /* B ancestors a bottom-up candidate is looked for in */
#define HINTS 2            /* where an unmatched node's descendants went, passed upwards */
#define CHILD_WINDOW 64    /* children examined per child in the top-down pass */

/* ---- flattening a side ---------------------------------------------------------------- */

static size_t side_upper_bound(const struct diff_side *s)
{
    size_t n = 1 + s->n_parts;
    for (size_t p = 0; p < s->n_parts; p++)
        for (const struct plan_node *r = s->parts[p].first_root; r; r = plan_node_next_sibling(r))
            n += 1 + (size_t)r->subtree_size;
    return n;
}

static bool dtree_alloc(struct dtree *t, size_t cap)
{
    t->node = calloc(cap, sizeof *t->node);
    t->part = calloc(cap, sizeof *t->part);
    t->parent = malloc(cap * sizeof *t->parent);
    t->first_child = malloc(cap * sizeof *t->first_child);
    t->next_sibling = malloc(cap * sizeof *t->next_sibling);
    t->size = calloc(cap, sizeof *t->size);
    t->nwdesc = calloc(cap, sizeof *t->nwdesc);
    t->hash = calloc(cap, sizeof *t->hash);
    t->tree_hash = calloc(cap, sizeof *t->tree_hash);
    t->op = calloc(cap, sizeof *t->op);
    t->klass = calloc(cap, sizeof *t->klass);
    t->partner = malloc(cap * sizeof *t->partner);
    t->wrapper = calloc(cap, sizeof *t->wrapper);
    return t->wrapper && t->nwdesc && t->node && t->part && t->parent && t->first_child && t->next_sibling && t->size &&
           t->hash && t->tree_hash && t->op && t->klass && t->partner;
}

void dtree_free(struct dtree *t)
{
    free(t->node);
    free(t->part);
    free(t->parent);
    free(t->first_child);
    free(t->next_sibling);
    free(t->size);
    free(t->nwdesc);
    free(t->hash);
    free(t->tree_hash);
    free(t->op);
    free(t->klass);
    free(t->partner);
    free(t->wrapper);
    memset(t, 0, sizeof *t);
}

/* Appends node index i under parent; last[] tracks each parent's last child. */
static uint32_t dtree_add(struct dtree *t, uint32_t parent, uint32_t *last)
{
    uint32_t i = t->n++;
    t->parent[i] = parent;
    t->first_child[i] = t->next_sibling[i] = DIFF_NONE;
    t->partner[i] = DIFF_NONE;
    last[i] = DIFF_NONE;
    if (i == 0)
        return i;
    if (last[parent] == DIFF_NONE)
        t->first_child[parent] = i;
    else
        t->next_sibling[last[parent]] = i;
    last[parent] = i;
    return i;
}

/* The subtree of root r in pre-order, under parent index top.  stack holds the side index
 * of each node on the path from r (depth - r's depth). */
static bool dtree_add_subtree(struct dtree *t, const struct plan_node *r, uint32_t top,
                              uint32_t *last, bool skip_shadowed, uint32_t **stack,
                              size_t *stack_cap)
{
    const struct plan_section *s = r->section;
    uint32_t end = plan_node_preorder(r) + r->subtree_size + 1;
    for (uint32_t k = plan_node_preorder(r); k < end; k++) {
        const struct plan_node *n = plan_section_node(s, k);
        if (skip_shadowed && n != r && node_is_shadowed_initial(n)) {
            k += n->subtree_size;
            continue;
        }
        size_t level = n->depth - r->depth;
        if (level >= *stack_cap) {
            size_t nc = *stack_cap * 2 + 64;
            uint32_t *ns = realloc(*stack, nc * sizeof *ns);
            if (!ns)
                return false;
            *stack = ns;
            *stack_cap = nc;
        }
        uint32_t parent = level ? (*stack)[level - 1] : top;
        uint32_t i = dtree_add(t, parent, last);
        t->node[i] = n;
        (*stack)[level] = i;
    }
    return true;
}

static bool dtree_build(struct dtree *t, const struct diff_side *side, bool headings)
{
    size_t cap = side_upper_bound(side);
    uint32_t *last = malloc(cap * sizeof *last);
    uint32_t *stack = NULL;
    size_t stack_cap = 0;
    bool ok = last && dtree_alloc(t, cap);
    if (ok)
        dtree_add(t, 0, last);
    for (size_t p = 0; ok && p < side->n_parts; p++) {
        uint32_t top = 0;
        if (headings) {
            top = dtree_add(t, 0, last);
            t->part[top] = &side->parts[p];
        }
        for (const struct plan_node *r = side->parts[p].first_root; ok && r;
             r = plan_node_next_sibling(r))
            ok = dtree_add_subtree(t, r, top, last, side->skip_shadowed, &stack, &stack_cap);
    }
    free(last);
    free(stack);
    if (!ok)
        return false;
    for (uint32_t i = t->n; i-- > 1;)
        t->size[t->parent[i]] += t->size[i] + 1;
    return true;
}

/* ---- hashes --------------------------------------------------------------------------- */

static uint64_t hash_mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
    h *= 0xff51afd7ed558ccdULL;
    return h ^ (h >> 29);
}

/* The class a node may be matched by when its operator differs: 0 for none. */
static uint16_t match_class(const struct plan_node *n)
{
    switch (node_role(n)) {
    case CAT_JOIN:
        return 1;
    case CAT_SHUFFLE:
        return 2;
    case CAT_BROADCAST:  /* a shuffle that became a broadcast is one gone, one new */
        return 11;
    case CAT_REUSED:
        return 12;
    case CAT_SCAN:
    case CAT_RELATION:
    case CAT_CACHE:
        return 3;
    case CAT_AGGREGATE:
        return 4;
    case CAT_LIMIT:
        return 5;
    case CAT_SET:
        return 6;
    case CAT_WINDOW:
        return 7;
    case CAT_PYTHON:
        return 8;
    case CAT_WRITE:
        return 9;
    case CAT_SORT:
        return 10;
    default:
        return 0;
    }
}

static bool hash_nodes(struct diff_ctx *c, struct dtree *t, struct diff_idmap *ids)
{
    for (uint32_t i = 1; i < t->n; i++) {
        uint64_t h = 0x84222325cbf29ce4ULL;
        if (t->part[i]) {
            diff_idmap_reset(ids);
            if (!diff_norm_value(c, t->part[i]->title, ids, &h))
                return false;
            t->op[i] = slice_cstr("heading");
        } else {
            const struct plan_node *n = t->node[i];
            t->op[i] = diff_canonical_op(n);
            t->klass[i] = match_class(n);
            t->wrapper[i] = node_is_wrapper(n);
            if (!diff_node_fields(c, n, ids, &c->fa))
                return false;
            for (size_t f = 0; f < c->fa.n; f++)
                h = hash_mix(hash_mix(h, diff_hash_slice(c->fa.v[f].key)), c->fa.v[f].norm);
            if (!(c->norm & DIFF_NORM_CODEGEN))
                h = hash_mix(h, (uint64_t)(int64_t)n->stage);
        }
        t->hash[i] = hash_mix(h, diff_hash_slice(t->op[i]));
    }
    /* Subtrees: reverse pre-order sees every child before its parent. */
    for (uint32_t i = t->n; i-- > 1;)
        t->nwdesc[t->parent[i]] += t->nwdesc[i] + !t->wrapper[i];
    for (uint32_t i = t->n; i-- > 0;) {
        uint64_t h = hash_mix(t->hash[i], t->size[i]);
        for (uint32_t ch = t->first_child[i]; ch != DIFF_NONE; ch = t->next_sibling[ch])
            h = hash_mix(h, t->tree_hash[ch]);
        t->tree_hash[i] = h;
    }
    return true;
}

/* ---- 2. identical subtrees ------------------------------------------------------------ */

struct bucket {
    uint64_t key;
    uint32_t head; /* first B node with this subtree hash not known to be matched */
    bool used;     /* (head runs out as nodes match; the slot stays taken) */
    uint32_t na, nb; /* subtrees with this hash on each side */
};

static struct bucket *bucket_find(struct bucket *tab, size_t cap, uint64_t key)
{
    size_t i = (size_t)(key ^ (key >> 32)) & (cap - 1);
    while (tab[i].used && tab[i].key != key)
        i = (i + 1) & (cap - 1);
    return &tab[i];
}

/* Pairs the identical subtrees x and y node by node.  A node an earlier pass paired keeps
 * its partner (the second round meets subtrees whose insides other passes placed): a pair
 * is only ever made of two free nodes, so no node stands in two pairs. */
static void match_range(struct dtree *a, struct dtree *b, uint32_t x, uint32_t y)
{
    for (uint32_t k = 0; k <= a->size[x]; k++) {
        if (a->partner[x + k] != DIFF_NONE || b->partner[y + k] != DIFF_NONE)
            continue;
        a->partner[x + k] = y + k;
        b->partner[y + k] = x + k;
    }
}

/* Among the unmatched B subtrees equal to A's x, the first whose parent's content equals
 * x's parent's (or is its partner); else the first. */
static uint32_t pick_equal(struct dtree *a, struct dtree *b, uint32_t x, struct bucket *bk,
                           const uint32_t *chain)
{
    while (bk->head != DIFF_NONE && b->partner[bk->head] != DIFF_NONE)
        bk->head = chain[bk->head];
    uint32_t first = bk->head, seen = 0, best = DIFF_NONE;
    uint32_t pa = a->parent[x];
    for (uint32_t y = first; y != DIFF_NONE && seen < SCAN_CANDIDATES; y = chain[y]) {
        if (b->partner[y] != DIFF_NONE || b->size[y] != a->size[x])
            continue;
        seen++;
        uint32_t pb = b->parent[y];
        if (a->partner[pa] == pb)
            return y;
        if (pa && pb && a->hash[pa] == b->hash[pb] && best == DIFF_NONE)
            best = y;
    }
    if (best != DIFF_NONE)
        return best;
    return first != DIFF_NONE && b->size[first] == a->size[x] ? first : DIFF_NONE;
}

/* The identical-subtree pass in two rounds: first the subtrees whose content occurs once on
 * each side (or whose parents are already a pair), then, after the other passes have
 * placed their surroundings, the rest.  Pairing ambiguous subtrees early pairs the
 * children of one Union with look-alikes under another. */
struct ident {
    struct bucket *tab;
    size_t cap;
    uint32_t *chain;   /* next B node with the same subtree hash */
    uint32_t *order;   /* A's nodes, largest subtree first */
    uint32_t n_order;
};

static void ident_free(struct ident *id)
{
    free(id->tab);
    free(id->chain);
    free(id->order);
}

static bool ident_init(struct ident *id, const struct dtree *a, const struct dtree *b)
{
    memset(id, 0, sizeof *id);
    id->cap = 16;
    while (id->cap < (size_t)b->n * 2)
        id->cap *= 2;
    id->tab = malloc(id->cap * sizeof *id->tab);
    id->chain = malloc((size_t)b->n * sizeof *id->chain);
    id->order = malloc((size_t)a->n * sizeof *id->order);
    uint32_t *count = calloc((size_t)a->n + 1, sizeof *count);
    bool ok = id->tab && id->chain && id->order && count;
    if (ok) {
        for (size_t i = 0; i < id->cap; i++)
            id->tab[i] = (struct bucket){0, DIFF_NONE, false, 0, 0};
        for (uint32_t y = b->n; y-- > 1;) {
            struct bucket *bk = bucket_find(id->tab, id->cap, b->tree_hash[y]);
            id->chain[y] = bk->head;
            bk->key = b->tree_hash[y];
            bk->head = y;
            bk->used = true;
            bk->nb++;
        }
        for (uint32_t x = 1; x < a->n; x++) {
            struct bucket *bk = bucket_find(id->tab, id->cap, a->tree_hash[x]);
            if (bk->used)
                bk->na++;
            count[a->size[x]]++;
        }
        /* Counting sort of A's nodes by subtree size, largest first. */
        uint32_t pos = 0;
        for (uint32_t sz = a->n; sz-- > 0;) {
            uint32_t c = count[sz];
            count[sz] = pos;
            pos += c;
        }
        for (uint32_t x = 1; x < a->n; x++)
            id->order[count[a->size[x]]++] = x;
        id->n_order = pos;
    }
    free(count);
    if (!ok)
        ident_free(id);
    return ok;
}

/* One round: unique_only pairs what occurs once on each side, or sits under a pair. */
static void ident_round(struct ident *id, struct dtree *a, struct dtree *b, bool unique_only)
{
    for (uint32_t k = 0; k < id->n_order; k++) {
        uint32_t x = id->order[k];
        if (a->partner[x] != DIFF_NONE)
            continue;
        struct bucket *bk = bucket_find(id->tab, id->cap, a->tree_hash[x]);
        if (bk->head == DIFF_NONE)
            continue;
        uint32_t y = pick_equal(a, b, x, bk, id->chain);
        if (y == DIFF_NONE)
            continue;
        bool unique = bk->na == 1 && bk->nb == 1;
        bool parents_paired = a->partner[a->parent[x]] == b->parent[y];
        if (!unique_only || unique || parents_paired)
            match_range(a, b, x, y);
    }
}

/* ---- 3. bottom-up --------------------------------------------------------------------- */

struct cand {
    uint32_t b;
    uint32_t weight;
};

static void cand_add(struct cand *cs, unsigned *n, unsigned cap, uint32_t b, uint32_t w)
{
    if (b == DIFF_NONE || b == 0)
        return;
    for (unsigned i = 0; i < *n; i++) {
        if (cs[i].b == b) {
            cs[i].weight += w;
            return;
        }
    }
    if (*n < cap) {
        cs[(*n)++] = (struct cand){b, w};
        return;
    }
    unsigned lo = 0;
    for (unsigned i = 1; i < *n; i++)
        if (cs[i].weight < cs[lo].weight)
            lo = i;
    if (cs[lo].weight < w)
        cs[lo] = (struct cand){b, w};
}

static bool same_op(const struct dtree *a, uint32_t x, const struct dtree *b, uint32_t y)
{
    return a->op[x].len == b->op[y].len && memcmp(a->op[x].ptr, b->op[y].ptr, a->op[x].len) == 0;
}

/* Same class, and for scans the same table. */
static bool same_class(const struct dtree *a, uint32_t x, const struct dtree *b, uint32_t y)
{
    if (!a->klass[x] || a->klass[x] != b->klass[y])
        return false;
    if (a->klass[x] != 3)
        return true;
    struct slice ta = node_table_name(a->node[x]), tb = node_table_name(b->node[y]);
    if (slice_starts_with(ta, "spark_catalog."))
        ta = slice_make(ta.ptr + 14, ta.len - 14);
    if (slice_starts_with(tb, "spark_catalog."))
        tb = slice_make(tb.ptr + 14, tb.len - 14);
    return ta.len && ta.len == tb.len && memcmp(ta.ptr, tb.ptr, ta.len) == 0;
}

/* Enough of x's descendants landed under y: at least half of the non-wrapper descendants
 * of the larger of the two. */
static bool share_ok(const struct dtree *a, uint32_t x, const struct dtree *b, uint32_t y,
                     uint32_t common)
{
    uint32_t big = a->nwdesc[x] > b->nwdesc[y] ? a->nwdesc[x] : b->nwdesc[y];
    return (uint64_t)common * 2 >= big;
}

struct climbed {
    uint32_t b, weight;
    bool direct;   /* reached through wrappers only, no node the other side gained */
};

static void climbed_add(struct climbed *cl, unsigned *n, uint32_t y, uint32_t w, bool direct)
{
    for (unsigned i = 0; i < *n; i++) {
        if (cl[i].b == y) {
            cl[i].weight += w;
            cl[i].direct = cl[i].direct || direct;
            return;
        }
    }
    if (*n < 8 * CLIMB_LEVELS)
        cl[(*n)++] = (struct climbed){y, w, direct};
}

/* How well y fits x once the operator agrees: the same content, parents with the same
 * content, reached directly.  In a chain of Filters this tells the changed one in place
 * from an unchanged one further up, and a replaced node from the one above it. */
static int fit(const struct dtree *a, uint32_t x, const struct dtree *b, const struct climbed *c)
{
    uint32_t pa = a->parent[x], pb = b->parent[c->b];
    bool parents = pa && pb && a->hash[pa] == b->hash[pb];
    return 2 * (a->hash[x] == b->hash[c->b]) + 2 * parents + c->direct;
}

/* The partner of A's x among the candidates and their unmatched B ancestors: each B node
 * gathers the weight of the candidates below it.  A climb passes wrappers and at most one
 * other node (one the other side gained).  Of the nodes whose share is enough, the best
 * fit with the same operator wins (then the heaviest), else the heaviest of the same
 * class, directly reached first. */
static uint32_t climb_for_partner(const struct dtree *a, uint32_t x, const struct dtree *b,
                                  const struct cand *cs, unsigned n)
{
    struct climbed cl[8 * CLIMB_LEVELS];
    unsigned nc = 0;
    if (a->part[x])
        return DIFF_NONE;
    for (unsigned i = 0; i < n; i++) {
        uint32_t y = cs[i].b;
        int passed = 0;
        for (int level = 0; level < CLIMB_LEVELS && y != DIFF_NONE && y != 0; level++) {
            if (b->partner[y] != DIFF_NONE || b->part[y])
                break;
            climbed_add(cl, &nc, y, cs[i].weight, passed == 0);
            if (!b->wrapper[y] && ++passed > 1)
                break;
            y = b->parent[y];
        }
    }
    uint32_t by_op = DIFF_NONE, by_class = DIFF_NONE, w_op = 0, w_class = 0;
    int best_fit = -1, class_direct = -1;
    for (unsigned i = 0; i < nc; i++) {
        uint32_t y = cl[i].b, w = cl[i].weight;
        if (same_op(a, x, b, y)) {
            int f = fit(a, x, b, &cl[i]);
            if (share_ok(a, x, b, y, w) &&
                (f > best_fit || (f == best_fit && w > w_op)))
                by_op = y, w_op = w, best_fit = f;
        } else if (share_ok(a, x, b, y, w) && same_class(a, x, b, y) &&
                   ((int)cl[i].direct > class_direct ||
                    ((int)cl[i].direct == class_direct && w > w_class))) {
            by_class = y, w_class = w, class_direct = cl[i].direct;
        }
    }
    return by_op != DIFF_NONE ? by_op : by_class;
}

static void sort_cands(struct cand *cs, unsigned n)
{
    for (unsigned i = 1; i < n; i++)
        for (unsigned j = i; j > 0 && cs[j].weight > cs[j - 1].weight; j--) {
            struct cand t = cs[j];
            cs[j] = cs[j - 1];
            cs[j - 1] = t;
        }
}

static bool match_bottom_up(struct dtree *a, struct dtree *b)
{
    struct cand *hints = calloc((size_t)a->n * HINTS, sizeof *hints);
    if (!hints)
        return false;
    for (uint32_t x = a->n; x-- > 1;) {
        if (a->partner[x] != DIFF_NONE)
            continue;
        struct cand cs[8];
        unsigned n = 0;
        for (uint32_t ch = a->first_child[x]; ch != DIFF_NONE; ch = a->next_sibling[ch]) {
            if (a->partner[ch] != DIFF_NONE) {
                cand_add(cs, &n, 8, b->parent[a->partner[ch]],
                         a->nwdesc[ch] + !a->wrapper[ch]);
                continue;
            }
            for (int h = 0; h < HINTS; h++)
                if (hints[(size_t)ch * HINTS + h].weight)
                    cand_add(cs, &n, 8, hints[(size_t)ch * HINTS + h].b,
                             hints[(size_t)ch * HINTS + h].weight);
        }
        sort_cands(cs, n);
        uint32_t y = climb_for_partner(a, x, b, cs, n);
        if (y != DIFF_NONE) {
            a->partner[x] = y;
            b->partner[y] = x;
            continue;
        }
        for (unsigned h = 0; h < n && h < HINTS; h++)
            hints[(size_t)x * HINTS + h] = cs[h];
    }
    free(hints);
    return true;
}

/* ---- 4. top-down ---------------------------------------------------------------------- */

/* The unmatched children of i, looking through unmatched wrappers (to a few levels). */
static size_t open_children(const struct dtree *t, uint32_t i, uint32_t *out, size_t cap)
{
    size_t n = 0;
    uint32_t stack[16];
    int sp = 0;
    stack[sp++] = t->first_child[i];
    while (sp > 0 && n < cap) {
        uint32_t ch = stack[--sp];
        if (ch == DIFF_NONE)
            continue;
        if (t->next_sibling[ch] != DIFF_NONE && sp < 16)
            stack[sp++] = t->next_sibling[ch];
        if (t->partner[ch] != DIFF_NONE)
            continue;
        out[n++] = ch;
        if (t->wrapper[ch] && sp < 16)
            stack[sp++] = t->first_child[ch];
    }
    return n;
}

static bool try_pair(struct dtree *a, uint32_t x, struct dtree *b, uint32_t y, int pass)
{
    if (a->partner[x] != DIFF_NONE || b->partner[y] != DIFF_NONE ||
        (a->part[x] != NULL) != (b->part[y] != NULL))
        return false;
    if (pass == 0 ? !same_op(a, x, b, y) : !same_class(a, x, b, y))
        return false;
    a->partner[x] = y;
    b->partner[y] = x;
    return true;
}

/* Is all of i's subtree unmatched? */
static bool range_free(const struct dtree *t, uint32_t i)
{
    for (uint32_t k = 0; k <= t->size[i]; k++)
        if (t->partner[i + k] != DIFF_NONE)
            return false;
    return true;
}

static bool try_identical(struct dtree *a, uint32_t x, struct dtree *b, uint32_t y)
{
    if (a->tree_hash[x] != b->tree_hash[y] || a->size[x] != b->size[y] ||
        a->partner[x] != DIFF_NONE || b->partner[y] != DIFF_NONE || !range_free(a, x) ||
        !range_free(b, y))
        return false;
    match_range(a, b, x, y);
    return true;
}

/* Pairs from two lists of open children: identical subtrees first, then by operator, then
 * by class. */
static void pair_lists(struct dtree *a, const uint32_t *ca, size_t na, struct dtree *b,
                       const uint32_t *cb, size_t nb)
{
    for (size_t i = 0; i < na; i++)
        for (size_t j = 0; j < nb && !try_identical(a, ca[i], b, cb[j]); j++)
            ;
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < na; i++)
            for (size_t j = 0; j < nb && !try_pair(a, ca[i], b, cb[j], pass); j++)
                ;
}

/* Do some open children of x and y share an operator?  (Looks at the first eight.) */
static bool children_agree(const struct dtree *a, uint32_t x, const struct dtree *b, uint32_t y)
{
    uint32_t ca[8], cb[8];
    size_t na = open_children(a, x, ca, 8), nb = open_children(b, y, cb, 8);
    for (size_t i = 0; i < na; i++)
        for (size_t j = 0; j < nb; j++)
            if (!a->wrapper[ca[i]] && same_op(a, ca[i], b, cb[j]))
                return true;
    return false;
}

struct skip_pair {
    uint32_t x, y;
    uint32_t via_a, via_b;   /* the open child x or y was found under, DIFF_NONE if none */
    bool agree;
};

#define SKIP_PAIRS 64

static void skip_candidate(struct skip_pair *sp, size_t *n, const struct dtree *a, uint32_t x,
                           const struct dtree *b, uint32_t y, uint32_t via_a, uint32_t via_b)
{
    if (*n < SKIP_PAIRS && a->partner[x] == DIFF_NONE && b->partner[y] == DIFF_NONE &&
        !a->wrapper[x] && same_op(a, x, b, y))
        sp[(*n)++] = (struct skip_pair){x, y, via_a, via_b, children_agree(a, x, b, y)};
}

/* A pair stepping over via_a (or via_b) says that node was lost (or gained): it may not be
 * paired itself afterwards, nor may a pair step over a node that is paired. */
static bool skip_allowed(const struct dtree *a, const struct dtree *b, const struct skip_pair *p,
                         const uint32_t *lost, size_t n_lost)
{
    if ((p->via_a != DIFF_NONE && a->partner[p->via_a] != DIFF_NONE) ||
        (p->via_b != DIFF_NONE && b->partner[p->via_b] != DIFF_NONE))
        return false;
    for (size_t k = 0; k < n_lost; k++)
        if ((lost[k] & 1u ? p->y : p->x) == lost[k] >> 1)
            return false;
    return true;
}

/* Children still open after pairing: a node the other side lost or gained may stand
 * between (Gluten's extra Project before a partial aggregate), so an open child may pair
 * with the other side's grandchildren under an open child.  Which of the two is the lost
 * one is told by the level below: pairs whose children agree too go first. */
static void pair_skipping_one(struct dtree *a, uint32_t *ca, size_t na, struct dtree *b,
                              uint32_t *cb, size_t nb, uint32_t *tmp)
{
    struct skip_pair sp[SKIP_PAIRS];
    size_t n = 0;
    for (size_t j = 0; j < nb; j++) {
        if (b->partner[cb[j]] != DIFF_NONE)
            continue;
        size_t k = open_children(b, cb[j], tmp, CHILD_WINDOW);
        for (size_t g = 0; g < k; g++)
            for (size_t i = 0; i < na; i++)
                skip_candidate(sp, &n, a, ca[i], b, tmp[g], DIFF_NONE, cb[j]);
    }
    for (size_t i = 0; i < na; i++) {
        if (a->partner[ca[i]] != DIFF_NONE)
            continue;
        size_t k = open_children(a, ca[i], tmp, CHILD_WINDOW);
        for (size_t g = 0; g < k; g++)
            for (size_t j = 0; j < nb; j++)
                skip_candidate(sp, &n, a, tmp[g], b, cb[j], ca[i], DIFF_NONE);
    }
    uint32_t lost[SKIP_PAIRS]; /* index << 1 | side (1: B) of nodes stepped over */
    size_t n_lost = 0;
    for (int agree = 1; agree >= 0; agree--) {
        for (size_t p = 0; p < n; p++) {
            if (sp[p].agree != (agree == 1) || !skip_allowed(a, b, &sp[p], lost, n_lost) ||
                !try_pair(a, sp[p].x, b, sp[p].y, 0))
                continue;
            if (sp[p].via_a != DIFF_NONE)
                lost[n_lost++] = sp[p].via_a << 1;
            else
                lost[n_lost++] = sp[p].via_b << 1 | 1u;
        }
    }
}

/* Identical children of a pair, in order: each of x's looks a few places ahead of where
 * the last one was found, so a Union of thousands pairs its look-alike children in place,
 * in one walk. */
static void pair_identical_children(struct dtree *a, uint32_t x, struct dtree *b, uint32_t y)
{
    uint32_t at = b->first_child[y];
    for (uint32_t ch = a->first_child[x]; ch != DIFF_NONE && at != DIFF_NONE;
         ch = a->next_sibling[ch]) {
        while (at != DIFF_NONE && b->partner[at] != DIFF_NONE)
            at = b->next_sibling[at];
        uint32_t look = at;
        for (int k = 0; k < 8 && look != DIFF_NONE; k++, look = b->next_sibling[look]) {
            if (try_identical(a, ch, b, look)) {
                at = b->next_sibling[look];
                break;
            }
        }
    }
}

static void match_children(struct dtree *a, struct dtree *b, uint32_t x, uint32_t *ca,
                           uint32_t *cb, uint32_t *tmp)
{
    pair_identical_children(a, x, b, a->partner[x]);
    size_t na = open_children(a, x, ca, CHILD_WINDOW);
    size_t nb = open_children(b, a->partner[x], cb, CHILD_WINDOW);
    if (!na || !nb)
        return;
    pair_lists(a, ca, na, b, cb, nb);
    pair_skipping_one(a, ca, na, b, cb, nb, tmp);
}

static void match_top_down(struct dtree *a, struct dtree *b)
{
    uint32_t ca[CHILD_WINDOW], cb[CHILD_WINDOW], tmp[CHILD_WINDOW];
    for (uint32_t x = 0; x < a->n; x++)
        if (a->partner[x] != DIFF_NONE && a->first_child[x] != DIFF_NONE)
            match_children(a, b, x, ca, cb, tmp);
}

/* ---- 5. same content near the same place ----------------------------------------------- */

#define NEAR_LEVELS 4

/* Is u among the first NEAR_LEVELS ancestors of v (or v itself), or v among u's? */
static bool near_in_b(const struct dtree *b, uint32_t u, uint32_t v)
{
    uint32_t p = v, q = u;
    for (int k = 0; k <= NEAR_LEVELS; k++) {
        if (p == u || q == v)
            return true;
        p = p ? b->parent[p] : 0;
        q = q ? b->parent[q] : 0;
    }
    return false;
}

/* The nearest matched ancestor of i, climbing at most a few levels (DIFF_NONE beyond). */
static uint32_t matched_above(const struct dtree *t, uint32_t i)
{
    for (int k = 0; k < 2 * NEAR_LEVELS && i; k++) {
        i = t->parent[i];
        if (t->partner[i] != DIFF_NONE)
            return i;
    }
    return i == 0 ? 0 : DIFF_NONE;
}

/* What is left unmatched: a node with exactly the content of an unmatched node of the
 * same operator whose matched surroundings are near its own (a Join the optimizer moved
 * below a Filter it pushed down, behind nodes the analyzed plan lost). */
static bool match_same_content(struct dtree *a, struct dtree *b)
{
    size_t cap = 16;
    while (cap < (size_t)b->n * 2)
        cap *= 2;
    struct bucket *tab = malloc(cap * sizeof *tab);
    uint32_t *chain = malloc((size_t)b->n * sizeof *chain);
    if (!tab || !chain) {
        free(tab);
        free(chain);
        return false;
    }
    for (size_t i = 0; i < cap; i++)
        tab[i] = (struct bucket){0, DIFF_NONE, false, 0, 0};
    for (uint32_t y = b->n; y-- > 1;) {
        if (b->partner[y] != DIFF_NONE || b->wrapper[y] || b->part[y])
            continue;
        struct bucket *bk = bucket_find(tab, cap, b->hash[y]);
        chain[y] = bk->head;
        *bk = (struct bucket){b->hash[y], y, true, 0, 0};
    }
    for (uint32_t x = 1; x < a->n; x++) {
        if (a->partner[x] != DIFF_NONE || a->wrapper[x] || a->part[x])
            continue;
        uint32_t ma = matched_above(a, x);
        struct bucket *bk = bucket_find(tab, cap, a->hash[x]);
        if (ma == DIFF_NONE || !bk->used)
            continue;
        int seen = 0;
        for (uint32_t y = bk->head; y != DIFF_NONE && seen < SCAN_CANDIDATES; y = chain[y], seen++) {
            uint32_t mb = matched_above(b, y);
            if (b->partner[y] != DIFF_NONE || mb == DIFF_NONE || !same_op(a, x, b, y) ||
                !near_in_b(b, a->partner[ma], mb))
                continue;
            a->partner[x] = y;
            b->partner[y] = x;
            break;
        }
    }
    free(tab);
    free(chain);
    return true;
}

/* ---- the whole comparison ------------------------------------------------------------- */

static void ctx_free(struct diff_ctx *c)
{
    dtree_free(&c->a);
    dtree_free(&c->b);
    free(c->scratch);
    free(c->fa.v);
    free(c->fb.v);
}

/* One side flattened and hashed.  work holds the normalisation buffers: its own for a side
 * built on a thread.  *ids gets the side's id map (the caller frees it). */
static bool build_side(struct diff_ctx *work, struct dtree *t, const struct diff_side *side,
                       bool headings, struct diff_idmap **ids)
{
    if (!dtree_build(t, side, headings))
        return false;
    *ids = diff_idmap_new();
    if (*ids && work->opaque_ids)
        diff_idmap_opaque(*ids);
    return *ids && hash_nodes(work, t, *ids);
}

struct side_job {
    struct diff_ctx work;          /* norm, opaque_ids and buffers of its own */
    struct dtree *t;
    const struct diff_side *side;
    bool headings, ok;
    struct diff_idmap *ids;
};

static void *side_job_run(void *arg)
{
    struct side_job *j = arg;
    j->ok = build_side(&j->work, j->t, j->side, j->headings, &j->ids);
    return NULL;
}

/* Both sides, B on a second thread when one can be had: they share nothing. */
static bool build_sides(struct diff_ctx *c, const struct diff_side *sa,
                        const struct diff_side *sb, bool headings)
{
    struct side_job job;
    memset(&job, 0, sizeof job);
    job.work.norm = c->norm;
    job.work.opaque_ids = c->opaque_ids;
    job.t = &c->b;
    job.side = sb;
    job.headings = headings;
    pthread_t thread;
    bool threaded = thread_start_quiet(&thread, side_job_run, &job);
    bool ok = build_side(c, &c->a, sa, headings, &c->ids_a);
    if (threaded)
        pthread_join(thread, NULL);
    else
        side_job_run(&job);
    c->ids_b = job.ids;
    free(job.work.scratch);
    free(job.work.fa.v);
    return ok && job.ok;
}

/* Does the side print ids as "#x" (golden files normalise them)?  Then no id can be told
 * from another on that side, and both sides compare ids by name alone.  Looks at the first
 * nodes only: a file is normalised throughout or not at all. */
static bool side_has_opaque_ids(const struct diff_side *s)
{
    unsigned looked = 0;
    for (size_t p = 0; p < s->n_parts; p++) {
        const struct plan_node *r = s->parts[p].first_root;
        if (!r)
            continue;
        const struct plan_section *sec = r->section;
        for (uint32_t k = 0; k < sec->n_nodes && looked < 256; k++, looked++) {
            const struct plan_node *n = plan_section_node(sec, k);
            struct slice t =
                plan_node_details_text(n).len ? plan_node_details_text(n) : plan_node_text(n);
            for (size_t i = 1; i + 1 < t.len; i++)
                if (t.ptr[i] == '#' && (t.ptr[i + 1] == 'x' || t.ptr[i + 1] == 'X') &&
                    (i + 2 == t.len || !isalnum((unsigned char)t.ptr[i + 2])) &&
                    isalnum((unsigned char)t.ptr[i - 1]))
                    return true;
        }
    }
    return false;
}

enum sp_status diff_sides(const struct diff_side *sa, const struct diff_side *sb, unsigned norm,
                          struct diff_result **out, struct diag *err)
{
    *out = NULL;
    struct diff_ctx c;
    memset(&c, 0, sizeof c);
    c.norm = norm;
    bool headings = sa->n_parts > 1 || sb->n_parts > 1;
    c.opaque_ids = side_has_opaque_ids(sa) || side_has_opaque_ids(sb);
    bool ok = build_sides(&c, sa, sb, headings);
    struct ident id;
    memset(&id, 0, sizeof id);
    if (ok) {
        c.a.partner[0] = 0;
        c.b.partner[0] = 0;
        ok = ident_init(&id, &c.a, &c.b);
    }
    if (ok) {
        ident_round(&id, &c.a, &c.b, true);
        ok = match_bottom_up(&c.a, &c.b);
    }
    if (ok) {
        match_top_down(&c.a, &c.b);
        ident_round(&id, &c.a, &c.b, false);
        ok = match_bottom_up(&c.a, &c.b);
    }
    ident_free(&id);
    if (ok) {
        match_top_down(&c.a, &c.b);
        ok = match_same_content(&c.a, &c.b);
    }
    if (ok) {
        match_top_down(&c.a, &c.b);
        ok = diff_merge(&c, out);
    }
    diff_idmap_free(c.ids_a);
    diff_idmap_free(c.ids_b);
    ctx_free(&c);
    if (!ok) {
        diag_set(err, 0, "out of memory");
        return SP_ERR_NOMEM;
    }
    return SP_OK;
}
