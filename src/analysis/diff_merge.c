/* diff_merge: from the matching to the result — each pair classified, the merged tree built
 * in B's shape with A's removed nodes put back where they stood, and the summary counted.
 *
 * A matched node is moved when the nearest matched ancestors of its two sides are not a
 * pair: unmatched nodes between (an added query stage, a removed Filter) do not count, so a
 * wrapper AQE inserted is added without moving what it wraps.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff_impl.h"
#include "sparkplan/nodeinfo.h"
#include "sparkplan/opclass.h"

#define ADOPT_CLIMB 16

/* ---- classification ------------------------------------------------------------------- */

static uint32_t *nearest_matched_ancestors(const struct dtree *t)
{
    uint32_t *nma = malloc((size_t)t->n * sizeof *nma);
    if (!nma)
        return NULL;
    nma[0] = 0;
    for (uint32_t i = 1; i < t->n; i++) {
        uint32_t p = t->parent[i];
        nma[i] = t->partner[p] != DIFF_NONE ? p : nma[p];
    }
    return nma;
}

static bool slice_same(struct slice x, struct slice y)
{
    return x.len == y.len && (x.len == 0 || memcmp(x.ptr, y.ptr, x.len) == 0);
}

/* The fields of a pair that differ, into the result's arena. */
static bool pair_fields(struct diff_ctx *c, struct diff_result *r, struct diff_entry *e)
{
    if (!diff_node_fields(c, e->a, c->ids_a, &c->fa) ||
        !diff_node_fields(c, e->b, c->ids_b, &c->fb))
        return false;
    size_t na = c->fa.n, nb = c->fb.n;
    struct diff_field *out = arena_alloc(&r->arena, (na + nb + 1) * sizeof *out);
    bool *used = calloc(nb + 1, sizeof *used);
    if (!out || !used) {
        free(used);
        return false;
    }
    uint32_t n = 0;
    for (size_t i = 0; i < na; i++) {
        const struct nfield *fa = &c->fa.v[i];
        size_t j = 0;
        while (j < nb && (used[j] || !slice_same(c->fb.v[j].key, fa->key)))
            j++;
        if (j < nb && nb <= 256) {
            used[j] = true;
            if (c->fb.v[j].norm != fa->norm)
                out[n++] = (struct diff_field){fa->key, fa->value, c->fb.v[j].value, true, true};
        } else {
            out[n++] = (struct diff_field){fa->key, fa->value, {0}, true, false};
        }
    }
    for (size_t j = 0; j < nb; j++)
        if (!used[j])
            out[n++] = (struct diff_field){c->fb.v[j].key, {0}, c->fb.v[j].value, false, true};
    free(used);
    if (!(c->norm & DIFF_NORM_CODEGEN) && e->a->stage != e->b->stage) {
        char *sa = arena_printf(&r->arena, "%d", e->a->stage);
        char *sb = arena_printf(&r->arena, "%d", e->b->stage);
        if (!sa || !sb)
            return false;
        out[n++] = (struct diff_field){slice_cstr("codegen stage"), slice_cstr(sa),
                                       slice_cstr(sb), e->a->stage >= 0, e->b->stage >= 0};
    }
    e->fields = out;
    e->n_fields = n;
    return true;
}

static enum diff_change classify(const struct diff_ctx *c, const uint32_t *nma_a,
                                 const uint32_t *nma_b, uint32_t x, uint32_t y)
{
    const struct dtree *a = &c->a, *b = &c->b;
    if (!slice_same(a->op[x], b->op[y]))
        return DIFF_REPLACED;
    if (a->partner[nma_a[x]] != nma_b[y])
        return DIFF_MOVED;
    return a->hash[x] == b->hash[y] ? DIFF_SAME : DIFF_CHANGED;
}

/* ---- the merged tree ------------------------------------------------------------------ */

struct mtree {
    uint32_t *parent, *first, *last, *next, *prev;
    uint32_t *a, *b;   /* side indexes, DIFF_NONE when absent */
    uint32_t n;
};

static void mt_unlink(struct mtree *m, uint32_t x)
{
    uint32_t p = m->parent[x];
    if (m->prev[x] != DIFF_NONE)
        m->next[m->prev[x]] = m->next[x];
    else
        m->first[p] = m->next[x];
    if (m->next[x] != DIFF_NONE)
        m->prev[m->next[x]] = m->prev[x];
    else
        m->last[p] = m->prev[x];
    m->parent[x] = m->next[x] = m->prev[x] = DIFF_NONE;
}

