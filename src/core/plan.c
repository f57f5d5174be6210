/* plan.c: the plan model, its construction helpers and lookups (see plan.h). */
#include "sparkplan/plan.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if UINTPTR_MAX == UINT64_MAX
/* The node layout is part of the load cost (see plan.h): keep it from growing unnoticed. */
_Static_assert(sizeof(struct plan_node) == 168, "struct plan_node grew: see plan.h");
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
    doc->bytes = bytes;
    doc->len = len;
    doc->text = bytes;
    doc->text_len = len;
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
    free(doc->bytes);
    free(doc);
}

struct plan *document_add_plan(struct document *doc, uint32_t line)
{
    struct plan *p = arena_alloc(&doc->arena, sizeof *p);
    if (!p)
        return NULL;
    p->line = line;
    p->is_final = -1;
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
    return n;
}

void plan_node_append_child(struct plan_node *parent, struct plan_node *child)
{
    child->parent = parent;
    child->prev_sibling = parent->last_child;
    child->next_sibling = NULL;
    if (parent->last_child)
        parent->last_child->next_sibling = child;
    else
        parent->first_child = child;
    parent->last_child = child;
    parent->n_children++;
}

void plan_section_append_root(struct plan_section *s, struct plan_node *root)
{
    root->parent = NULL;
    root->prev_sibling = s->last_root;
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
    if (!doc->line_map || text_line == 0 || text_line > doc->n_text_lines)
        return text_line;
    return doc->line_map[text_line];
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

/* Node count and largest formatted id of a section, in one walk. */
static uint32_t section_count(const struct plan_section *s, int32_t *max_id)
{
    uint32_t count = 0;
    for (struct plan_node *n = s->first_root; n; n = plan_node_next_preorder(n)) {
        count++;
        if (n->id > *max_id)
            *max_id = n->id;
    }
    return count;
}

/* Depth, pre-order index, by_id and all_nodes in one walk; subtree sizes in one pass back
   over the pre-order array.  *sorted turns false when a node starts before the previous. */
static bool section_finish(struct document *doc, struct plan *p, struct plan_section *s,
                           size_t *all_i, bool *sorted)
{
    uint32_t count = s->n_nodes;
    s->preorder = arena_alloc(&doc->arena, (count ? count : 1) * sizeof *s->preorder);
    if (!s->preorder)
        return false;
    uint32_t i = 0;
    uint32_t prev_line = *all_i ? doc->all_nodes[*all_i - 1]->text_line : 0;
    for (struct plan_node *n = s->first_root; n; n = plan_node_next_preorder(n)) {
        n->depth = n->parent ? n->parent->depth + 1 : 0;
        n->preorder = i;
        n->section = s;
        n->subtree_size = 0;
        s->preorder[i++] = n;
        doc->all_nodes[(*all_i)++] = n;
        if (n->text_line < prev_line)
            *sorted = false;
        prev_line = n->text_line;
        if (n->id >= 0 && (uint32_t)n->id < p->by_id_len && !p->by_id[n->id])
            p->by_id[n->id] = n;
    }
    /* Reverse pre-order visits children before parents: one pass sums subtree sizes. */
    for (uint32_t k = count; k-- > 0;) {
        struct plan_node *n = s->preorder[k];
        if (n->parent)
            n->parent->subtree_size += n->subtree_size + 1;
    }
    return true;
}

static int compare_node_line(const void *a, const void *b)
{
    const struct plan_node *x = *(const struct plan_node *const *)a;
    const struct plan_node *y = *(const struct plan_node *const *)b;
    if (x->text_line != y->text_line)
        return x->text_line < y->text_line ? -1 : 1;
    return x < y ? -1 : (x > y);
}

/* Two walks over the nodes (count, then fill) and one pass back: on a 1M-node plan each
   walk is a pass over 168 MB of nodes, so passes are what this costs. */
bool document_finish(struct document *doc)
{
    size_t total = 0;
    for (struct plan *p = doc->first_plan; p; p = p->next) {
        int32_t max_id = -1;
        size_t plan_total = 0;
        for (struct plan_section *s = p->first_section; s; s = s->next) {
            s->n_nodes = section_count(s, &max_id);
            plan_total += s->n_nodes;
        }
        total += plan_total;
        /* Ids come from the input: cap the table so "(999999999)" cannot eat memory. */
        p->by_id = NULL;
        p->by_id_len = 0;
        if (max_id >= 0 && (size_t)max_id < 4 * (plan_total + 16)) {
            p->by_id = arena_alloc(&doc->arena, ((size_t)max_id + 1) * sizeof *p->by_id);
            if (!p->by_id)
                return false;
            p->by_id_len = (uint32_t)max_id + 1;
        }
    }
    doc->all_nodes = arena_alloc(&doc->arena, (total ? total : 1) * sizeof *doc->all_nodes);
    if (!doc->all_nodes)
        return false;
    size_t all_i = 0;
    bool sorted = true;
    for (struct plan *p = doc->first_plan; p; p = p->next)
        for (struct plan_section *s = p->first_section; s; s = s->next)
            if (!section_finish(doc, p, s, &all_i, &sorted))
                return false;
    doc->n_all_nodes = all_i;
    /* Nodes are created in input order almost always; sort only when they are not (the sort
     * was a tenth of the load time of a 1M-node plan). */
    if (!sorted)
        qsort(doc->all_nodes, doc->n_all_nodes, sizeof *doc->all_nodes, compare_node_line);
    return true;
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

const struct plan_detail *plan_node_detail(const struct plan_node *n, const char *key)
{
    for (uint32_t i = 0; i < n->n_details; i++)
        if (slice_eq_cstr(n->details[i].key, key))
            return &n->details[i];
    return NULL;
}
