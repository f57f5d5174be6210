/* view_queries.c: an event log's SQL queries, the overlay the explorer opens on (and Q
 * opens again), like the Spark UI's SQL tab: id, duration, status, jobs, the operator that
 * took most time, description; s sorts by duration or id, Enter opens the query (its final
 * plan; the other plan versions are its tabs).  Its state: the rows (evrows.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sparkplan/draw.h"
#include "sparkplan/evrows.h"
#include "sparkplan/evview.h"
#include "sparkplan/listbox.h"
#include "sparkplan/tui.h"

struct queries_state {
    struct evrows rows;
    struct listbox lb;
};

static struct box queries_box(const struct tui *t, const struct queries_state *q)
{
    (void)t;
    return overlay_place(160, (int)q->rows.n + 3); /* clipped to the screen */
}

static void queries_prepare(struct tui *t, void *state)
{
    struct queries_state *q = state;
    struct box in = overlay_inside(queries_box(t, q));
    q->lb.n = q->rows.n;
    q->lb.rows = in.h > 1 ? (size_t)in.h - 1 : 1; /* a header line */
    listbox_show_sel(&q->lb);
}

static void queries_draw(const struct tui *t, const void *state)
{
    const struct queries_state *q = state;
    char title[160];
    snprintf(title, sizeof title, "SQL queries of %s (%s; Enter opens, s sorts, q closes)",
             t->ev->app->app_id ? t->ev->app->app_id : t->ev->app->name_shown,
             q->rows.sort == EVROWS_BY_DURATION ? "longest first" : "by id");
    const char *const titles[] = {title, "SQL queries", NULL};
    struct box in = overlay_draw(t, queries_box(t, q), titles);
    char line[512];
    struct draw_line dl;
    evrows_header(line, sizeof line, (size_t)(in.w > 0 ? in.w : 0) + 64);
    draw_line_start(&dl, in.y, in.x, in.w, 0);
    draw_puts(&dl, line, theme_attr(ROLE_KEY, VAR_PLAIN));
    draw_fill(&dl, theme_attr(ROLE_NORMAL, VAR_PLAIN));
    for (size_t r = 0; r < q->lb.rows && q->lb.top + r < q->rows.n; r++) {
        size_t i = q->lb.top + r;
        enum variant v = i == q->lb.sel ? VAR_SELECTED : VAR_PLAIN;
        const struct ev_exec *e = evrows_exec(&q->rows, i);
        evrows_line(&q->rows, i, line, sizeof line, sizeof line - 1);
        draw_line_start(&dl, in.y + 1 + (int)r, in.x, in.w, 0);
        draw_puts(&dl, line, theme_attr(e->status == EV_FAILED ? ROLE_ERROR : ROLE_NORMAL, v));
        draw_fill(&dl, theme_attr(ROLE_NORMAL, v));
        draw_cut_marker(&dl, theme_attr(ROLE_CUT, v));
    }
}

/* The workspace's document of a query: its final plan, added by ui.c in query order. */
static int open_query(struct tui *t, const struct ev_exec *e)
{
    const struct ev_plan *p = ev_exec_final(e);
    for (size_t i = 0; p && i < t->ws.n_docs; i++)
        if (t->ws.docs[i].doc == p->doc) {
            ws_push_history(&t->ws);
            t->ws.cur_doc = i;
            t->ws.docs[i].cur = 0;
            ws_message(&t->ws, false, "query %lld: %zu plan version%s (Tab: the others)",
                       (long long)e->id, e->n_plans, e->n_plans == 1 ? "" : "s");
            return RE_POP | RE_FOCUS_TREE | RE_DRAW | RE_LAYOUT | RE_FULL;
        }
    ws_message(&t->ws, true, "query %lld has no plan to show", (long long)e->id);
    return RE_DRAW;
}

static int queries_key(struct tui *t, void *state, enum key_action a,
                       const struct input_event *ev)
{
    (void)ev;
    struct queries_state *q = state;
    switch (a) {
    case KA_L_OPEN:
        return q->rows.n ? open_query(t, evrows_exec(&q->rows, q->lb.sel)) : RE_NONE;
    case KA_L_CLOSE:
        return RE_POP | RE_DRAW | RE_FULL;
    case KA_APPS: /* the list it came from, in its place */
        return t->apps ? RE_POP | RE_PUSH(VIEW_APPS) | RE_DRAW | RE_FULL : RE_NONE;
    case KA_Q_SORT: {
        bool by_id = q->rows.sort == EVROWS_BY_DURATION;
        q->rows.sel = q->lb.sel;
        evrows_sort(&q->rows, by_id ? EVROWS_BY_ID : EVROWS_BY_DURATION, !by_id);
        q->lb.sel = q->rows.sel;
        listbox_show_sel(&q->lb);
        ws_message(&t->ws, false, "sorted %s", by_id ? "by id" : "by duration, longest first");
        return RE_DRAW;
    }
    default: {
        long delta = listbox_delta(&q->lb, a);
        if (!delta)
            return RE_NONE;
        listbox_move(&q->lb, delta);
        return RE_DRAW;
    }
    }
}

static void *queries_open(struct tui *t)
{
    if (!t->ev) {
        ws_message(&t->ws, false, "Q lists an event log's queries: this is a plan file");
        return NULL;
    }
    struct queries_state *q = calloc(1, sizeof *q);
    if (!q || !evrows_init(&q->rows, t->ev->app)) {
        free(q);
        ws_message(&t->ws, true, "out of memory");
        return NULL;
    }
    evrows_sort(&q->rows, EVROWS_BY_DURATION, true); /* the Spark UI's question: what was slow */
    q->lb.n = q->rows.n;
    q->lb.rows = 1;
    queries_prepare(t, q);
    return q;
}

static void queries_close(struct tui *t, void *state)
{
    (void)t;
    struct queries_state *q = state;
    if (q)
        evrows_free(&q->rows);
    free(q);
}

const struct view_ops view_queries = {
    .name = "queries",
    .layer = LAYER_OVERLAY,
    .keys = KCTX_QUERIES,
    .open = queries_open,
    .close = queries_close,
    .prepare = queries_prepare,
    .draw = queries_draw,
    .key = queries_key,
};
