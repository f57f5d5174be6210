/* plan.c: the plan model, its construction helpers and lookups (see plan.h). */
#include "sparkplan/plan.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

void document_free(struct document *doc)
{
    if (!doc)
        return;
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
 * one reverse pass for subtree sizes.  *max_id and *sorted accumulate over the document. */
static bool section_finish(struct plan_section *s, struct finish_buf *b, int32_t *max_id,
                           const struct plan_node **last, bool *sorted)
{
    size_t start = b->n;
    for (struct plan_node *n = s->first_root; n; n = plan_node_next_preorder(n)) {
        n->depth = n->parent ? n->parent->depth + 1 : 0;
        n->preorder = (uint32_t)(b->n - start);
        n->section = s;
        n->subtree_size = 0;
        if (n->id > *max_id)
            *max_id = n->id;
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

bool document_finish(struct document *doc)
{
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
    size_t n_plans = 0;
    for (struct plan *p = doc->first_plan; p; p = p->next)
        n_plans++;
    /* Each plan's largest formatted id; the by_id tables are sized once the total is known. */
    int32_t *max_ids = malloc((n_plans ? n_plans : 1) * sizeof *max_ids);
    if (!max_ids)
        return false;
    size_t k = 0;
    for (struct plan *p = doc->first_plan; p; p = p->next, k++) {
        max_ids[k] = -1;
        for (struct plan_section *s = p->first_section; s; s = s->next)
            if (!section_finish(s, &b, &max_ids[k], &last, &sorted))
                goto done;
    }
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
    k = 0;
    size_t off = 0;
    for (struct plan *p = doc->first_plan; p; p = p->next, k++) {
        size_t plan_start = off;
        for (struct plan_section *s = p->first_section; s; s = s->next)
            off += s->n_nodes;
        int32_t max_id = max_ids[k];
        /* Ids come from the input: cap the table so "(999999999)" cannot eat memory. */
        if (max_id < 0 || (size_t)max_id >= 4 * (total + 16))
            continue;
        p->by_id_len = (uint32_t)max_id + 1;
        p->by_id = arena_alloc(&doc->arena, p->by_id_len * sizeof *p->by_id);
        if (!p->by_id)
            goto done;
        /* Bound: the plan's stretch of the finishing order; the first node printed wins. */
        for (size_t i = plan_start; i < off; i++)
            if (b.ids[i] >= 0 && !p->by_id[b.ids[i]])
                p->by_id[b.ids[i]] = b.v[i];
    }
    /* Nodes are created in input order almost always (checked during the walk): sort only
     * when they are not (the sort was a tenth of the load time of a 1M-node plan). */
    if (!sorted)
        qsort(doc->all_nodes, doc->n_all_nodes, sizeof *doc->all_nodes, compare_node_line);
    ok = true;
done:
    if (!b.in_arena)
        free(b.v);
    free(b.ids);
    free(max_ids);
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

bool plan_node_detail(const struct plan_node *n, const char *key, struct plan_detail *out)
{
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
