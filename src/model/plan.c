/* plan.c: the plan model, its construction helpers and lookups (see plan.h). */
#include "sparkplan/plan.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sparkplan/grow.h"
#include "sparkplan/lex.h"

#if UINTPTR_MAX == UINT64_MAX
/* The node layout is part of the load cost (see plan.h): keep it from growing unnoticed. */
_Static_assert(sizeof(struct plan_node) == 120, "struct plan_node grew: see plan.h");
#endif

const char *section_kind_name(enum section_kind k)
{
    switch (k) {
    case SECTION_PARSED:
        return "parsed";
    case SECTION_ANALYZED:
        return "analyzed";
    case SECTION_OPTIMIZED:
        return "optimized";
    case SECTION_PHYSICAL:
        return "physical";
    case SECTION_SUBQUERY:
        return "subquery";
    case SECTION_CODEGEN:
        return "codegen";
    }
    return "physical";
}

struct document *document_new(const char *name, char *bytes, size_t len)
{
    struct document *doc = calloc(1, sizeof *doc);
    if (!doc) {
        free(bytes);
        return NULL;
    }
    arena_init(&doc->arena);
    source_init(&doc->src, bytes, len, false);
    doc->name = arena_strdup(&doc->arena, name ? name : "stdin");
    if (!doc->name) {
        document_free(doc);
        return NULL;
    }
    return doc;
}

/* Documents freed so far: plan_node_detail's per-thread split goes stale when it moves. */
static atomic_uint freed_documents;

void document_free(struct document *doc)
{
    if (!doc)
        return;
    atomic_fetch_add_explicit(&freed_documents, 1, memory_order_relaxed);
    plan_order_discard(doc);
    if (doc->all_nodes_owned)
        free(doc->all_nodes);
    arena_free(&doc->arena);
    source_free(&doc->src);
    free(doc);
}

struct plan *document_add_plan(struct document *doc, uint32_t line)
{
    struct plan *p = arena_alloc(&doc->arena, sizeof *p);
    if (!p)
        return NULL;
    p->line = line;
    p->is_final = -1;
    p->source.execution_count = -1;
    p->doc = doc;
    if (doc->last_plan)
        doc->last_plan->next = p;
    else
        doc->first_plan = p;
    doc->last_plan = p;
    doc->n_plans++;
    return p;
}

struct plan_section *plan_add_section(struct plan *p, enum section_kind kind, struct slice title,
                                      uint32_t line)
{
    struct plan_section *s = arena_alloc(&p->doc->arena, sizeof *s);
    if (!s)
        return NULL;
    s->kind = kind;
    s->title = title;
    s->line = line;
    s->plan = p;
    if (p->last_section)
        p->last_section->next = s;
    else
        p->first_section = s;
    p->last_section = s;
    p->n_sections++;
    return s;
}

struct plan_node *plan_node_new(struct plan_section *s)
{
    struct plan_node *n = arena_alloc(&s->plan->doc->arena, sizeof *n);
    if (!n)
        return NULL;
    n->stage = -1;
    n->id = -1;
    n->section = s;
    s->plan->doc->n_nodes_made++;
    return n;
}

void plan_node_append_child_after(struct plan_node *parent, struct plan_node *last,
                                  struct plan_node *child)
{
    child->parent = parent;
    child->next_sibling = NULL;
    if (last)
        last->next_sibling = child;
    else
        parent->first_child = child;
    parent->n_children++;
}

void plan_node_append_child(struct plan_node *parent, struct plan_node *child)
{
    struct plan_node *last = parent->first_child;
    while (last && last->next_sibling) /* bound: the parent's children (small trees only) */
        last = last->next_sibling;
    plan_node_append_child_after(parent, last, child);
}

void plan_section_append_root(struct plan_section *s, struct plan_node *root)
{
    root->parent = NULL;
    root->next_sibling = NULL;
    if (s->last_root)
        s->last_root->next_sibling = root;
    else
        s->first_root = root;
    s->last_root = root;
    s->n_roots++;
}

