/* build.c: plans, sections and nodes linked into the model as a reader reads them (see
 * build.h). */
#include "sparkplan/build.h"

#include <stdlib.h>
#include <string.h>

void build_init(struct plan_builder *b, struct document *doc)
{
    memset(b, 0, sizeof *b);
    b->doc = doc;
}

void build_free(struct plan_builder *b)
{
    free(b->open);
    free(b->open_last);
    b->open = b->open_last = NULL;
    b->n_open = b->cap_open = 0;
}

struct plan *build_plan(struct plan_builder *b, uint32_t line)
{
    b->prev_plan = b->doc->last_plan;
    b->plan_mark = b->doc->n_nodes_made;
    plan_order_plan_begin(b->doc);
    b->plan = document_add_plan(b->doc, line);
    b->section = NULL;
    b->n_open = 0;
    if (!b->plan)
        b->nomem = true;
    return b->plan;
}

void build_end_plan(struct plan_builder *b, bool keep)
{
    if (b->plan && !keep) {
        struct document *doc = b->doc;
        plan_order_plan_dropped(doc);
        plan_nodes_take_back(doc, b->plan_mark);
        doc->last_plan = b->prev_plan;
        if (b->prev_plan)
            b->prev_plan->next = NULL;
        else
            doc->first_plan = NULL;
        doc->n_plans--;
    }
    b->plan = NULL;
    b->section = NULL;
    b->n_open = 0;
}

struct plan_section *build_section(struct plan_builder *b, enum section_kind kind,
                                   struct slice title, uint32_t line)
{
    b->section = b->plan ? plan_add_section(b->plan, kind, title, line) : NULL;
    b->n_open = 0;
    if (!b->section)
        b->nomem = true;
    return b->section;
}

void build_end_section(struct plan_builder *b)
{
    b->section = NULL;
    b->n_open = 0;
}

struct plan_node *build_node(struct plan_builder *b, struct plan_node *parent,
                             struct plan_node *after)
{
    struct plan_node *n = b->section ? plan_node_place(b->section, parent, after) : NULL;
    if (!n)
        b->nomem = true;
    return n;
}

static bool open_reserve(struct plan_builder *b)
{
    if (b->n_open < b->cap_open)
        return true;
    size_t cap = b->cap_open ? b->cap_open * 2 : 64;
    struct plan_node **o = realloc(b->open, cap * sizeof *o);
    if (o)
        b->open = o;
    struct plan_node **l = o ? realloc(b->open_last, cap * sizeof *l) : NULL;
    if (!l)
        return false;
    b->open_last = l;
    b->cap_open = cap;
    return true;
}

struct plan_node *build_enter(struct plan_builder *b)
{
    if (!open_reserve(b)) {
        b->nomem = true;
        return NULL;
    }
    struct plan_node *parent = b->n_open ? b->open[b->n_open - 1] : NULL;
    struct plan_node *n = build_node(b, parent, parent ? b->open_last[b->n_open - 1] : NULL);
    if (!n)
        return NULL;
    if (parent)
        b->open_last[b->n_open - 1] = n;
    b->open[b->n_open] = n;
    b->open_last[b->n_open] = NULL;
    b->n_open++;
    return n;
}

void build_leave(struct plan_builder *b)
{
    if (b->n_open)
        b->n_open--;
}

void build_details_start(struct plan_node *n, struct slice header, uint32_t line,
                         uint32_t text_line)
{
    (void)line; /* derived from text_line when asked (plan_node_details_line) */
    plan_node_set_details(n, header, text_line);
}

void build_details_end(struct plan_node *n, struct slice text, uint32_t n_fields)
{
    plan_node_set_details(n, text, plan_node_details_text_line(n));
    n->n_details = n_fields > UINT16_MAX ? UINT16_MAX : (uint16_t)n_fields;
}

void build_details(struct plan_node *n, struct slice text, uint32_t text_line, uint32_t n_fields)
{
    plan_node_set_details(n, text, text_line);
    n->n_details = n_fields > UINT16_MAX ? UINT16_MAX : (uint16_t)n_fields;
}
