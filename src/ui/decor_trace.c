/* decor_trace.c: the decorator that marks the producer of the traced expression id (set
 * by the id list, *) with a diamond in the gutter, while the trace holds. */
#include <string.h>

#include "sparkplan/tui.h"

bool decor_trace_live(const struct tui *t, const struct tab *tab)
{
    return t->trace.on && tab == t->trace.tab && tab->rows.pattern &&
           strcmp(tab->rows.pattern, t->trace.text) == 0;
}

static bool trace_has_marks(struct tui *t, const struct tab *tab)
{
    return decor_trace_live(t, tab);
}

static void trace_decorate(const struct tui *t, const struct tab *tab, uint32_t preorder,
                           struct row_decor *d)
{
    const struct plan_node *p = t->trace.producer;
    if (!p || p->section != tab->section || plan_node_preorder(p) != preorder ||
        !decor_trace_live(t, tab))
        return;
    d->mark = t->ws.utf8 && !t->ascii ? "\xE2\x97\x86" : "P"; /* ◆ */
    d->mark_role = ROLE_LINK;
}

const struct decorator decor_trace = {"trace", trace_has_marks, trace_decorate};
