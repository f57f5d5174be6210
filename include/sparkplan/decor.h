/* decor: row decorations as data.  A decorator says, for a node of the shown tab, what
 * its row carries besides the node's own text: a mark in the gutter's last column, a tint
 * for the text, a short text at the row's right end.  The tree view asks decor_row for
 * each row it draws and draws what it is given; it knows no decorator.
 *
 * A decorator is one module (src/ui/decor_NAME.c) exporting one `const struct decorator`,
 * listed once in decorators[] (src/ui/decor.c); earlier ones win a field both fill.  Its
 * side data (findings, a trace, later runtime metrics or diff marks) live in tables it
 * owns, indexed by the node's pre-order number in its section (plan_node.preorder), so
 * the node stays small.  Today: the traced id's producer (decor_trace.c), findings
 * (decor_findings.c).  A runtime-metrics column would fill `right`; diff marks `mark` and
 * `tint`: each one more module and one line.
 *
 * Owns: nothing of the documents; the decorators' caches and side tables are kept in the
 * tui's decor_cache (freed by decor_free) and rebuilt when the tab or what they read
 * changes (decor_forget).
 * Never: starts work (an analysis) from a query, draws, or changes the node.
 */
#ifndef SPARKPLAN_DECOR_H
#define SPARKPLAN_DECOR_H

#include <stdbool.h>
#include <stdint.h>

#include "sparkplan/theme.h"

struct tui;
struct tab;

struct row_decor {
    const char *mark;          /* one column in the gutter ("!", "i", "◆"), or NULL */
    enum role mark_role;
    bool tinted;               /* the row's text drawn in `tint` instead of its own role */
    enum role tint;
    char right[48];            /* drawn at the row's right end when not empty */
    enum role right_role;
};

struct decorator {
    const char *name;
    /* Does any row of tab carry a mark (the gutter needs its mark column)?  Called by the
     * layout before every frame: the place to build (or check) the decorator's side table
     * for the tab; cache a costly answer until decor_forget.  Reads only what is known: never starts an
     * analysis. */
    bool (*tab_has_marks)(struct tui *t, const struct tab *tab);
    /* Fills the fields of d it has for the node at pre-order number `preorder` of tab's
     * section, leaving the others as they are. */
    void (*decorate)(const struct tui *t, const struct tab *tab, uint32_t preorder,
                     struct row_decor *d);
};

extern const struct decorator *const decorators[];
extern const unsigned n_decorators;

/* The row of node `preorder` of tab: every decorator in order, the first to fill a field
 * keeping it. */
void decor_row(const struct tui *t, const struct tab *tab, uint32_t preorder,
               struct row_decor *out);
/* Does any decorator mark a row of tab?  The layout calls it for the shown tab before each
 * frame, whether or not the gutter is shown (decorators cache what is costly). */
bool decor_tab_has_marks(struct tui *t, const struct tab *tab);
/* Something a decorator reads changed (findings in, a trace set): ask again. */
void decor_forget(struct tui *t);
void decor_free(struct tui *t);

/* The traced expression id (set by the id list, shown by decor_trace): it holds while
 * its tab's search pattern is still the id's text. */
struct trace_mark {
    bool on;
    char text[256];
    const struct tab *tab;
    const struct plan_node *producer;
};
bool decor_trace_live(const struct tui *t, const struct tab *tab);

#endif
