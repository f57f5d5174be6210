/* decor_findings.c: the decorator that marks nodes with findings in the gutter ("!" a
 * warning, "i" information), from the document's analysis once it is in (jobs.h).  Its
 * side table: the worst severity of each node of the shown section, by pre-order number,
 * built once per section and analysis (one byte a node) in the tui's decor_cache. */
#include <stdlib.h>

#include "sparkplan/tui.h"

/* The severity table of tab's section for analysis a, built when missing. */
static const signed char *severity_table(struct tui *t, const struct tab *tab,
                                         const struct analysis *a)
{
    struct decor_cache *c = &t->decor;
    if (c->sev && c->sev_section == tab->section && c->sev_analysis == a)
        return c->sev;
    free(c->sev);
    c->sev = NULL;
    uint32_t n = tab->section->n_nodes;
    signed char *sev = malloc(n ? n : 1);
    if (!sev)
        return NULL;
    for (uint32_t i = 0; i < n; i++) /* linear, once per section and analysis */
        sev[i] = -1;
    for (size_t i = 0; i < a->n_findings; i++) {
        const struct plan_node *node = a->findings[i].node;
        if (node && node->section == tab->section && plan_node_preorder(node) < n &&
            (signed char)a->findings[i].severity > sev[plan_node_preorder(node)])
            sev[plan_node_preorder(node)] = (signed char)a->findings[i].severity;
    }
    c->sev = sev;
    c->sev_section = tab->section;
    c->sev_analysis = a;
    return sev;
}

/* Cached per tab (until decor_forget): the answer looks at every finding. */
static bool findings_has_marks(struct tui *t, const struct tab *tab)
{
    const struct analysis *a = jobs_known(&t->ws.jobs, tab->section->plan->doc);
    if (!a)
        return false;
    severity_table(t, tab, a); /* what findings_decorate reads */
    struct decor_cache *c = &t->decor;
    if (c->marks_tab == tab)
        return c->marks_has;
    c->marks_tab = tab;
    c->marks_has = false;
    for (size_t i = 0; i < a->n_findings && !c->marks_has; i++) {
        const struct plan_node *n = a->findings[i].node;
        c->marks_has = n && rows_contains(&tab->rows, n);
    }
    return c->marks_has;
}

static void findings_decorate(const struct tui *t, const struct tab *tab, uint32_t preorder,
                              struct row_decor *d)
{
    const struct analysis *a = jobs_known(&t->ws.jobs, tab->section->plan->doc);
    const struct decor_cache *c = &t->decor;
    if (!a || !c->sev || c->sev_section != tab->section || c->sev_analysis != a ||
        preorder >= tab->section->n_nodes)
        return;
    int sev = c->sev[preorder];
    if (sev == SEVERITY_WARNING) {
        d->mark = "!";
        d->mark_role = ROLE_ERROR;
    } else if (sev == SEVERITY_INFO) {
        d->mark = "i";
        d->mark_role = ROLE_HINT;
    }
}

const struct decorator decor_findings = {"findings", findings_has_marks, findings_decorate};
