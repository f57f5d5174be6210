/* eventlog.c: the application model's lookups, the sparkPlanInfo-to-text alignment and the
 * hottest operator (eventlog.h). */
#include "sparkplan/eventlog.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *ev_status_name(enum ev_status s)
{
    return s == EV_SUCCEEDED ? "succeeded" : s == EV_FAILED ? "failed" : "running";
}

const struct ev_plan *ev_exec_final(const struct ev_exec *e)
{
    return e->n_plans ? &e->plans[e->n_plans - 1] : NULL;
}

const struct ev_node_side *ev_plan_side(const struct ev_plan *p, const struct plan_node *n)
{
    if (!p || !p->side || !n)
        return NULL;
    if (n->section == p->section)
        return plan_node_preorder(n) < p->section->n_nodes ? &p->side[plan_node_preorder(n)] : NULL;
    for (uint32_t i = 0; i < p->n_sub; i++)
        if (n->section == p->sub_sections[i])
            return &p->side[p->sub_offsets[i] + plan_node_preorder(n)];
    return NULL;
}

static bool starts(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* The info node whose metrics a text node shows: a ReusedExchange without metrics of its own
 * shows the exchange it reuses (its child, past codegen wrappers). */
static const struct ev_info *metrics_owner(const struct ev_info *i)
{
    if (i && i->n_metrics == 0 && starts(i->node_name, "ReusedExchange") && i->first_child) {
        const struct ev_info *c = i->first_child;
        while (c && (starts(c->node_name, "WholeStageCodegen") ||
                     starts(c->node_name, "InputAdapter")))
            c = c->first_child;
        return c ? c : i;
    }
    return i;
}

size_t ev_node_metrics(const struct ev_exec *e, const struct ev_plan *p,
                       const struct plan_node *n, struct ev_shown_metric *out, size_t cap)
{
    const struct ev_node_side *side = ev_plan_side(p, n);
    size_t k = 0;
    if (!side)
        return 0;
    const struct ev_info *owners[2] = {metrics_owner(side->info), side->codegen};
    for (int w = 0; w < 2; w++) {
        const struct ev_info *i = owners[w];
        for (uint32_t m = 0; i && m < i->n_metrics; m++) {
            const struct sqlm_value *v = sqlm_find(e->values, e->n_values, i->metrics[m].acc_id);
            if (!v)
                continue;
            if (k < cap)
                out[k] = (struct ev_shown_metric){&i->metrics[m], v, w == 1};
            k++;
        }
    }
    return k;
}

static int64_t time_of(const struct ev_exec *e, const struct ev_info *i)
{
    int64_t ms = 0;
    for (uint32_t m = 0; i && m < i->n_metrics; m++) {
        const struct ev_metric *d = &i->metrics[m];
        if (d->type != SQLM_TIMING && d->type != SQLM_NS_TIMING)
            continue;
        const struct sqlm_value *v = sqlm_find(e->values, e->n_values, d->acc_id);
        if (v)
            ms += d->type == SQLM_NS_TIMING ? v->total / 1000000 : v->total;
    }
    return ms;
}

int64_t ev_node_time_ms(const struct ev_exec *e, const struct ev_plan *p,
                        const struct plan_node *n)
{
    const struct ev_node_side *side = ev_plan_side(p, n);
    return side ? time_of(e, metrics_owner(side->info)) : 0;
}

const struct sqlm_value *ev_node_metric(const struct ev_exec *e, const struct ev_plan *p,
                                        const struct plan_node *n, const char *name)
{
    const struct ev_node_side *side = ev_plan_side(p, n);
    const struct ev_info *i = side ? metrics_owner(side->info) : NULL;
    for (uint32_t m = 0; i && m < i->n_metrics; m++)
        if (strcmp(i->metrics[m].name, name) == 0)
            return sqlm_find(e->values, e->n_values, i->metrics[m].acc_id);
    return NULL;
}

static const struct sqlm_value *first_of(const struct ev_exec *e, const struct ev_plan *p,
                                         const struct plan_node *n, const char *const *names)
{
    for (; *names; names++) {
        const struct sqlm_value *v = ev_node_metric(e, p, n, *names);
        if (v)
            return v;
    }
    return NULL;
}

const char *ev_node_brief(const struct ev_exec *e, const struct ev_plan *p,
                          const struct plan_node *n, char *buf, size_t cap)
{
    static const char *const rows[] = {"number of output rows", "records read", NULL};
    static const char *const sizes[] = {"data size", "size of files read", "shuffle bytes written",
                                        "partition data size", NULL};
    static const char *const spills[] = {"spill size", NULL};
    char part[64];
    size_t len = 0;
    buf[0] = '\0';
    const struct sqlm_value *v = first_of(e, p, n, rows);
    if (v) {
        sqlm_count_string(v->total, part, sizeof part);
        len += (size_t)snprintf(buf + len, len < cap ? cap - len : 0, "%s rows", part);
    }
    int64_t ms = ev_node_time_ms(e, p, n);
    if (ms > 0) {
        sqlm_ms_string(ms, part, sizeof part);
        len += (size_t)snprintf(buf + len, len < cap ? cap - len : 0, "%s%s", len ? "  " : "",
                                part);
    }
    if ((v = first_of(e, p, n, sizes)) != NULL) {
        sqlm_bytes_string(v->total, part, sizeof part);
        len += (size_t)snprintf(buf + len, len < cap ? cap - len : 0, "%s%s", len ? "  " : "",
                                part);
    }
    if ((v = first_of(e, p, n, spills)) != NULL && v->total > 0) {
        sqlm_bytes_string(v->total, part, sizeof part);
        snprintf(buf + len, len < cap ? cap - len : 0, "%sspill %s", len ? "  " : "", part);
    }
    return buf;
}

int64_t ev_plan_max_time_ms(const struct ev_exec *e, const struct ev_plan *p)
{
    int64_t most = 0;
    for (uint32_t i = 0; p && p->section && i < p->section->n_nodes; i++) {
        int64_t ms = ev_node_time_ms(e, p, plan_section_node(p->section, i));
        most = ms > most ? ms : most;
    }
    return most;
}

int ev_node_heat(const struct ev_exec *e, const struct ev_plan *p, const struct plan_node *n,
                 int64_t hottest_ms)
{
    int64_t ms = ev_node_time_ms(e, p, n);
    if (hottest_ms <= 0 || ms * 10 < hottest_ms)
        return 0;
    return ms * 3 > hottest_ms * 2 ? 3 : ms * 3 > hottest_ms ? 2 : 1;
}

const char *ev_metric_label(const struct ev_shown_metric *m, char *buf, size_t cap)
{
    const char *v = m->value->text;
    snprintf(buf, cap, "%s%s%s%s", m->codegen ? "codegen stage " : "", m->def->name,
             strchr(v, ':') ? " " : ": ", v);
    return buf;
}

/* The hottest operator: the most time by its own time metrics; when no operator has one,
 * the top of the codegen stage that took longest. */
void ev_exec_find_hottest(struct ev_exec *e)
{
    const struct ev_plan *p = ev_exec_final(e);
    e->hottest = NULL;
    e->hottest_ms = 0;
    if (!p || !p->section)
        return;
    const struct plan_node *by_stage = NULL;
    int64_t stage_ms = 0;
    for (uint32_t i = 0; i < p->section->n_nodes; i++) {
        const struct plan_node *n = plan_section_node(p->section, i);
        int64_t ms = ev_node_time_ms(e, p, n);
        if (ms > e->hottest_ms)
            e->hottest = n, e->hottest_ms = ms;
        int64_t cg = p->side[i].codegen ? time_of(e, p->side[i].codegen) : 0;
        if (cg > stage_ms)
            by_stage = n, stage_ms = cg;
    }
    if (!e->hottest && by_stage)
        e->hottest = by_stage, e->hottest_ms = stage_ms;
}

/* ---- alignment -------------------------------------------------------------------------------- */

static bool is_wrapper(const struct ev_info *i)
{
    return starts(i->node_name, "WholeStageCodegen") || starts(i->node_name, "InputAdapter");
}

/* Past WholeStageCodegen and InputAdapter (the text never shows them), noting the codegen. */
static const struct ev_info *visible(const struct ev_info *i, const struct ev_info **codegen)
{
    while (i && is_wrapper(i)) {
        if (starts(i->node_name, "WholeStageCodegen"))
            *codegen = i;
        i = i->first_child;
    }
    return i;
}

static bool ident_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_';
}

