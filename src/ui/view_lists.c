/* view_lists.c: the two list overlays of the insight features — the document's findings
 * (!; Enter goes to one) and the expression ids of the selected node (*; Enter traces one:
 * the nodes mentioning it become the tab's search matches, its producer gets a gutter
 * mark, decor_trace.c).  Two views, one list widget.  Their state: the selection, and the
 * ids of the node. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sparkplan/analyze.h"
#include "sparkplan/catalog.h"
#include "sparkplan/draw.h"
#include "sparkplan/exprid.h"
#include "sparkplan/listbox.h"
#include "sparkplan/tui.h"

struct list_state {
    bool ids;                     /* the id list; else the findings */
    struct listbox lb;
    struct exprid_ref refs[TUI_MAX_REFS];
};

static size_t list_len(const struct tui *t, const struct list_state *l)
{
    if (l->ids)
        return l->lb.n;
    const struct analysis *a = jobs_known(&t->ws.jobs, ws_doc_c(&t->ws)->doc);
    return a ? a->n_findings : 0;
}

/* The list's box: one row per entry, as many as fit. */
static struct box list_box(const struct tui *t, const struct list_state *l)
{
    return overlay_place(102, (int)list_len(t, l) + 2);
}

static void list_prepare(struct tui *t, void *state)
{
    struct list_state *l = state;
    struct box in = overlay_inside(list_box(t, l));
    l->lb.n = list_len(t, l);
    l->lb.rows = in.h > 0 ? (size_t)in.h : 1;
    l->lb.page_whole = true;
}

static void draw_finding(struct draw_line *dl, const struct finding *f, enum variant v)
{
    char head[48];
    snprintf(head, sizeof head, " %6lu %s %s ", (unsigned long)f->line,
             f->severity == SEVERITY_WARNING ? "!" : "i", analyze_rules[f->rule].id);
    draw_puts(dl, head, theme_attr(f->severity == SEVERITY_WARNING ? ROLE_ERROR : ROLE_HINT, v));
    draw_puts(dl, f->message, theme_attr(ROLE_NORMAL, v)); /* sanitized by draw */
}

static void draw_ref(struct draw_line *dl, const struct exprid_ref *ref, enum variant v)
{
    draw_puts(dl, " ", theme_attr(ROLE_NORMAL, v));
    draw_put(dl, ref->text, theme_attr(ref->normalized ? ROLE_HINT : ROLE_TITLE, v), true);
    if (ref->normalized)
        draw_puts(dl, "   (normalized #x: cannot be traced)", theme_attr(ROLE_HINT, v));
}

static void list_draw(const struct tui *t, const void *state)
{
    const struct list_state *l = state;
    size_t n = list_len(t, l);
    char title[3][160];
    const char *const titles[4] = {title[0], title[1], title[2], NULL};
    if (!l->ids) {
        snprintf(title[0], sizeof title[0], "Findings: %zu (Enter goes to one, q closes)", n);
        snprintf(title[1], sizeof title[1], "Findings: %zu (q closes)", n);
        snprintf(title[2], sizeof title[2], "Findings: %zu", n);
    } else {
        snprintf(title[0], sizeof title[0], "Expression ids of this node (Enter traces one, q closes)");
        snprintf(title[1], sizeof title[1], "Expression ids (Enter traces one)");
        snprintf(title[2], sizeof title[2], "Expression ids");
    }
    struct box in = overlay_draw(t, list_box(t, l), titles);
    const struct analysis *a = jobs_known(&t->ws.jobs, ws_doc_c(&t->ws)->doc);
    for (int r = 0; r < in.h && l->lb.top + (size_t)r < n; r++) {
        size_t i = l->lb.top + (size_t)r;
        enum variant v = i == l->lb.sel ? VAR_SELECTED : VAR_PLAIN;
        struct draw_line dl;
        draw_line_start(&dl, in.y + r, in.x, in.w, 0);
        if (l->ids)
            draw_ref(&dl, &l->refs[i], v);
        else
            draw_finding(&dl, &a->findings[i], v);
        draw_fill(&dl, theme_attr(ROLE_NORMAL, v));
        draw_cut_marker(&dl, theme_attr(ROLE_CUT, v));
    }
}

/* Sets the tab's search matches to the nodes mentioning the id, so n/N step through them
 * and the id is highlighted in each row. */