static void mt_append(struct mtree *m, uint32_t p, uint32_t x)
{
    m->parent[x] = p;
    m->next[x] = DIFF_NONE;
    m->prev[x] = m->last[p];
    if (m->last[p] != DIFF_NONE)
        m->next[m->last[p]] = x;
    else
        m->first[p] = x;
    m->last[p] = x;
}

static void mt_insert_before(struct mtree *m, uint32_t at, uint32_t x)
{
    uint32_t p = m->parent[at];
    m->parent[x] = p;
    m->next[x] = at;
    m->prev[x] = m->prev[at];
    if (m->prev[at] != DIFF_NONE)
        m->next[m->prev[at]] = x;
    else
        m->first[p] = x;
    m->prev[at] = x;
}

static bool mt_alloc(struct mtree *m, size_t cap)
{
    uint32_t **arrays[] = {&m->parent, &m->first, &m->last, &m->next, &m->prev, &m->a, &m->b};
    bool ok = true;
    for (size_t i = 0; i < sizeof arrays / sizeof *arrays; i++) {
        *arrays[i] = malloc(cap * sizeof **arrays[i]);
        if (*arrays[i])
            memset(*arrays[i], 0xff, cap * sizeof **arrays[i]);
        ok = ok && *arrays[i];
    }
    return ok;
}

static void mt_free(struct mtree *m)
{
    free(m->parent);
    free(m->first);
    free(m->last);
    free(m->next);
    free(m->prev);
    free(m->a);
    free(m->b);
}

/* The merged node of A's x: its partner's (B indexes are merged indexes) or its own. */
static uint32_t merged_of_a(const struct dtree *a, const uint32_t *ma, uint32_t x)
{
    return a->partner[x] != DIFF_NONE ? a->partner[x] : ma[x];
}

/* A's removed node r (A index j, put under mp) takes back the merged nodes of its matched
 * children that sit under anchor, the partner of j's nearest matched ancestor (through
 * added nodes), so a removed Filter shows above what it filtered and a removed wrapper
 * chain above what it wrapped. */
static void adopt_children(struct mtree *m, const struct dtree *a, const struct dtree *b,
                           uint32_t j, uint32_t r, uint32_t mp, uint32_t anchor)
{
    bool placed = false;
    for (uint32_t ch = a->first_child[j]; ch != DIFF_NONE; ch = a->next_sibling[ch]) {
        if (a->partner[ch] == DIFF_NONE)
            continue;
        uint32_t x = a->partner[ch];
        for (int k = 0; k < ADOPT_CLIMB && m->parent[x] != anchor && m->parent[x] != DIFF_NONE &&
                        m->parent[x] < b->n && b->partner[m->parent[x]] == DIFF_NONE;
             k++)
            x = m->parent[x];
        if (m->parent[x] != anchor)
            continue;
        if (!placed && mp == anchor)
            mt_insert_before(m, x, r);
        else if (!placed)
            mt_append(m, mp, r);
        placed = true;
        mt_unlink(m, x);
        mt_append(m, r, x);
    }
    if (!placed)
        mt_append(m, mp, r);
}

static bool build_merged(struct mtree *m, const struct dtree *a, const struct dtree *b,
                         const uint32_t *nma_a)
{
    uint32_t *ma = malloc((size_t)a->n * sizeof *ma);
    if (!ma || !mt_alloc(m, (size_t)a->n + b->n)) {
        free(ma);
        return false;
    }
    m->n = b->n;
    m->b[0] = 0;
    m->a[0] = 0;
    for (uint32_t i = 1; i < b->n; i++) {
        m->b[i] = i;
        m->a[i] = b->partner[i];
        mt_append(m, b->parent[i], i);
    }
    for (uint32_t j = 1; j < a->n; j++) {
        ma[j] = DIFF_NONE;
        if (a->partner[j] != DIFF_NONE)
            continue;
        uint32_t r = m->n++;
        ma[j] = r;
        m->a[r] = j;
        adopt_children(m, a, b, j, r, merged_of_a(a, ma, a->parent[j]), a->partner[nma_a[j]]);
    }
    free(ma);
    return true;
}

/* ---- the summary ---------------------------------------------------------------------- */

#define TALLY_SLOTS 1024

struct tally {
    struct diff_op_count slot[TALLY_SLOTS];
    uint32_t order[TALLY_SLOTS];   /* slots in order of first use */
    unsigned used;
};

static void copy_name(char *dst, struct slice s)
{
    size_t n = s.len < 47 ? s.len : 47;
    memcpy(dst, s.ptr, n);
    dst[n] = '\0';
}