void document_warn(struct document *doc, uint32_t line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    struct plan_warning *w = arena_alloc(&doc->arena, sizeof *w);
    char *msg = arena_alloc(&doc->arena, (size_t)n + 1);
    if (!w || !msg)
        return;
    va_start(ap, fmt);
    vsnprintf(msg, (size_t)n + 1, fmt, ap);
    va_end(ap);
    w->line = line;
    w->message = msg;
    if (doc->last_warning)
        doc->last_warning->next = w;
    else
        doc->first_warning = w;
    doc->last_warning = w;
    doc->n_warnings++;
}

uint32_t document_original_line(const struct document *doc, uint32_t text_line)
{
    if (!doc->src.line_map || text_line == 0 || text_line > doc->src.n_text_lines)
        return text_line;
    return doc->src.line_map[text_line];
}

/* Pre-order successor inside the node's section, without recursion. */
struct plan_node *plan_node_next_preorder(const struct plan_node *n)
{
    if (n->first_child)
        return n->first_child;
    return plan_node_next_skip_children(n);
}

struct plan_node *plan_node_next_skip_children(const struct plan_node *n)
{
    while (n) {
        if (n->next_sibling)
            return n->next_sibling;
        n = n->parent;
    }
    return NULL;
}

/* Input order: the original line, then the place in doc->src.text (clean-up may split one
 * line into several text lines, and a text line holds at most one node). */
static int compare_nodes(const struct plan_node *x, const struct plan_node *y)
{
    if (x->line != y->line)
        return x->line < y->line ? -1 : 1;
    if (x->text.ptr != y->text.ptr)
        return (uintptr_t)x->text.ptr < (uintptr_t)y->text.ptr ? -1 : 1;
    return (uintptr_t)x < (uintptr_t)y ? -1 : (x > y);
}

/* Every node of the document in finishing order (plan, section, pre-order), with its id: one
 * walk fills it.  all_nodes is copied out of it once, and each section's pre-order array is
 * its stretch of all_nodes (nodes are in input order almost always), so the pointers are
 * stored once.  Growing a pointer array costs far less than extra walks over the nodes
 * (120 bytes each, mostly out of cache) that counting first would take. */
struct finish_buf {
    struct plan_node **v;
    int32_t *ids;       /* v[i]->id, so by_id is filled without reading the nodes again */
    size_t n, cap;
    bool in_arena;      /* v is all_nodes already, sized by n_nodes_made */
};

static bool finish_push(struct finish_buf *b, struct plan_node *n)
{
    if (b->n == b->cap) {
        size_t cap = b->cap ? 2 * b->cap : 4096;
        struct plan_node **v;
        if (b->in_arena) {
            /* More nodes than plan_node_new made (built by hand): grow a copy instead. */
            v = cap > b->cap ? malloc(cap * sizeof *v) : NULL;
            if (v && b->n)
                memcpy(v, b->v, b->n * sizeof *v);
        } else {
            v = cap > b->cap ? realloc(b->v, cap * sizeof *v) : NULL;
        }
        if (!v)
            return false;
        b->in_arena = false;
        b->v = v;
        int32_t *ids = realloc(b->ids, cap * sizeof *ids);
        if (!ids)
            return false;
        b->ids = ids;
        b->cap = cap;
    }
    b->ids[b->n] = n->id;
    b->v[b->n++] = n;
    return true;
}

/* One walk over the section: depth, pre-order index, section and the finishing order; then
 * one reverse pass for subtree sizes.  *sorted accumulates over the document. */
static bool section_finish(struct plan_section *s, struct finish_buf *b,
                           const struct plan_node **last, bool *sorted)
{
    size_t start = b->n;
    for (struct plan_node *n = s->first_root; n; n = plan_node_next_preorder(n)) {
        n->depth = n->parent ? n->parent->depth + 1 : 0;
        n->preorder = (uint32_t)(b->n - start);
        n->section = s;
        n->subtree_size = 0;
        if (*last && compare_nodes(*last, n) > 0)
            *sorted = false;
        *last = n;
        if (!finish_push(b, n))
            return false;
    }
    uint32_t count = (uint32_t)(b->n - start);
    s->n_nodes = count;
    /* Reverse pre-order visits children before parents: one pass sums subtree sizes. */
    for (uint32_t k = count; k-- > 0;) {
        struct plan_node *n = b->v[start + k];
        if (n->parent)
            n->parent->subtree_size += n->subtree_size + 1;
    }
    return true;
}