/* a and b name the same operator when one is a prefix of the other ending at a word end:
 * "Scan parquet " / "Scan parquet db.t", but not "Sort" / "SortMergeJoin". */
static bool same_prefix(const char *a, size_t na, const char *b, size_t nb)
{
    while (na && a[na - 1] == ' ')
        na--;
    while (nb && b[nb - 1] == ' ')
        nb--;
    size_t k = na < nb ? na : nb;
    if (k == 0 || memcmp(a, b, k) != 0)
        return false;
    const char *longer = na > nb ? a : b;
    size_t nl = na > nb ? na : nb;
    return k == nl || !ident_char(longer[k]) || !ident_char(longer[k - 1]);
}

static bool names_match(const struct plan_node *t, const struct ev_info *i)
{
    const char *tn = plan_node_name(t).ptr;
    size_t tl = plan_node_name(t).len;
    if (same_prefix(tn, tl, i->node_name, strlen(i->node_name)))
        return true;
    /* extended text shows simpleString: "FileScan parquet db.t[...]" for "Scan parquet" */
    return i->simple && same_prefix(tn, tl, i->simple, strlen(i->simple));
}

/* AQE: the text's AdaptiveSparkPlan shows "== Final Plan ==" (or "Current Plan") whose
 * children are what sparkPlanInfo holds; without a label its own children are. */