static void trace_id(struct tui *t, const struct exprid_ref *ref)
{
    struct tab *tab = ws_tab(&t->ws);
    struct rows *r = &tab->rows;
    struct exprid_hits hits;
    struct diag err = {0};
    if (exprid_find(tab->section->plan->doc, tab->section->plan, tab->section, ref->id, &hits,
                    &err) != SP_OK) {
        ws_message(&t->ws, true, "%s", err.message);
        return;
    }
    uint32_t *pos = malloc((hits.n ? hits.n : 1) * sizeof *pos);
    char *pattern = malloc(ref->text.len + 1);
    if (!pos || !pattern) {
        free(pos), free(pattern);
        exprid_hits_free(&hits);
        ws_message(&t->ws, true, "out of memory");
        return;
    }
    size_t k = 0;
    for (size_t i = 0; i < hits.n; i++)  /* hits are in input order: pre-order in a section */
        if (rows_contains(r, hits.nodes[i]))
            pos[k++] = plan_node_preorder(hits.nodes[i]);
    memcpy(pattern, ref->text.ptr, ref->text.len);
    pattern[ref->text.len] = '\0';
    /* The row highlight compares like the search: exact when the id has capitals (10L),
     * folded otherwise, and an id without capitals is already lower-case. */
    free(r->pattern);
    free(r->matches);
    r->pattern = pattern;
    r->matches = pos;
    r->n_matches = k;
    t->trace.on = true;
    snprintf(t->trace.text, sizeof t->trace.text, "%s", pattern);
    t->trace.tab = tab;
    t->trace.producer = hits.producer;
    decor_forget(t);
    if (hits.producer && rows_contains(r, hits.producer))
        rows_select_centered(r, (struct plan_node *)hits.producer);
    else if (k)
        rows_select_centered(r, plan_section_node(r->section, pos[0]));
    char where[160] = "not in this plan";
    if (hits.producer) {
        struct slice w = catalog_operator_name(plan_node_name(hits.producer).len
                                                   ? plan_node_name(hits.producer)
                                                   : plan_node_text(hits.producer));
        snprintf(where, sizeof where, "%.*s on line %lu", (int)(w.len > 60 ? 60 : w.len), w.ptr,
                 (unsigned long)hits.producer->line);
    }
    ws_message(&t->ws, false, "%.*s: %zu node%s here, %zu in the plan; produced by %s (n, N step)",
                (int)(ref->text.len > 60 ? 60 : ref->text.len), ref->text.ptr, k,
                k == 1 ? "" : "s", hits.n, where);
    exprid_hits_free(&hits);
}

static void open_entry(struct tui *t, struct list_state *l)
{
    if (!l->ids) {
        const struct analysis *an = jobs_known(&t->ws.jobs, ws_doc(&t->ws)->doc);
        if (an && l->lb.sel < an->n_findings)
            ws_go_to_finding(&t->ws, an, l->lb.sel);
    } else if (l->lb.sel < l->lb.n) {
        if (l->refs[l->lb.sel].normalized)
            ws_message(&t->ws, true,
                       "normalized ids (#x) cannot be traced: every id reads the same");
        else
            trace_id(t, &l->refs[l->lb.sel]);
    }
}

static int list_key(struct tui *t, void *state, enum key_action a,
                    const struct input_event *ev)
{
    (void)ev;
    struct list_state *l = state;
    switch (a) {
    case KA_I_CLOSE:
        return RE_POP | RE_DRAW | RE_FULL;
    case KA_I_OPEN:
        open_entry(t, l);
        return RE_POP | RE_DRAW | RE_LAYOUT | RE_FULL;
    default: {
        long delta = listbox_delta(&l->lb, a);
        if (!delta)
            return RE_NONE;
        list_prepare(t, l);
        listbox_move(&l->lb, delta);
        return RE_DRAW;
    }
    }
}

/* The findings from the selected node's line on. */
static void *findings_open(struct tui *t)
{
    struct list_state *l = calloc(1, sizeof *l);
    if (!l)
        return NULL;
    const struct analysis *a = jobs_known(&t->ws.jobs, ws_doc(&t->ws)->doc);
    const struct plan_node *sel = ws_tab(&t->ws)->rows.sel;
    for (size_t i = 0; a && sel && i < a->n_findings; i++)
        if (a->findings[i].line >= sel->line) {
            l->lb.sel = i;
            break;
        }
    list_prepare(t, l);
    listbox_move(&l->lb, 0);
    return l;
}

/* The ids the selected node mentions (tree_insight.c checked there are traceable ones). */
static void *ids_open(struct tui *t)
{
    struct list_state *l = calloc(1, sizeof *l);
    if (!l)
        return NULL;
    l->ids = true;
    const struct plan_node *sel = ws_tab(&t->ws)->rows.sel;
    size_t n = sel ? exprid_node_refs(sel, l->refs, TUI_MAX_REFS) : 0;
    l->lb.n = n < TUI_MAX_REFS ? n : TUI_MAX_REFS;
    list_prepare(t, l);
    return l;
}

static void list_close(struct tui *t, void *state)
{
    (void)t;
    free(state);
}

const struct view_ops view_findings = {
    .name = "findings",
    .layer = LAYER_OVERLAY,
    .keys = KCTX_LIST,
    .open = findings_open,
    .close = list_close,
    .prepare = list_prepare,
    .draw = list_draw,
    .key = list_key,
};

const struct view_ops view_ids = {
    .name = "ids",
    .layer = LAYER_OVERLAY,
    .keys = KCTX_LIST,
    .open = ids_open,
    .close = list_close,
    .prepare = list_prepare,
    .draw = list_draw,
    .key = list_key,
};