/* by_id of every plan from the finishing order and its ids. */
static bool set_by_id(struct document *doc, const struct finish_buf *b)
{
    size_t off = 0, total = b->n;
    if (!b->ids)
        return true; /* no node has an id */
    for (struct plan *p = doc->first_plan; p; p = p->next) {
        size_t plan_start = off;
        for (struct plan_section *s = p->first_section; s; s = s->next)
            off += s->n_nodes;
        int32_t max_id = -1;
        /* Bound: the plan's stretch of the finishing order. */
        for (size_t i = plan_start; i < off; i++)
            if (b->ids[i] > max_id)
                max_id = b->ids[i];
        /* Ids come from the input: cap the table so "(999999999)" cannot eat memory. */
        if (max_id < 0 || (size_t)max_id >= 4 * (total + 16))
            continue;
        p->by_id_len = (uint32_t)max_id + 1;
        p->by_id = arena_alloc(&doc->arena, p->by_id_len * sizeof *p->by_id);
        if (!p->by_id)
            return false;
        /* Bound: the plan's stretch again; the first node printed wins. */
        for (size_t i = plan_start; i < off; i++)
            if (b->ids[i] >= 0 && !p->by_id[b->ids[i]])
                p->by_id[b->ids[i]] = b->v[i];
    }
    return true;
}

static int compare_node_line(const void *a, const void *b)
{
    return compare_nodes(*(const struct plan_node *const *)a, *(const struct plan_node *const *)b);
}

/* Pre-order arrays: stretches of all_nodes when it is in finishing order, copies otherwise
 * (all_nodes is then sorted by line). */
static bool set_preorder(struct document *doc, const struct finish_buf *b, bool shared)
{
    size_t off = 0;
    for (struct plan *p = doc->first_plan; p; p = p->next)
        for (struct plan_section *s = p->first_section; s; s = s->next) {
            if (shared) {
                s->preorder = doc->all_nodes + off;
            } else {
                s->preorder = arena_alloc(&doc->arena,
                                          (s->n_nodes ? s->n_nodes : 1) * sizeof *s->preorder);
                if (!s->preorder)
                    return false;
                if (s->n_nodes)
                    memcpy(s->preorder, b->v + off, s->n_nodes * sizeof *s->preorder);
            }
            off += s->n_nodes;
        }
    return true;
}

/* ---- the builder's record of node order ------------------------------------------------ */

struct plan_order {
    struct plan_node **nodes;   /* every node kept so far, in the order made (= finishing
                                   order while the record holds) */
    int32_t *ids;               /* nodes[i]->id, read once the node is filled (settle) */
    size_t n, cap;
    size_t settled;             /* nodes[0..settled) have their id read and were compared */
    size_t first_unsorted;      /* first i with nodes[i-1] after nodes[i] in the input, or
                                   SIZE_MAX: all_nodes needs its sort only then */
    struct plan_node **path;    /* the last node made and its ancestors, root first */
    size_t n_path, cap_path;
    struct plan_section *section;  /* the section of the last node made */
    size_t sec_start;           /* its first node's index in nodes */
    size_t plan_mark;           /* the current plan's first node's index */
    size_t dropped;             /* nodes made and then dropped with their plan */
    bool broken;                /* a node went in out of pre-order: the walk decides */
};

static bool order_enabled = true;

void plan_order_enable(bool on)
{
    order_enabled = on;
}

bool plan_order_begin(struct document *doc)
{
    if (!order_enabled)
        return false;
    if (doc->order || doc->n_nodes_made)
        return doc->order != NULL;
    doc->order = calloc(1, sizeof *doc->order);
    if (doc->order)
        doc->order->first_unsorted = SIZE_MAX;
    return doc->order != NULL;
}

void plan_order_discard(struct document *doc)
{
    struct plan_order *o = doc->order;
    if (!o)
        return;
    free(o->nodes);
    free(o->ids);
    free(o->path);
    free(o);
    doc->order = NULL;
}

static int compare_nodes(const struct plan_node *x, const struct plan_node *y);

/* The first id: from here on ids are kept (a plan without "(N)" ids, the simple mode, keeps
 * none: 4 bytes an operator less at the model's peak). */