static void tally_add(struct tally *t, struct slice x, struct slice y)
{
    uint64_t h = diff_hash_slice(x) * 31 + diff_hash_slice(y);
    char a[48], b[48];
    copy_name(a, x);
    copy_name(b, y);
    for (size_t probe = 0; probe < TALLY_SLOTS; probe++) {
        struct diff_op_count *s = &t->slot[(h + probe) & (TALLY_SLOTS - 1)];
        if (s->count == 0) {
            if (t->used * 4 >= TALLY_SLOTS * 3)
                return;
            memcpy(s->a, a, sizeof a);
            memcpy(s->b, b, sizeof b);
            t->order[t->used++] = (uint32_t)((h + probe) & (TALLY_SLOTS - 1));
        } else if (strcmp(s->a, a) || strcmp(s->b, b)) {
            continue;
        }
        s->count++;
        return;
    }
}

/* The most frequent entries, ties in order of first appearance. */
static unsigned tally_top(const struct tally *t, struct diff_op_count *out)
{
    unsigned n = 0;
    for (unsigned k = 0; k < t->used; k++) {
        const struct diff_op_count *s = &t->slot[t->order[k]];
        unsigned at = n < DIFF_SUMMARY_OPS ? n++ : DIFF_SUMMARY_OPS;
        if (at == DIFF_SUMMARY_OPS) {
            if (out[DIFF_SUMMARY_OPS - 1].count >= s->count)
                continue;
            at = DIFF_SUMMARY_OPS - 1;
        }
        while (at > 0 && out[at - 1].count < s->count) {
            out[at] = out[at - 1];
            at--;
        }
        out[at] = *s;
    }
    return n;
}

/* The name a summary counts a node by: its operator, or an AQE label's own words. */
static struct slice summary_name(const struct plan_node *n)
{
    if (!node_is_label(n))
        return op_word(n);
    struct slice t = slice_trim(plan_node_text(n));
    while (t.len && (t.ptr[0] == '=' || t.ptr[0] == ' '))
        t.ptr++, t.len--;
    while (t.len && (t.ptr[t.len - 1] == '=' || t.ptr[t.len - 1] == ' '))
        t.len--;
    return t;
}

static void count_entry(struct tally *tl, const struct diff_entry *e)
{
    struct slice none = {"", 0};
    if (e->heading)
        return;
    if (e->change == DIFF_REPLACED)
        tally_add(&tl[0], summary_name(e->a), summary_name(e->b));
    else if (e->change == DIFF_ADDED)
        tally_add(&tl[1], summary_name(e->b), none);
    else if (e->change == DIFF_REMOVED)
        tally_add(&tl[2], summary_name(e->a), none);
}

/* ---- the result ----------------------------------------------------------------------- */

static void fill_entry(struct diff_ctx *c, const uint32_t *nma_a, const uint32_t *nma_b,
                       const struct mtree *m, uint32_t x, struct diff_entry *e)
{
    uint32_t ia = m->a[x], ib = m->b[x];
    memset(e, 0, sizeof *e);
    if (ia != DIFF_NONE) {
        e->a = c->a.node[ia];
        e->part_a = c->a.part[ia];
    }
    if (ib != DIFF_NONE) {
        e->b = c->b.node[ib];
        e->part_b = c->b.part[ib];
    }
    e->heading = e->part_a || e->part_b;
    if (ia == DIFF_NONE)
        e->change = DIFF_ADDED;
    else if (ib == DIFF_NONE)
        e->change = DIFF_REMOVED;
    else if (e->heading)
        e->change = c->a.hash[ia] == c->b.hash[ib] ? DIFF_SAME : DIFF_CHANGED;
    else
        e->change = classify(c, nma_a, nma_b, ia, ib);
}

static bool walk_merged(struct diff_ctx *c, const struct mtree *m, struct diff_result *r,
                        const uint32_t *nma_a, const uint32_t *nma_b, uint32_t *eparent,
                        uint32_t *path)
{
    size_t k = 0;
    uint32_t depth = 0, x = m->first[0];
    while (x != DIFF_NONE) {
        struct diff_entry *e = &r->entries[k];
        fill_entry(c, nma_a, nma_b, m, x, e);
        e->depth = depth;
        /* path[d]: the entry at depth d on the way down to this one. */
        path[depth] = (uint32_t)k;
        eparent[k] = depth ? path[depth - 1] : DIFF_NONE;
        bool has_pair_diff = e->change == DIFF_CHANGED || e->change == DIFF_REPLACED ||
                             (e->change == DIFF_MOVED && e->a && e->b);
        if (has_pair_diff && !e->heading && !pair_fields(c, r, e))
            return false;
        k++;
        if (m->first[x] != DIFF_NONE) {
            x = m->first[x];
            depth++;
            continue;
        }
        while (x != DIFF_NONE && m->next[x] == DIFF_NONE) {
            x = m->parent[x];
            if (x == 0 || x == DIFF_NONE) {
                x = DIFF_NONE;
                break;
            }
            depth--;
        }
        if (x != DIFF_NONE)
            x = m->next[x];
    }
    r->n = k;
    return true;
}

