/* decor_metrics.c: the decorator of an event log's plans — the metrics column at the row's
 * right end (rows, time, data size, spill; m toggles it), a heat tint on the operators that
 * took most of the plan's time, and the gutter mark of a runtime finding ("!" warning, "i"
 * information).  What it shows comes from evview (src/rows/evview.c), by node. */
#include "sparkplan/evview.h"
#include "sparkplan/tui.h"

static const struct plan_node *node_at(const struct tab *tab, uint32_t preorder)
{
    return tab && tab->section && preorder < tab->section->n_nodes
               ? plan_section_node(tab->section, preorder)
               : NULL;
}

static bool metrics_has_marks(struct tui *t, const struct tab *tab)
{
    if (!t->ev || !t->ev->rt || !tab->section)
        return false;
    for (size_t i = 0; i < t->ev->rt->n; i++) /* a few per query at most */
        if (t->ev->rt->items[i].node->section == tab->section)
            return true;
    return false;
}

static void metrics_decorate(const struct tui *t, const struct tab *tab, uint32_t preorder,
                             struct row_decor *d)
{
    const struct plan_node *n = node_at(tab, preorder);
    if (!t->ev || !n)
        return;
    char right[sizeof d->right];
    int heat, sev;
    evview_row(t->ev, n, right, sizeof right, sizeof right - 1, &heat, &sev);
    if (t->metrics_col && right[0]) {
        memcpy(d->right, right, sizeof right);
        d->right_role = heat >= 3 ? ROLE_MARKER : ROLE_SUMMARY;
    }
    if (heat >= 2) { /* over a third of the hottest operator's time */
        d->tinted = true;
        d->tint = ROLE_MARKER;
    }
    if (sev >= 0) {
        d->mark = sev == SEVERITY_WARNING ? "!" : "i";
        d->mark_role = sev == SEVERITY_WARNING ? ROLE_ERROR : ROLE_HINT;
    }
}

const struct decorator decor_metrics = {"metrics", metrics_has_marks, metrics_decorate};
