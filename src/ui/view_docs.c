/* view_docs.c: the document list overlay (D), which shows where each document came from
 * and opens one.  Its state: the list's selection. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sparkplan/draw.h"
#include "sparkplan/listbox.h"
#include "sparkplan/tui.h"

struct docs_state {
    struct listbox lb;
};

static struct box docs_box(const struct tui *t)
{
    return overlay_place(74, (int)t->ws.n_docs + 2);
}

static void docs_prepare(struct tui *t, void *state)
{
    struct docs_state *d = state;
    struct box in = overlay_inside(docs_box(t));
    d->lb.n = t->ws.n_docs;
    d->lb.rows = in.h > 0 ? (size_t)in.h : 1;
    /* Once the list scrolls, the selection is on its last row (as it always was). */
    d->lb.top = d->lb.sel >= d->lb.rows ? d->lb.sel - d->lb.rows + 1 : 0;
}

static void draw_entry(const struct tui *t, size_t i, bool selected, struct box in, int y)
{
    const struct document *d = t->ws.docs[i].doc;
    enum variant v = selected ? VAR_SELECTED : VAR_PLAIN;
    struct draw_line dl;
    draw_line_start(&dl, y, in.x, in.w, 0);
    char num[32];
    snprintf(num, sizeof num, " %c%zu  ", i == t->ws.cur_doc ? '*' : ' ', i + 1);
    draw_puts(&dl, num, theme_attr(ROLE_NORMAL, v));
    draw_puts(&dl, d->name, theme_attr(ROLE_TITLE, v)); /* sanitized by draw */
    char info[96];
    const char *format = d->first_plan ? d->first_plan->source.format : NULL;
    snprintf(info, sizeof info, "   %u plan%s, %zu nodes%s%s%s", d->n_plans,
             d->n_plans == 1 ? "" : "s", d->n_all_nodes, t->ws.docs[i].owned ? " (pasted)" : "",
             format ? ", " : "", format ? format : "");
    draw_puts(&dl, info, theme_attr(ROLE_SUMMARY, v));
    /* Its diff tabs (=), by label: "diffs: =2:Physical". */
    const struct doc_view *dv = &t->ws.docs[i];
    for (size_t k = 0, n = 0; k < dv->n_tabs; k++)
        if (dv->tabs[k].kind == SUBJECT_DIFF) {
            draw_puts(&dl, n++ ? " " : ", diffs: ", theme_attr(ROLE_SUMMARY, v));
            draw_puts(&dl, dv->tabs[k].label, theme_attr(ROLE_SUMMARY, v));
        }
    draw_fill(&dl, theme_attr(ROLE_NORMAL, v));
    draw_cut_marker(&dl, theme_attr(ROLE_CUT, v));
}

static void docs_draw(const struct tui *t, const void *state)
{
    static const char *const titles[] = {"Documents (Enter opens, q closes)", "Documents",
                                         NULL};
    const struct docs_state *d = state;
    struct box in = overlay_draw(t, docs_box(t), titles);
    for (size_t r = 0; r < d->lb.rows && d->lb.top + r < t->ws.n_docs; r++)
        draw_entry(t, d->lb.top + r, d->lb.top + r == d->lb.sel, in, in.y + (int)r);
}

static int docs_key(struct tui *t, void *state, enum key_action a,
                    const struct input_event *ev)
{
    (void)ev;
    struct docs_state *d = state;
    switch (a) {
    case KA_L_OPEN:
        t->ws.cur_doc = d->lb.sel;
        return RE_POP | RE_FOCUS_TREE | RE_DRAW | RE_LAYOUT | RE_FULL;
    case KA_L_CLOSE:
        return RE_POP | RE_DRAW | RE_FULL;
    default: {
        long delta = listbox_delta(&d->lb, a);
        if (!delta)
            return RE_NONE;
        listbox_move(&d->lb, delta);
        return RE_DRAW;
    }
    }
}

static void *docs_open(struct tui *t)
{
    struct docs_state *d = calloc(1, sizeof *d);
    if (d) {
        d->lb.n = t->ws.n_docs;
        d->lb.sel = t->ws.cur_doc;
        d->lb.rows = 1;
        docs_prepare(t, d);
    }
    return d;
}

static void docs_close(struct tui *t, void *state)
{
    (void)t;
    free(state);
}

const struct view_ops view_docs = {
    .name = "docs",
    .layer = LAYER_OVERLAY,
    .keys = KCTX_DOCS,
    .open = docs_open,
    .close = docs_close,
    .prepare = docs_prepare,
    .draw = docs_draw,
    .key = docs_key,
};