static void finish_result(struct diff_result *r, const uint32_t *eparent)
{
    struct tally *tl = calloc(3, sizeof *tl);
    for (size_t k = 0; k < r->n; k++)
        r->entries[k].subtree_same = r->entries[k].change == DIFF_SAME;
    for (size_t k = r->n; k-- > 0;) {
        struct diff_entry *e = &r->entries[k];
        r->summary.count[e->change]++;
        if (tl)
            count_entry(tl, e);
        if (eparent[k] != DIFF_NONE) {
            struct diff_entry *p = &r->entries[eparent[k]];
            p->subtree_size += e->subtree_size + 1;
            p->subtree_same = p->subtree_same && e->subtree_same;
        }
    }
    r->equal = r->summary.count[DIFF_SAME] == r->n;
    if (tl) {
        r->summary.n_replaced = tally_top(&tl[0], r->summary.replaced);
        r->summary.n_added = tally_top(&tl[1], r->summary.added);
        r->summary.n_removed = tally_top(&tl[2], r->summary.removed);
    }
    free(tl);
}

bool diff_merge(struct diff_ctx *c, struct diff_result **out)
{
    struct mtree m;
    memset(&m, 0, sizeof m);
    struct diff_result *r = calloc(1, sizeof *r);
    uint32_t *nma_a = nearest_matched_ancestors(&c->a);
    uint32_t *nma_b = nearest_matched_ancestors(&c->b);
    bool ok = r && nma_a && nma_b && build_merged(&m, &c->a, &c->b, nma_a);
    uint32_t *eparent = NULL, *path = NULL;
    if (ok) {
        arena_init(&r->arena);
        r->norm = c->norm;
        r->entries = calloc(m.n ? m.n : 1, sizeof *r->entries);
        eparent = malloc((m.n ? m.n : 1) * sizeof *eparent);
        path = malloc((m.n ? m.n : 1) * sizeof *path);
        ok = r->entries && eparent && path && walk_merged(c, &m, r, nma_a, nma_b, eparent, path);
    }
    if (ok)
        finish_result(r, eparent);
    free(eparent);
    free(path);
    free(nma_a);
    free(nma_b);
    mt_free(&m);
    if (!ok) {
        diff_free(r);
        return false;
    }
    *out = r;
    return true;
}

void diff_free(struct diff_result *r)
{
    if (!r)
        return;
    free(r->entries);
    arena_free(&r->arena);
    free(r);
}

const char *diff_change_name(enum diff_change c)
{
    static const char *const names[] = {"same", "changed", "replaced", "added", "removed",
                                        "moved"};
    return c <= DIFF_MOVED ? names[c] : "?";
}

static void add(char *buf, size_t cap, size_t *len, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void add(char *buf, size_t cap, size_t *len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(buf + *len, cap > *len ? cap - *len : 0, fmt, ap);
    va_end(ap);
    if (w > 0)
        *len = *len + (size_t)w < cap ? *len + (size_t)w : (cap ? cap - 1 : 0);
}

size_t diff_summary_format(const struct diff_summary *s, int utf8, char *buf, size_t cap)
{
    size_t len = 0;
    const char *sep = utf8 ? " \xc2\xb7 " : ", ";
    if (cap)
        buf[0] = '\0';
    for (unsigned i = 0; i < s->n_replaced; i++)
        add(buf, cap, &len, "%s%s%s%s %s%u", len ? sep : "", s->replaced[i].a,
            utf8 ? "\xe2\x86\x92" : "->", s->replaced[i].b, utf8 ? "\xc3\x97" : "x",
            s->replaced[i].count);
    for (unsigned i = 0; i < s->n_removed; i++)
        add(buf, cap, &len, "%s%s%u %s", len ? sep : "", utf8 ? "\xe2\x88\x92" : "-",
            s->removed[i].count, s->removed[i].a);
    for (unsigned i = 0; i < s->n_added; i++)
        add(buf, cap, &len, "%s+%u %s", len ? sep : "", s->added[i].count, s->added[i].a);
    if (s->count[DIFF_CHANGED])
        add(buf, cap, &len, "%s%u changed", len ? sep : "", s->count[DIFF_CHANGED]);
    if (s->count[DIFF_MOVED])
        add(buf, cap, &len, "%s%u moved", len ? sep : "", s->count[DIFF_MOVED]);
    if (!len)
        add(buf, cap, &len, "%s", "no differences");
    return len;
}