static bool order_ids_start(struct plan_order *o, size_t upto)
{
    o->ids = malloc(o->cap * sizeof *o->ids);
    if (!o->ids)
        return false;
    for (size_t i = 0; i < upto; i++) /* bound: the nodes before the first id */
        o->ids[i] = -1;
    return true;
}

/* Reads the ids of the nodes made since the last call (filled by now) and compares each
 * with the node before it.  Inline: called once a node, for one node, it costs less than its
 * call did. */
static inline void order_settle(struct plan_order *o)
{
    /* Bound: the nodes made since the last call (one, as the builder calls it). */
    for (size_t i = o->settled; i < o->n; i++) {
        int32_t id = o->nodes[i]->id;
        if (id >= 0 && !o->ids && !order_ids_start(o, i)) {
            o->broken = true;
            return;
        }
        if (o->ids)
            o->ids[i] = id;
        if (i > 0 && o->first_unsorted == SIZE_MAX && compare_nodes(o->nodes[i - 1], o->nodes[i]) > 0)
            o->first_unsorted = i;
    }
    o->settled = o->n;
}

/* The nodes on the path above depth `keep` are complete: `count` nodes of their section
 * were made so far, so each one's subtree is the nodes made after it. */
static void order_close_path(struct plan_order *o, size_t keep)
{
    size_t count = o->n - o->sec_start;
    while (o->n_path > keep) {
        struct plan_node *x = o->path[--o->n_path];
        x->subtree_size = (uint32_t)(count - x->preorder - 1);
    }
}

static void order_end_section(struct plan_order *o)
{
    order_close_path(o, 0);
    if (o->section)
        o->section->n_nodes = (uint32_t)(o->n - o->sec_start);
    o->section = NULL;
}

/* Room for one more node and one more on the path. */
static bool order_reserve(struct plan_order *o)
{
    size_t cap_ids = o->cap;
    return grow_array((void **)&o->nodes, &o->cap, o->n + 1, sizeof *o->nodes) &&
           (!o->ids || grow_array((void **)&o->ids, &cap_ids, o->cap, sizeof *o->ids)) &&
           grow_array((void **)&o->path, &o->cap_path, o->n_path + 1, sizeof *o->path);
}

void plan_order_node(struct document *doc, struct plan_node *n)
{
    struct plan_order *o = doc->order;
    if (!o || o->broken)
        return;
    order_settle(o);
    if (o->broken)
        return;
    if (n->section != o->section) {
        order_end_section(o);
        o->section = n->section;
        o->sec_start = o->n;
    }
    /* Bound: each node leaves the path once. */
    size_t keep = o->n_path;
    while (keep && o->path[keep - 1] != n->parent)
        keep--;
    if (n->parent && !keep) {
        o->broken = true; /* its parent is not on the path: not pre-order */
        return;
    }
    order_close_path(o, keep);
    if ((o->n == o->cap || o->n_path == o->cap_path) && !order_reserve(o)) {
        o->broken = true;
        return;
    }
    n->depth = n->parent ? n->parent->depth + 1 : 0;
    n->preorder = (uint32_t)(o->n - o->sec_start);
    n->subtree_size = 0;
    o->path[o->n_path++] = n;
    o->nodes[o->n++] = n;
}

void plan_order_plan_begin(struct document *doc)
{
    struct plan_order *o = doc->order;
    if (o && !o->broken) {
        order_end_section(o);
        o->plan_mark = o->n;
    }
}

void plan_order_plan_dropped(struct document *doc)
{
    struct plan_order *o = doc->order;
    if (!o || o->broken)
        return;
    o->n_path = 0;
    o->section = NULL;
    o->dropped += o->n - o->plan_mark;
    o->n = o->plan_mark;
    if (o->settled > o->n)
        o->settled = o->n;
    if (o->first_unsorted != SIZE_MAX && o->first_unsorted >= o->n)
        o->first_unsorted = SIZE_MAX;
}

void plan_order_id_changed(struct document *doc, const struct plan_node *n)
{
    struct plan_order *o = doc->order;
    if (!o || o->broken || n->section != o->section)
        return;
    size_t i = o->sec_start + n->preorder;
    if (i < o->settled && o->nodes[i] == n && o->ids)
        o->ids[i] = n->id;
}