static const struct plan_node *text_children(const struct plan_node *t)
{
    for (const struct plan_node *c = plan_node_first_child(t); c; c = plan_node_next_sibling(c))
        if ((c->flags & NODE_LABEL) && (slice_find(plan_node_text(c), "Final Plan") >= 0 ||
                                        slice_find(plan_node_text(c), "Current Plan") >= 0))
            return plan_node_first_child(c);
    return plan_node_first_child(t);
}

struct pair {
    const struct plan_node *t;  /* first of a list of text siblings */
    const struct ev_info *i;    /* first of a list of info siblings (raw, wrappers included) */
};

/* Matches the info list against the text list greedily in order: each info node takes the
 * next text sibling with its name; info nodes the text does not show are passed over. */
static void match_lists(struct ev_plan *p, struct pair in, struct pair *stack, size_t *top)
{
    const struct plan_node *t = in.t;
    for (const struct ev_info *raw = in.i; raw && t; raw = raw->next_sibling) {
        const struct ev_info *cg = NULL, *i = visible(raw, &cg);
        if (!i)
            continue;
        const struct plan_node *m = t;
        while (m && ((m->flags & NODE_LABEL) || !names_match(m, i)))
            m = plan_node_next_sibling(m);
        if (!m)
            continue;
        struct ev_node_side *s = (struct ev_node_side *)ev_plan_side(p, m);
        if (!s)
            continue;
        s->info = i, s->codegen = cg;
        p->n_aligned++;
        t = plan_node_next_sibling(m);
        /* a ReusedExchange is a leaf in the text: its info subtree is the original's */
        if (!starts(i->node_name, "ReusedExchange") && i->first_child && text_children(m))
            stack[(*top)++] = (struct pair){text_children(m), i->first_child};
    }
}

/* A dynamic-pruning subquery's section shows "x#1 IN dynamicpruning#918"; its
 * SubqueryBroadcast node's simpleString starts "SubqueryBroadcast dynamicpruning#918, ...". */
static bool dpp_shown(const struct ev_info *i, struct slice expr)
{
    const char *w = i->simple ? strchr(i->simple, ' ') : NULL;
    if (!w)
        return false;
    w++;
    size_t n = strcspn(w, ", ");
    if (n == 0 || n > 64)
        return false;
    char word[72];
    memcpy(word, w, n);
    word[n] = '\0';
    long at = slice_find(expr, word);
    /* the whole id: "dynamicpruning#91" must not match "dynamicpruning#918" */
    return at >= 0 && ((size_t)at + n == expr.len || !ident_char(expr.ptr[at + (long)n]));
}

/* Formatted text prints each subquery as a section of its own, titled "Subquery:N Hosting
 * operator id = K Hosting Expression = <the Subquery node's simpleString>"; reused ones have
 * no tree.  The info node for a section is the Subquery whose simpleString its title shows. */
