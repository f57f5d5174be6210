/* decor.c: the list of row decorators and the two questions the tree and the layout ask
 * of them (see decor.h).  Adding a decorator: its module, one line below. */
#include "sparkplan/decor.h"

#include <stdlib.h>
#include <string.h>

#include "sparkplan/tui.h"

extern const struct decorator decor_trace, decor_findings, decor_metrics;

const struct decorator *const decorators[] = {
    &decor_trace,      /* the traced id's producer: ◆ (wins over a finding) */
    &decor_findings,   /* findings: ! warning, i information */
    &decor_metrics,    /* an event log: metrics column, heat tint, runtime findings */
};
const unsigned n_decorators = sizeof decorators / sizeof decorators[0];

void decor_row(const struct tui *t, const struct tab *tab, uint32_t preorder,
               struct row_decor *out)
{
    memset(out, 0, sizeof *out);
    for (unsigned i = n_decorators; i-- > 0;) /* the first decorator's fields win */
        decorators[i]->decorate(t, tab, preorder, out);
}

bool decor_tab_has_marks(struct tui *t, const struct tab *tab)
{
    bool has = false;
    for (unsigned i = 0; i < n_decorators; i++) /* each: its side tables get ready */
        has |= decorators[i]->tab_has_marks(t, tab);
    return has;
}

void decor_forget(struct tui *t)
{
    t->decor.marks_tab = NULL;
}

void decor_free(struct tui *t)
{
    free(t->decor.sev);
    memset(&t->decor, 0, sizeof t->decor);
}