/* document_finish from the record: what the walk would find, without reading the nodes.
 * Returns false when the record cannot answer (the walk then runs). */
static bool finish_from_order(struct document *doc, bool *ok)
{
    struct plan_order *o = doc->order;
    *ok = false;
    if (!o || o->broken || o->n + o->dropped != doc->n_nodes_made)
        return false;
    order_settle(o);
    if (o->broken)
        return false;
    order_end_section(o);
    size_t total = o->n;
    if (total) {
        /* The record's array becomes all_nodes: no second copy of it at the model's peak. */
        doc->all_nodes = o->nodes;
        doc->all_nodes_owned = true;
        o->nodes = NULL;
    } else {
        doc->all_nodes = arena_alloc(&doc->arena, sizeof *doc->all_nodes);
        if (!doc->all_nodes)
            return true;
    }
    doc->n_all_nodes = total;
    bool sorted = o->first_unsorted == SIZE_MAX;
    struct finish_buf b = {doc->all_nodes, o->ids, total, total, false};
    if (!set_preorder(doc, &b, sorted) || !set_by_id(doc, &b))
        return true;
    if (!sorted)
        qsort(doc->all_nodes, doc->n_all_nodes, sizeof *doc->all_nodes, compare_node_line);
    *ok = true;
    return true;
}

bool document_finish(struct document *doc)
{
    bool fast_ok;
    if (finish_from_order(doc, &fast_ok)) {
        plan_order_discard(doc);
        return fast_ok;
    }
    plan_order_discard(doc);
    struct finish_buf b = {NULL, NULL, 0, 0, false};
    bool sorted = true, ok = false;
    if (doc->n_nodes_made) {
        /* The finishing order goes straight into all_nodes (in the arena), at its final
           size: no array grown by doubling and copied out at the model's peak. */
        b.v = arena_alloc(&doc->arena, doc->n_nodes_made * sizeof *b.v);
        b.ids = malloc(doc->n_nodes_made * sizeof *b.ids);
        if (!b.v || !b.ids) {
            free(b.ids);
            return false;
        }
        b.cap = doc->n_nodes_made;
        b.in_arena = true;
    }
    const struct plan_node *last = NULL;
    for (struct plan *p = doc->first_plan; p; p = p->next)
        for (struct plan_section *s = p->first_section; s; s = s->next)
            if (!section_finish(s, &b, &last, &sorted))
                goto done;
    size_t total = b.n;
    if (b.in_arena) {
        doc->all_nodes = b.v;
    } else {
        doc->all_nodes = arena_alloc(&doc->arena, (total ? total : 1) * sizeof *doc->all_nodes);
        if (!doc->all_nodes)
            goto done;
        if (total)
            memcpy(doc->all_nodes, b.v, total * sizeof *doc->all_nodes);
    }
    doc->n_all_nodes = total;
    if (!set_preorder(doc, &b, sorted))
        goto done;
    if (!set_by_id(doc, &b))
        goto done;
    /* Nodes are created in input order almost always (checked during the walk): sort only
     * when they are not (the sort was a tenth of the load time of a 1M-node plan). */
    if (!sorted)
        qsort(doc->all_nodes, doc->n_all_nodes, sizeof *doc->all_nodes, compare_node_line);
    ok = true;
done:
    if (!b.in_arena)
        free(b.v);
    free(b.ids);
    return ok;
}

struct plan_node *plan_node_find_by_id(const struct plan *p, int32_t id)
{
    if (id >= 0 && (uint32_t)id < p->by_id_len && p->by_id[id])
        return p->by_id[id];
    if (id < 0 || p->by_id)
        return NULL;
    /* No table (ids too sparse): linear scan. */
    for (struct plan_section *s = p->first_section; s; s = s->next)
        for (uint32_t i = 0; i < s->n_nodes; i++)
            if (s->preorder[i]->id == id)
                return s->preorder[i];
    return NULL;
}

struct plan_node *document_node_at_line(const struct document *doc, uint32_t line)
{
    size_t lo = 0, hi = doc->n_all_nodes;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (doc->all_nodes[mid]->line <= line)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo ? doc->all_nodes[lo - 1] : NULL;
}

/* ---- details fields, on demand ------------------------------------------------------- */

