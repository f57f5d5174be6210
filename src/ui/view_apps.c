/* view_apps.c: a History Server directory's applications, the overlay the explorer opens
 * on (and A opens again): id, name, Spark version, start, duration, SQL queries, filled in
 * as their briefs are read (evapps.h).  Enter reads the chosen application (ui_apps.load)
 * and asks the loop to show it (RE_SWITCH_APP), on its query list; Enter on the one shown
 * closes the list.  Its state: the list widget; the briefs are the caller's. */
#include <stdio.h>
#include <stdlib.h>

#include "sparkplan/draw.h"
#include "sparkplan/evapps.h"
#include "sparkplan/listbox.h"
#include "sparkplan/tui.h"

struct apps_state {
    struct listbox lb;
};

static size_t n_apps(const struct tui *t)
{
    return t->apps->list->src->n_apps;
}

static struct box apps_box(const struct tui *t)
{
    return overlay_place(120, (int)n_apps(t) + 3); /* clipped to the screen */
}

static void apps_prepare(struct tui *t, void *state)
{
    struct apps_state *s = state;
    struct box in = overlay_inside(apps_box(t));
    s->lb.n = n_apps(t);
    s->lb.rows = in.h > 1 ? (size_t)in.h - 1 : 1; /* a header line */
    listbox_show_sel(&s->lb);
}

static void apps_draw(const struct tui *t, const void *state)
{
    const struct apps_state *s = state;
    const struct evapps *a = t->apps->list;
    size_t ready = evapps_ready(a);
    char title[160];
    snprintf(title, sizeof title, "Applications (%zu%s; Enter opens, q closes)", n_apps(t),
             ready < n_apps(t) ? ", reading" : "");
    const char *const titles[] = {title, "Applications", NULL};
    struct box in = overlay_draw(t, apps_box(t), titles);
    char line[512];
    struct draw_line dl;
    evapps_header(line, sizeof line, sizeof line - 1);
    draw_line_start(&dl, in.y, in.x, in.w, 0);
    draw_puts(&dl, line, theme_attr(ROLE_KEY, VAR_PLAIN));
    draw_fill(&dl, theme_attr(ROLE_NORMAL, VAR_PLAIN));
    for (size_t r = 0; r < s->lb.rows && s->lb.top + r < n_apps(t); r++) {
        size_t i = s->lb.top + r;
        enum variant v = i == s->lb.sel ? VAR_SELECTED : VAR_PLAIN;
        evapps_line(a, i, line, sizeof line, sizeof line - 1);
        draw_line_start(&dl, in.y + 1 + (int)r, in.x, in.w, 0);
        bool bad = i < ready && a->failed[i];
        draw_puts(&dl, i == a->current ? "> " : "  ", theme_attr(ROLE_KEY, v));
        draw_puts(&dl, line, theme_attr(bad ? ROLE_ERROR : ROLE_NORMAL, v));
        draw_fill(&dl, theme_attr(ROLE_NORMAL, v));
        draw_cut_marker(&dl, theme_attr(ROLE_CUT, v));
    }
}

static int open_app(struct tui *t, struct apps_state *s)
{
    size_t i = s->lb.sel;
    if (i == t->apps->list->current)
        return RE_POP | RE_DRAW | RE_FULL; /* its query list is below */
    char err[256] = "";
    struct ui_app_view next = {0};
    if (!t->apps->load(t->apps->ctx, i, &next, err, sizeof err)) {
        ws_message(&t->ws, true, "%s", err);
        return RE_DRAW;
    }
    t->app_next = next;
    t->apps->list->current = i;
    t->apps->list->sel = i;
    if (next.n_warnings) /* stderr is the screen's now: the first warning, and how many */
        ws_message(&t->ws, true, "application %zu of %zu: %zu warning%s: %s", i + 1, n_apps(t),
                   next.n_warnings, next.n_warnings == 1 ? "" : "s", next.first_warning);
    else
        ws_message(&t->ws, false, "application %zu of %zu: %zu SQL quer%s with a plan", i + 1,
                   n_apps(t), next.n_docs, next.n_docs == 1 ? "y" : "ies");
    return RE_SWITCH_APP;
}

static int apps_key(struct tui *t, void *state, enum key_action a, const struct input_event *ev)
{
    (void)ev;
    struct apps_state *s = state;
    switch (a) {
    case KA_L_OPEN:
        return n_apps(t) ? open_app(t, s) : RE_NONE;
    case KA_L_CLOSE:
        t->apps->list->sel = s->lb.sel;
        return RE_POP | RE_DRAW | RE_FULL;
    default: {
        long delta = listbox_delta(&s->lb, a);
        if (!delta)
            return RE_NONE;
        listbox_move(&s->lb, delta);
        t->apps->list->sel = s->lb.sel;
        return RE_DRAW;
    }
    }
}

static void *apps_open(struct tui *t)
{
    if (!t->apps) {
        ws_message(&t->ws, false, "A lists a History Server directory's applications: "
                                  "this is not one");
        return NULL;
    }
    struct apps_state *s = calloc(1, sizeof *s);
    if (!s) {
        ws_message(&t->ws, true, "out of memory");
        return NULL;
    }
    s->lb.n = n_apps(t);
    s->lb.rows = 1;
    s->lb.sel = t->apps->list->sel < s->lb.n ? t->apps->list->sel : 0;
    apps_prepare(t, s);
    return s;
}

static void apps_close(struct tui *t, void *state)
{
    (void)t;
    free(state);
}

const struct view_ops view_apps = {
    .name = "applications",
    .layer = LAYER_OVERLAY,
    .keys = KCTX_APPS,
    .open = apps_open,
    .close = apps_close,
    .prepare = apps_prepare,
    .draw = apps_draw,
    .key = apps_key,
};