static const struct ev_info *subquery_info(const struct ev_info *root, struct slice title)
{
    long at = slice_find(title, "Hosting Expression = ");
    if (at < 0)
        return NULL;
    struct slice expr = slice_make(title.ptr + at + 21, title.len - (size_t)at - 21);
    if (slice_starts_with(expr, "ReusedSubquery"))
        return NULL;
    /* pre-order walk of the info tree, without recursion, past ReusedSubquery subtrees */
    for (const struct ev_info *i = root; i;) {
        if (starts(i->node_name, "SubqueryBroadcast") && dpp_shown(i, expr))
            return i;
        if (starts(i->node_name, "Subquery") && i->simple && *i->simple &&
            strlen(i->simple) <= expr.len && memcmp(expr.ptr, i->simple, strlen(i->simple)) == 0)
            return i;
        if (i->first_child && !starts(i->node_name, "ReusedSubquery")) {
            i = i->first_child;
            continue;
        }
        while (i && !i->next_sibling)
            i = i->parent;
        i = i ? i->next_sibling : NULL;
    }
    return NULL;
}

static bool align_subqueries(struct ev_plan *p, struct arena *a, struct pair *stack)
{
    uint32_t n = 0, total = p->section->n_nodes;
    for (const struct plan_section *s = p->section->next; s; s = s->next)
        n += s->kind == SECTION_SUBQUERY && s->n_nodes > 0;
    if (n == 0)
        return true;
    p->sub_sections = arena_alloc(a, n * sizeof *p->sub_sections);
    p->sub_offsets = arena_alloc(a, n * sizeof *p->sub_offsets);
    if (!p->sub_sections || !p->sub_offsets)
        return false;
    for (const struct plan_section *s = p->section->next; s; s = s->next) {
        if (s->kind != SECTION_SUBQUERY || s->n_nodes == 0)
            continue;
        p->sub_sections[p->n_sub] = s;
        p->sub_offsets[p->n_sub++] = total;
        total += s->n_nodes;
    }
    struct ev_node_side *side = arena_alloc(a, total * sizeof *side);
    if (!side)
        return false;
    memcpy(side, p->side, p->section->n_nodes * sizeof *side);
    p->side = side;
    for (uint32_t k = 0; k < p->n_sub; k++) {
        const struct ev_info *sq = subquery_info(p->info, p->sub_sections[k]->title);
        if (!sq || !sq->first_child)
            continue;
        size_t top = 0;
        stack[top++] = (struct pair){p->sub_sections[k]->first_root, sq->first_child};
        while (top > 0) {
            struct pair cur = stack[--top];
            match_lists(p, cur, stack, &top);
        }
    }
    return true;
}

bool ev_plan_align(struct ev_plan *p, struct arena *a)
{
    p->section = NULL;
    p->n_aligned = 0;
    if (!p->doc || !p->info)
        return true;
    for (const struct plan *pl = p->doc->first_plan; pl && !p->section; pl = pl->next)
        for (const struct plan_section *s = pl->first_section; s; s = s->next)
            if (s->kind == SECTION_PHYSICAL) {
                p->section = s;
                break;
            }
    if (!p->section || p->section->n_nodes == 0)
        return p->section = NULL, true;
    uint32_t n = p->section->n_nodes, most = n;
    for (const struct plan_section *s = p->section->next; s; s = s->next)
        most = s->n_nodes > most ? s->n_nodes : most;
    p->side = arena_alloc(a, n * sizeof *p->side);
    struct pair *stack = malloc((size_t)most * sizeof *stack + sizeof *stack);
    if (!p->side || !stack) {
        free(stack);
        return false;
    }
    size_t top = 0;
    /* Each text node is matched at most once and pushes at most one pair: the stack holds at
     * most n + 1 pairs. */
    stack[top++] = (struct pair){p->section->first_root, p->info};
    while (top > 0) {
        struct pair cur = stack[--top];
        match_lists(p, cur, stack, &top);
    }
    bool ok = align_subqueries(p, a, stack);
    free(stack);
    return ok;
}

void ev_app_free(struct ev_app *app)
{
    if (!app)
        return;
    for (size_t i = 0; i < app->n_execs; i++) {
        struct ev_exec *e = &app->execs[i];
        for (size_t j = 0; j < e->n_plans; j++)
            document_free(e->plans[j].doc);
        free(e->plans);
        free(e->jobs);
        free(e->job_failed);
        free(e->stages);
    }
    free(app->execs);
    free(app->warnings);
    arena_free(&app->arena);
    free(app);
}