/* The parser's view of a line inside a details block (parse.c: one_line, block_line).  Only
 * lines the parser fed to the block lie inside details_text: after the header, blank lines,
 * lines with a tree prefix (skipped) and unprefixed lines, each a new field or more of the
 * last field's value. */
enum block_line { BL_BLANK, BL_SKIP, BL_TEXT };

static enum block_line classify_block_line(const struct document *doc, uint32_t lno,
                                           const char *ls, const char *le, const char **rest)
{
    struct lex_prefix pf;
    lex_tree_prefix(ls, (size_t)(le - ls), &pf);
    const struct source *src = &doc->src;
    if (src->line_depth && lno <= src->n_text_lines && src->line_depth[lno] != CLEAN_OWN_PREFIX)
        pf.units = src->line_depth[lno];
    const char *r = ls + pf.len;
    *rest = r;
    while (r < le && (*r == ' ' || *r == '\t' || *r == '\r')) /* bound: the line */
        r++;
    if (r == le && pf.spaces_only)
        return BL_BLANK;
    return pf.units == 0 ? BL_TEXT : BL_SKIP;
}

void plan_details_init(struct plan_details *it, const struct plan_node *n)
{
    memset(it, 0, sizeof *it);
    it->doc = n->section->plan->doc;
    if (!n->n_details || !n->details_text.len)
        return;
    const char *s = n->details_text.ptr, *end = s + n->details_text.len;
    const char *nl = memchr(s, '\n', (size_t)(end - s));
    it->pos = nl ? nl + 1 : end;   /* the header line is not a field */
    it->end = end;
    it->lno = n->details_text_line + 1;
}

bool plan_details_next(struct plan_details *it, struct plan_detail *out)
{
    /* Bound: each line of the block is read once over all calls. */
    while (it->pos && it->pos < it->end) {
        const char *ls = it->pos;
        const char *nl = memchr(ls, '\n', (size_t)(it->end - ls));
        const char *le = nl ? nl : it->end;
        it->pos = nl ? nl + 1 : it->end;
        uint32_t lno = it->lno++;
        if (le > ls && le[-1] == '\r')
            le--;
        const char *rest;
        enum block_line kind = classify_block_line(it->doc, lno, ls, le, &rest);
        if (kind == BL_BLANK) {
            it->blank_before = true;
            continue;
        }
        bool blank_before = it->blank_before;
        it->blank_before = false;
        if (kind == BL_SKIP)
            continue;
        struct slice key, value;
        if (it->n < UINT16_MAX && lex_details_field(rest, (size_t)(le - rest), &key, &value)) {
            it->n++;
            bool had = it->have_next;
            struct plan_detail prev = it->next;
            it->next.key = key;
            it->next.value = value;
            it->next.line = document_original_line(it->doc, lno);
            it->have_next = true;
            if (had) {
                *out = prev;
                return true;
            }
        } else if (it->have_next && !blank_before) {
            /* More of the last field's value: it runs on to this line's end. */
            const char *vs = it->next.value.len ? it->next.value.ptr : rest;
            it->next.value = slice_make(vs, (size_t)(le - vs));
        } else if (it->have_next) {
            /* A non-field after a blank line ends the block in the parser: never inside. */
            it->pos = it->end;
        }
    }
    if (it->have_next) {
        *out = it->next;
        it->have_next = false;
        return true;
    }
    return false;
}

/* The fields of the node asked last, split once and only as far as asked: the analysis
 * asks one node for several keys in a row (a scan for PushedFilters, PartitionFilters,
 * ReadSchema, Output...), and splitting the block again from its first line for each key was
 * a seventh of --summary on a formatted plan.  One per thread (the explorer analyses on a
 * thread of its own).  A node is known by its address, its block and the documents freed so
 * far: memory of a freed document may hold the next one's nodes, so document_free moves
 * freed_documents on and the entry goes stale. */
#define DETAIL_CACHE_FIELDS 32
static _Thread_local struct {
    const struct plan_node *node;
    const char *details;
    size_t details_len;
    unsigned freed;
    uint16_t n_details;       /* the node's count when split */
    uint16_t n;               /* fields split so far */
    bool done;                /* the block is split to its end */
    struct plan_details it;   /* where the split goes on */
    struct plan_detail field[DETAIL_CACHE_FIELDS];
} last_split;

/* Points last_split at n; false when n's block is too long to keep. */
static bool split_of(const struct plan_node *n)
{
    unsigned freed = atomic_load_explicit(&freed_documents, memory_order_relaxed);
    if (last_split.node == n && last_split.details == n->details_text.ptr &&
        last_split.details_len == n->details_text.len && last_split.n_details == n->n_details &&
        last_split.freed == freed)
        return true;
    if (n->n_details > DETAIL_CACHE_FIELDS)
        return false;
    plan_details_init(&last_split.it, n);
    last_split.node = n;
    last_split.details = n->details_text.ptr;
    last_split.details_len = n->details_text.len;
    last_split.n_details = n->n_details;
    last_split.freed = freed;
    last_split.n = 0;
    last_split.done = false;
    return true;
}

bool plan_node_detail(const struct plan_node *n, const char *key, struct plan_detail *out)
{
    if (split_of(n)) {
        for (uint16_t i = 0; i < last_split.n; i++) /* bound: the fields split so far */
            if (slice_eq_cstr(last_split.field[i].key, key)) {
                *out = last_split.field[i];
                return true;
            }
        /* Bound: the iterator yields at most n->n_details <= DETAIL_CACHE_FIELDS fields. */
        while (!last_split.done && last_split.n < DETAIL_CACHE_FIELDS) {
            struct plan_detail *f = &last_split.field[last_split.n];
            if (!plan_details_next(&last_split.it, f)) {
                last_split.done = true;
                break;
            }
            last_split.n++;
            if (slice_eq_cstr(f->key, key)) {
                *out = *f;
                return true;
            }
        }
        return false;
    }
    struct plan_details it;
    plan_details_init(&it, n);
    while (plan_details_next(&it, out)) /* bound: the node's fields */
        if (slice_eq_cstr(out->key, key))
            return true;
    return false;
}

bool plan_node_stats(const struct plan_node *n, struct plan_stats *out)
{
    memset(out, 0, sizeof *out);
    if (n->flags & NODE_LABEL)
        return false;
    const char *s = n->text.ptr;
    /* Only a node with continuation lines has a first line shorter than its text: a 50 MB
     * generated line is not read through each time the details pane asks. */
    const char *nl = n->flags & NODE_MULTILINE ? memchr(s, '\n', n->text.len) : NULL;
    size_t len = nl ? (size_t)(nl - s) : n->text.len;
    while (len && (s[len - 1] == ' ' || s[len - 1] == '\t' || s[len - 1] == '\r'))
        len--;
    size_t at;
    lex_statistics(s, len, out, &at);
    return out->has_size || out->has_rows;
}

/* The first line of a slice, at most max bytes. */
static int first_line_of(struct slice s, int max)
{
    const char *nl = s.len ? memchr(s.ptr, '\n', s.len) : NULL;
    size_t n = nl ? (size_t)(nl - s.ptr) : s.len;
    return (int)(n < (size_t)max ? n : (size_t)max);
}

void plan_source_describe(const struct plan_source *s, char *buf, size_t cap)
{
    if (!cap)
        return;
    buf[0] = '\0';
    if (s->cell) {
        char count[24] = "";
        if (s->execution_count >= 0)
            snprintf(count, sizeof count, "[%d] ", (int)s->execution_count);
        if (s->from_output)
            snprintf(buf, cap, "cell %u, output of %s%s", (unsigned)s->cell, count,
                     s->code ? s->code : "its code");
        else
            snprintf(buf, cap, "cell %u, pasted into a %s cell", (unsigned)s->cell,
                     s->cell_type ? s->cell_type : "code");
    } else if (s->query.len) {
        snprintf(buf, cap, "query: %.*s%s", first_line_of(s->query, 200), s->query.ptr,
                 memchr(s->query.ptr, '\n', s->query.len) ? " ..." : "");
    } else if (s->log_time.len || s->logger.len) {
        snprintf(buf, cap, "log %.*s%s%.*s", first_line_of(s->log_time, 60), s->log_time.ptr,
                 s->log_time.len && s->logger.len ? " " : "", first_line_of(s->logger, 120),
                 s->logger.ptr);
    }
}
