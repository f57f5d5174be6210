/* ui.c: the explorer's loop (see tui.h and view.h): input → the view on top of the stack
 * (or the focused pane) → its reaction → one draw of the stack and one doupdate per turn.
 * Owns the stack, the focus, the header and the status line; the documents, tabs, jumps
 * and searches are the workspace's (workspace.c), the panes and prompts the views'. */
#include "sparkplan/ui.h"

#include <curses.h>
#include <errno.h>
#include <locale.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sparkplan/clip.h"
#include "sparkplan/draw.h"
#include "sparkplan/evapps.h"
#include "sparkplan/evview.h"
#include "sparkplan/loadjob.h"
#include "sparkplan/opclass.h"
#include "sparkplan/sanitize.h"
#include "sparkplan/settings.h"
#include "sparkplan/term.h"
#include "sparkplan/tui.h"

/* ---- documents ---------------------------------------------------------------------- */

/* ---- the view stack ------------------------------------------------------------------ */

static const struct view_ops *ops_of(const struct view_slot *v)
{
    return view_registry[v->id];
}

/* Opens view id above the stack; false when it cannot (its open said why). */
static bool push_view(struct tui *t, enum view_id id)
{
    if (t->depth == VIEW_STACK_MAX)
        return false;
    const struct view_ops *ops = view_registry[id];
    void *state = ops->open ? ops->open(t) : NULL;
    if (ops->open && !state)
        return false;
    t->stack[t->depth++] = (struct view_slot){id, state};
    return true;
}

static void pop_view(struct tui *t)
{
    struct view_slot *v = &t->stack[--t->depth];
    if (ops_of(v)->close)
        ops_of(v)->close(t, v->state);
}

/* The overlay on top of the stack, or NULL. */
static struct view_slot *top_overlay(struct tui *t)
{
    if (t->depth == 0 || ops_of(&t->stack[t->depth - 1])->layer != LAYER_OVERLAY)
        return NULL;
    return &t->stack[t->depth - 1];
}

static bool stack_has(const struct tui *t, enum view_id id)
{
    for (size_t i = 0; i < t->depth; i++)
        if (t->stack[i].id == id)
            return true;
    return false;
}

/* The pane that has the focus (the tree or the details). */
static struct view_slot *focused_pane(struct tui *t)
{
    enum view_id want = t->focus == FOCUS_DETAILS ? VIEW_DETAILS : VIEW_TREE;
    for (size_t i = 0; i < t->depth; i++)
        if (t->stack[i].id == want)
            return &t->stack[i];
    return &t->stack[0];
}

static int switch_app(struct tui *t);

/* Does what a view's reaction asks of the loop; returns the flags left for the loop's
 * turn (drawing, quitting). */
static int react(struct tui *t, struct view_slot *from, int re)
{
    if (re & RE_SWITCH_APP)
        return switch_app(t);
    if (re & RE_POP && from && from == &t->stack[t->depth - 1])
        pop_view(t);
    if (re & RE_FOCUS_TREE)
        t->focus = FOCUS_TREE;
    if (re & RE_FOCUS_DETAILS)
        t->focus = FOCUS_DETAILS;
    int pushed = RE_PUSHED(re);
    if (pushed >= 0 && pushed < VIEW_COUNT)
        push_view(t, (enum view_id)pushed);
    return re & (RE_DRAW | RE_LAYOUT | RE_FULL | RE_QUIT | RE_SUSPEND);
}

/* ---- header and status -------------------------------------------------------------- */

/* The document's name as the header can show it beside the active tab (room columns):
 * whole, else its last path component, else that cut from the left behind "…". */
static struct slice header_name(const char *name, int room, bool *cut)
{
    struct slice s = slice_cstr(name);
    *cut = false;
    if (draw_width(s, true) <= room)
        return s;
    const char *base = strrchr(name, '/');
    if (base && base[1])
        s = slice_cstr(base + 1);
    while (s.len > 1 && draw_width(s, true) > room - 1) { /* bounded by the name */
        s.ptr++, s.len--;
        while (s.len > 1 && ((unsigned char)*s.ptr & 0xC0) == 0x80)
            s.ptr++, s.len--;
        *cut = true;
    }
    return s;
}

static void draw_header(const struct tui *t)
{
    const struct doc_view *dv = &t->ws.docs[t->ws.cur_doc];
    struct draw_line dl;
    attr_t hdr = theme_attr(ROLE_HEADER, VAR_PLAIN);
    draw_line_start(&dl, 0, 0, COLS, 0);
    draw_puts(&dl, " ", hdr);
    char n[32] = "";
    if (t->ws.n_docs > 1)
        snprintf(n, sizeof n, " [%zu/%zu]", t->ws.cur_doc + 1, t->ws.n_docs);
    /* The active tab stays on screen: the name gives way first. */
    int active_w = draw_width(slice_cstr(dv->tabs[dv->cur].label), true) + 3 +
                   (dv->cur > 0 ? 2 : 0); /* "[label] ", and "‹ " when tabs are skipped */
    int name_room = COLS - 1 - (int)strlen(n) - 2 - active_w;
    bool cut;
    struct slice name = header_name(dv->doc->name, name_room > 4 ? name_room : 4, &cut);
    if (cut)
        draw_puts(&dl, t->ws.utf8 && !t->ascii ? "\xE2\x80\xA6" : "<", hdr);
    draw_put(&dl, name, theme_attr(ROLE_STATUS_STRONG, VAR_PLAIN), true);
    if (n[0])
        draw_puts(&dl, n, hdr);
    draw_puts(&dl, "  ", hdr);
    /* Tabs: start late enough that the active one is on screen. */
    int room = COLS - dl.x;
    /* The first tab shown: the earliest from which the tabs up to the active one fit, found
       walking back from the active tab (not from the first of thousands). */
    size_t first = dv->cur < dv->n_tabs ? dv->cur : 0;
    int width_to_active = dv->cur < dv->n_tabs ? (int)strlen(dv->tabs[first].label) + 3 : 0;
    while (first > 0) {
        int w = (int)strlen(dv->tabs[first - 1].label) + 3;
        if (width_to_active + w > room)
            break;
        width_to_active += w;
        first--;
    }
    if (first > 0)
        draw_puts(&dl, t->ws.utf8 && !t->ascii ? "\xE2\x80\xB9 " : "< ", hdr);
    for (size_t i = first; i < dv->n_tabs; i++) {
        /* A full line shows no more tabs, only its cut marker: a document of 80,000
           subqueries has as many tabs, and drawing them all cost a sixth of its first frame. */
        if (dl.x >= dl.limit) {
            dl.cut = true;
            break;
        }
        bool active = i == dv->cur;
        attr_t a = theme_attr(active ? ROLE_TAB_ACTIVE : ROLE_TAB, VAR_PLAIN);
        draw_puts(&dl, active ? "[" : " ", a);
        draw_puts(&dl, dv->tabs[i].label, a);
        draw_puts(&dl, active ? "]" : " ", a);
        draw_puts(&dl, " ", hdr);
    }
    draw_fill(&dl, hdr);
    draw_cut_marker(&dl, hdr);
    if (t->L.header_h >= 2) {
        const struct tab *tab = &dv->tabs[dv->cur];
        draw_line_start(&dl, 1, 0, COLS, 0);
        draw_puts(&dl, " ", theme_attr(ROLE_SUMMARY, VAR_PLAIN));
        draw_puts(&dl, ws_tab_summary_text(tab), theme_attr(ROLE_SUMMARY, VAR_PLAIN));
        draw_fill(&dl, theme_attr(ROLE_SUMMARY, VAR_PLAIN));
        draw_cut_marker(&dl, theme_attr(ROLE_CUT, VAR_PLAIN));
    }
}

static void draw_status(const struct tui *t)
{
    const struct doc_view *dv = &t->ws.docs[t->ws.cur_doc];
    const struct tab *tab = &dv->tabs[dv->cur];
    const struct rows *r = &tab->rows;
    attr_t st = theme_attr(ROLE_STATUS, VAR_PLAIN);
    attr_t strong = theme_attr(ROLE_STATUS_STRONG, VAR_PLAIN);
    struct draw_line dl;
    draw_line_start(&dl, t->L.status_y, 0, COLS, 0);
    /* Right side first, so the left side knows how much room it has. */
    char right[128] = "";
    size_t len = 0;
    if (r->pattern && !stack_has(t, VIEW_WALK)) {  /* the walk's own counter is in the message */
        size_t i = rows_match_index(r);
        /* The section the matches are in: a search goes on into other sections. */
        if (i)
            len += (size_t)snprintf(right + len, sizeof right - len, "[%zu/%zu \xC2\xB7 %.20s] ",
                                    i, r->n_matches, tab->label);
        else
            len += (size_t)snprintf(right + len, sizeof right - len, "[-/%zu \xC2\xB7 %.20s] ",
                                    r->n_matches, tab->label);
    }
    const char *busy = t->ws.loading ? (t->ws.utf8 ? "loading\xE2\x80\xA6" : "loading...")
                       : !jobs_analysing(&t->ws.jobs, dv->doc) ? NULL
                       : t->ws.utf8                            ? "analysing\xE2\x80\xA6"
                                                               : "analysing...";
    if (busy)
        len += (size_t)snprintf(right + len, sizeof right - len, "%s  ", busy);
    bool walking = stack_has(t, VIEW_WALK); /* its message leads: counter and keys */
    /* The section by name, from 60 columns (narrower, the header's active tab says it;
     * a search counter says it already). */
    bool named = COLS >= 60 && !(r->pattern && !walking);
    if (r->sel && !walking && t->ws.loading) /* the preview's count is not the document's */
        len += (size_t)snprintf(right + len, sizeof right - len, "%.24s%s%u/%s  ",
                                named ? tab->label : "", named ? " \xC2\xB7 " : "",
                                plan_node_preorder(r->sel) - r->begin + 1,
                                t->ws.utf8 ? "\xE2\x80\xA6" : "...");
    else if (r->sel && !walking)
        len += (size_t)snprintf(right + len, sizeof right - len, "%.24s%s%u/%u  ",
                                named ? tab->label : "", named ? " \xC2\xB7 " : "",
                                plan_node_preorder(r->sel) - r->begin + 1, r->end - r->begin);
    snprintf(right + len, sizeof right - len, "?:help ");
    int right_w = 0;
    for (const char *p = right; *p; p++) /* columns: UTF-8 continuation bytes take none */
        right_w += ((unsigned char)*p & 0xC0) != 0x80;

    draw_line_start(&dl, t->L.status_y, 0, COLS - right_w, 0);
    draw_puts(&dl, " ", st);
    if (r->sel && !walking) {
        const struct plan_node *n = r->sel;
        struct slice w = op_word(n);
        draw_put(&dl, w, strong, true);
        char extra[48] = "";
        size_t e = 0;
        if (n->id >= 0)
            e += (size_t)snprintf(extra + e, sizeof extra - e, " (%d)", n->id);
        char label[16];
        if (n->stage >= 0 && tui_stage_known(t, n))
            e += (size_t)snprintf(extra + e, sizeof extra - e, "  stage %s",
                                  tree_stage_label(n, label, sizeof label));
        draw_puts(&dl, extra, st);
    }
    if (t->ws.msg[0]) {
        if (!walking)
            draw_puts(&dl, "  ", st);
        draw_puts(&dl, t->ws.msg, t->ws.msg_error ? theme_attr(ROLE_ERROR, VAR_PLAIN) : strong);
    }
    draw_fill(&dl, st);
    draw_cut_marker(&dl, st);
    draw_line_start(&dl, t->L.status_y, COLS - right_w, right_w, 0);
    draw_puts(&dl, right, st);
}

/* The longest notice that fits whole: a cut one ("terminal t") says nothing. */
static void draw_too_small(void)
{
    erase();
    static const char *const notices[] = {"terminal too small", "too small", "small", "!"};
    size_t i = 0;
    while (i + 1 < sizeof notices / sizeof notices[0] && (int)strlen(notices[i]) > COLS)
        i++;
    int len = (int)strlen(notices[i]);
    struct draw_line dl;
    int y = LINES / 2, x = COLS > len ? (COLS - len) / 2 : 0;
    draw_line_start(&dl, y, x, COLS - x, 0);
    draw_puts(&dl, notices[i], A_BOLD);
}

/* The stack from the bottom up: each view settles what it draws, then draws. */
static void draw_all(struct tui *t)
{
    if (t->L.too_small) {
        draw_too_small();
        return;
    }
    for (size_t i = 0; i < t->depth; i++) {
        const struct view_ops *ops = view_registry[t->stack[i].id];
        if (ops->prepare)
            ops->prepare(t, t->stack[i].state);
    }
    draw_header(t);
    for (size_t i = 0; i < t->depth; i++) {
        const struct view_ops *ops = view_registry[t->stack[i].id];
        if (ops->layer != LAYER_OVERLAY && ops->draw)
            ops->draw(t, t->stack[i].state);
    }
    draw_status(t);
    for (size_t i = 0; i < t->depth; i++) {
        const struct view_ops *ops = view_registry[t->stack[i].id];
        if (ops->layer == LAYER_OVERLAY && ops->draw)
            ops->draw(t, t->stack[i].state);
    }
}

/* ---- search in slices ------------------------------------------------------------- */

/* ---- keys ------------------------------------------------------------------------------ */

static int switch_tab(struct tui *t, int dir)
{
    struct doc_view *dv = ws_doc(&t->ws);
    dv->cur = (dv->cur + dv->n_tabs + (size_t)(dir > 0 ? 1 : dv->n_tabs - 1)) % dv->n_tabs;
    ws_tab(&t->ws);
    return RE_DRAW | RE_LAYOUT;
}

/* } and {: the next or previous open document, round the list. */
static int switch_doc(struct tui *t, int dir)
{
    if (t->ws.n_docs < 2) {
        ws_message(&t->ws, false, "only one document is open");
        return RE_DRAW;
    }
    t->ws.cur_doc = (t->ws.cur_doc + t->ws.n_docs + (size_t)(dir > 0 ? 1 : t->ws.n_docs - 1)) % t->ws.n_docs;
    ws_tab(&t->ws);
    ws_message(&t->ws, false, "document %zu/%zu: %.120s", t->ws.cur_doc + 1, t->ws.n_docs,
                ws_doc(&t->ws)->doc->name);
    return RE_FOCUS_TREE | RE_DRAW | RE_LAYOUT | RE_FULL;
}

/* The loop's own keys: what the focused pane left. */
static int global_key(struct tui *t, enum key_action a)
{
    switch (a) {
    case KA_NEXT_SECTION:
        return switch_tab(t, 1);
    case KA_PREV_SECTION:
        return switch_tab(t, -1);
    case KA_BACK:
        ws_go_back(&t->ws);
        return RE_DRAW | RE_LAYOUT;
    case KA_DOCS:
        return RE_PUSH(VIEW_DOCS) | RE_DRAW;
    case KA_QUERIES:
        return RE_PUSH(VIEW_QUERIES) | RE_DRAW;
    case KA_PICKER:
    case KA_DIFF:
        t->picker_compare = a == KA_DIFF;
        return RE_PUSH(VIEW_PICKER) | RE_DRAW;
    case KA_NEXT_DOC:
    case KA_PREV_DOC:
        return switch_doc(t, a == KA_NEXT_DOC ? 1 : -1);
    case KA_APPS:
        return RE_PUSH(VIEW_APPS) | RE_DRAW;
    case KA_HELP:
        return RE_PUSH(VIEW_HELP) | RE_DRAW;
    case KA_PASTE:
        return RE_PUSH(VIEW_PASTE) | RE_DRAW;
    case KA_GOTO:
        return RE_PUSH(VIEW_GOTO) | RE_DRAW;
    case KA_SEARCH:
        return RE_PUSH(VIEW_SEARCH) | RE_DRAW;
    case KA_DIFF_AQE:
        t->diff_aqe = true;
        return RE_PUSH(VIEW_DIFF) | RE_DRAW | RE_FULL;
    case KA_THEME: {
        const char *name = theme_next();
        settings_theme_chosen(); /* a late answer of the terminal no longer changes it */
        ws_message(&t->ws, false, "theme: %s", name);
        settings_save(t, "theme", name);
        return RE_DRAW | RE_FULL;
    }
    case KA_COPY:
    case KA_COPY_TREE:
    case KA_PIPE:
        return clip_key(t, a);
    case KA_ZOOM:
    case KA_GROW:
    case KA_SHRINK:
        return settings_split_key(t, a);
    case KA_REDRAW:
        return RE_DRAW | RE_FULL | RE_LAYOUT;
    case KA_SUSPEND:
        return RE_SUSPEND;
    case KA_QUIT:
        return RE_QUIT;
    case KA_DETAILS:
        t->details_gen++; /* rebuilt: the cursor starts on the first reference */
        return RE_FOCUS_DETAILS | RE_DRAW | RE_LAYOUT;
    default:
        return RE_NONE;
    }
}

/* A paste event: to the view on top when it takes pastes (a prompt), else it closes the
 * overlays and opens as a new document. */
static int paste_event(struct tui *t, const struct input_event *ev)
{
    struct view_slot *v = top_overlay(t);
    if (v && ops_of(v)->paste) {
        int re = ops_of(v)->paste(t, v->state, ev->paste, ev->paste_len, ev->paste_dropped);
        free(ev->paste);
        return react(t, v, re & ~RE_PASS);
    }
    if (!ev->paste)
        return RE_DRAW;
    while (top_overlay(t)) /* a paste replaces whatever was open (a walk ends) */
        pop_view(t);
    char closed[sizeof t->ws.msg]; /* what the views closed said ("walk ended") */
    snprintf(closed, sizeof closed, "%s", t->ws.msg);
    bool opened = ws_open_paste(&t->ws, ev->paste, ev->paste_len, ev->paste_dropped,
                                input_paste_max()); /* takes the bytes */
    if (closed[0]) {
        char said[sizeof t->ws.msg];
        snprintf(said, sizeof said, "%s", t->ws.msg);
        ws_message(&t->ws, t->ws.msg_error, "%s; %s", said, closed);
    }
    if (!opened)
        return RE_DRAW;
    return react(t, NULL, RE_FOCUS_TREE | RE_DRAW | RE_LAYOUT | RE_FULL);
}

static bool in_area(int y, int x, struct view_area a)
{
    return y >= a.y && y < a.y + a.h && x >= a.x && x < a.x + a.w;
}

/* A click or the wheel: to the pane under it, the split first. */
static int mouse_event(struct tui *t, const struct input_event *ev)
{
    for (size_t i = t->depth; i-- > 0;) {
        struct view_slot *v = &t->stack[i];
        const struct view_ops *ops = ops_of(v);
        if (ops->layer == LAYER_OVERLAY || !ops->area || !in_area(ev->line, ev->col, ops->area(t)))
            continue;
        int re = ops->key(t, v->state, keys_lookup(ops->keys, ev->name), ev);
        return react(t, v, re & ~RE_PASS) | RE_LAYOUT;
    }
    return RE_NONE;
}

/* A key: to the overlay on top (which takes every key), else to the focused pane, then
 * the loop's own keys. */
static int key_event(struct tui *t, const struct input_event *ev)
{
    struct view_slot *v = top_overlay(t);
    if (v) {
        const struct view_ops *ops = ops_of(v);
        int re = ops->key(t, v->state, keys_lookup(ops->keys, ev->name), ev);
        return react(t, v, re & ~RE_PASS);
    }
    if (t->L.too_small) {
        enum key_action a = keys_lookup(KCTX_TREE, ev->name);
        return a == KA_QUIT ? RE_QUIT : a == KA_SUSPEND ? RE_SUSPEND : RE_NONE;
    }
    if (ev->kind == IN_MOUSE)
        return mouse_event(t, ev);
    v = focused_pane(t);
    const struct view_ops *ops = ops_of(v);
    enum key_action a = keys_lookup(ops->keys, ev->name);
    if (a == KA_NONE)
        return RE_NONE;
    int re = ops->key(t, v->state, a, ev);
    if (re & RE_PASS)
        re = global_key(t, a);
    return react(t, v, re);
}

static int handle_event(struct tui *t, const struct input_event *ev)
{
    t->ws.msg[0] = '\0';
    jobs_forget_key(&t->ws.jobs); /* a ! f F waiting for the findings gives way to any later key */
    if (ev->kind == IN_PASTE)
        return paste_event(t, ev);
    return key_event(t, ev);
}

/* ---- background work --------------------------------------------------------------------- */

/* What the analysis jobs report: findings in (summaries, gutter, details), and a ! f F
 * pressed meanwhile, given to the tree now unless something else took the keys. */
static int take_news(struct tui *t, const struct jobs_news *news, bool collected)
{
    if (news->n_done == 0 && !news->error[0])
        return RE_NONE;
    ws_take_news(&t->ws, news);
    if (news->n_done) { /* the gutter's marks and the details follow the findings */
        decor_forget(t);
        t->details_rev++; /* where the details were read (Enter G) stays */
    }
    if (!collected)
        return RE_DRAW | RE_LAYOUT;
    enum key_action pending = t->ws.jobs.pending;
    bool here = t->ws.jobs.pending_doc == ws_doc(&t->ws)->doc;
    jobs_forget_key(&t->ws.jobs);
    int re = RE_DRAW | RE_LAYOUT;
    if (pending == KA_NONE)
        return re;
    t->ws.msg[0] = '\0'; /* "still analysing": no longer */
    if (here && !top_overlay(t))
        re |= react(t, &t->stack[0], tree_insight_key(t, pending) & ~RE_PASS);
    return re;
}

static int collect_jobs(struct tui *t)
{
    struct jobs_news news = {0};
    jobs_collect(&t->ws.jobs, ws_doc(&t->ws)->doc, &news);
    if (news.n_done == 0 && !news.error[0])
        return RE_NONE;
    return take_news(t, &news, true);
}

/* The shown document's analysis is asked for before each layout (never by the layout). */
static int ask_analysis(struct tui *t)
{
    struct jobs_news news = {0};
    jobs_ask(&t->ws.jobs, ws_doc(&t->ws)->doc, ws_doc(&t->ws)->doc, &news);
    return take_news(t, &news, false);
}

/* ---- the loop ----------------------------------------------------------------------------- */

static void free_state(struct tui *t)
{
    for (size_t i = 0; i < t->n_queued; i++) /* keys that waited for a load never done */
        if (t->queued[i].kind == IN_PASTE)
            free(t->queued[i].paste);
    t->n_queued = 0;
    jobs_free(&t->ws.jobs); /* first: it stops the analysis thread, which reads the documents */
    while (t->depth > 0)
        pop_view(t);
    ws_free(&t->ws);
    decor_free(t);
}

/* The workspace's hook: a jump is about to select a node in tab (now current), so the
 * rows fit the screen before it is centred. */
static void fit_shown(void *ctx, struct tab *tab)
{
    (void)tab;
    tui_layout(ctx);
}

/* An event log: each query's document is its final plan; its earlier plan versions (the
 * start plan, each AQE update) become tabs of it, "Start", "Update 1", ... */
static bool add_plan_versions(struct tui *t)
{
    for (size_t d = 0; d < t->ws.n_docs; d++) {
        const struct evview_doc *vd = evview_find(t->ev, t->ws.docs[d].doc);
        if (!vd)
            continue;
        const struct ev_exec *e = vd->exec;
        uint32_t app = t->apps ? (uint32_t)t->apps->list->current : 0;
        for (size_t j = 0; j < t->ws.docs[d].n_tabs; j++) { /* the final plan's own tabs */
            t->ws.docs[d].tabs[j].app = app;
            t->ws.docs[d].tabs[j].exec = (uint32_t)(e - t->ev->app->execs);
        }
        for (size_t k = 0; k + 1 < e->n_plans; k++) {
            const struct ev_plan *p = &e->plans[k];
            if (!p->doc || !p->section)
                continue;
            char label[48];
            if (k == 0)
                snprintf(label, sizeof label, "Start");
            else
                snprintf(label, sizeof label, "Update %zu", k);
            struct tab *tab = ws_add_subject(&t->ws.docs[d], SUBJECT_PLAN_VERSION,
                                             (struct plan_section *)p->section, NULL, label);
            if (!tab)
                return false;
            tab->app = app;
            tab->exec = (uint32_t)(e - t->ev->app->execs);
            tab->version = (uint32_t)k;
        }
    }
    return true;
}

/* The terminal could not be opened: put back what was touched, say why (err may quote
 * TERM: sanitized), exit status 1. */
static int no_terminal(const char *err)
{
    term_close();
    fputs("sparkplan: ", stderr);
    sanitize_fwrite(stderr, slice_cstr(err));
    fputc('\n', stderr);
    return 1;
}

/* The documents (an event log: its queries' final plans, their other versions as tabs)
 * and the views the explorer opens on; 0, else the exit status (a message printed). */
static int show_documents(struct tui *t, struct document **docs, size_t n_docs)
{
    t->ws.show = fit_shown;
    t->ws.show_ctx = t;
    for (size_t i = 0; i < n_docs; i++)
        if (!ws_add_document(&t->ws, docs[i], false)) {
            fputs("sparkplan: ", stderr);
            sanitize_fwrite(stderr, slice_cstr(docs[i]->name));
            fputs(": nothing to show\n", stderr);
            return 2;
        }
    if (t->ws.n_docs == 0) {
        fprintf(stderr, "sparkplan: no plan to show\n");
        return 2;
    }
    if (t->ev && !add_plan_versions(t)) {
        fprintf(stderr, "sparkplan: out of memory\n");
        return 1;
    }
    if (!push_view(t, VIEW_TREE) || !push_view(t, VIEW_DETAILS) ||
        (t->ev && !push_view(t, VIEW_QUERIES))) {
        fprintf(stderr, "sparkplan: out of memory\n");
        return 1;
    }
    return 0;
}

/* The application list loaded another application (t->app_next): the workspace and the
 * views of the one shown are let go, the caller frees it (swap), the new one opens on its
 * query list. */
static int switch_app(struct tui *t)
{
    bool utf8 = t->ws.utf8;
    char msg[sizeof t->ws.msg];
    memcpy(msg, t->ws.msg, sizeof msg);
    while (t->depth > 0)
        pop_view(t);
    ws_free(&t->ws); /* stops the analysis thread first */
    decor_free(t);
    memset(&t->trace, 0, sizeof t->trace);
    ws_init(&t->ws);
    t->ws.utf8 = utf8;
    t->apps->swap(t->apps->ctx);
    t->ev = t->app_next.ev;
    t->focus = FOCUS_TREE;
    t->details_gen++;
    if (show_documents(t, t->app_next.docs, t->app_next.n_docs) != 0)
        return RE_QUIT; /* out of memory: nothing left to show */
    memcpy(t->ws.msg, msg, sizeof msg);
    return RE_DRAW | RE_LAYOUT | RE_FULL;
}

/* The documents, the terminal, the options and the two panes; non-zero (err set, or a
 * message printed) when there is nothing to show or no terminal. */
static int start(struct tui *t, struct document **docs, size_t n_docs,
                 const struct ui_options *opts, char *err, size_t errcap)
{
    t->ev = opts ? opts->ev : NULL;
    t->apps = opts ? opts->apps : NULL;
    t->loading = opts ? opts->loading : NULL;
    t->ws.loading = t->loading != NULL;
    t->metrics_col = true;
    int status = show_documents(t, docs, n_docs);
    if (status != 0)
        return status;
    if (t->apps && !push_view(t, VIEW_APPS)) {
        fprintf(stderr, "sparkplan: out of memory\n");
        return 1;
    }
    settings_load(t);
    if (!term_open(opts && opts->tty_from_dev, err, errcap))
        return no_terminal(err);
    const char *nc = getenv("NO_COLOR");
    bool colours = !(opts && opts->no_color) && !(nc && *nc);
    if (!input_open(term_fd(), term_utf8(), err, errcap))
        return no_terminal(err);
    const char *why = "";
    const char *theme = colours ? settings_theme(t, opts, &why) : "mono";
    if (!term_start_screen(err, errcap))
        return no_terminal(err);
    t->ws.utf8 = term_utf8();
    t->ascii = (opts && opts->ascii) || (settings()->has_ascii && settings()->ascii) ||
               !t->ws.utf8;
    t->explain = settings()->has_explain && settings()->explain;
    t->split_pct = settings()->has_split ? settings()->split : 0;
    t->stage_hl = true;
    draw_set_utf8(t->ws.utf8);
    if (!theme_init(theme, colours))
        ws_message(&t->ws, true, "unknown theme '%s': using dark", theme);
    settings_ask_terminal(); /* its answer is applied when it comes: nothing waits for it */
    term_modes(true);
    return 0;
}

/* Draws the frame the flags ask for (layout first); nothing is written while the screen
 * is left (suspended, or continued in the background). */
static void frame(struct tui *t, int flags)
{
    if (flags & RE_LAYOUT) {
        /* A diff tab shows through the diff view (picked, Tab, the history, ...). */
        if (ws_tab(&t->ws)->kind == SUBJECT_DIFF && !stack_has(t, VIEW_DIFF)) {
            t->diff_aqe = false;
            const struct tab *dt = ws_tab_c(&t->ws);
            if (!push_view(t, VIEW_DIFF) && dt->a_doc < t->ws.n_docs) { /* back to side A */
                t->ws.cur_doc = dt->a_doc;
                t->ws.docs[dt->a_doc].cur = dt->a_tab;
                ws_tab(&t->ws);
            }
            flags |= RE_DRAW | RE_FULL;
        }
        if (!t->loading) /* a preview is not analysed: the whole document will be */
            flags |= ask_analysis(t);
        tui_layout(t);
    }
    if (flags & RE_FULL)
        clearok(curscr, TRUE);
    if ((flags & (RE_DRAW | RE_LAYOUT | RE_FULL)) && term_shown()) {
        draw_all(t);
        wnoutrefresh(stdscr);
        doupdate();
    }
}

/* Signals: quit, suspend, resize, continued (the screen again only in the foreground). */
static int take_signals(bool *quit)
{
    unsigned sig = term_take_signals();
    int flags = 0;
    if (sig & TERM_SIG_QUIT)
        *quit = true;
    if (sig & TERM_SIG_SUSPEND)
        flags |= RE_SUSPEND;
    if ((sig & TERM_SIG_CONT) && !term_resume())
        sig = 0; /* continued in the background: nothing to draw until fg */
    if (sig & (TERM_SIG_RESIZE | TERM_SIG_CONT)) {
        term_resize();
        flags |= RE_LAYOUT | RE_DRAW | RE_FULL;
    }
    return flags;
}

/* An event: handled, or while the whole document loads kept for it (a key on the preview
 * would act on a cut tree: G, a search, a count), but for quit, suspend and redraw. */
static int take_event(struct tui *t, struct input_event *ev)
{
    if (!t->loading)
        return handle_event(t, ev);
    if (ev->kind == IN_KEY) {
        enum key_action a = keys_lookup(KCTX_TREE, ev->name);
        if (a == KA_QUIT)
            return RE_QUIT;
        if (a == KA_SUSPEND)
            return RE_SUSPEND;
        if (a == KA_REDRAW)
            return RE_DRAW | RE_FULL | RE_LAYOUT;
    }
    if (t->n_queued < sizeof t->queued / sizeof t->queued[0])
        t->queued[t->n_queued++] = *ev;
    else if (ev->kind == IN_PASTE) /* more than a person types in a load: let go */
        free(ev->paste);
    return RE_NONE;
}

/* The whole document is in: it takes the preview's place (the same first screen, now with
 * its counts, stages and details), then the keys that waited for it are done.  A load that
 * failed ends the explorer: the caller says why. */
static int take_whole_document(struct tui *t, bool *quit)
{
    struct document *doc = NULL;
    enum sp_status s = loadjob_finish(t->loading, &doc, NULL);
    t->loading = NULL;
    if (s != SP_OK || !doc) {
        *quit = true;
        return RE_NONE;
    }
    bool utf8 = t->ws.utf8;
    char msg[sizeof t->ws.msg];
    bool msg_error = t->ws.msg_error;
    memcpy(msg, t->ws.msg, sizeof msg);
    while (t->depth > 0)
        pop_view(t);
    ws_free(&t->ws); /* the preview's tabs (no analysis ran on it) */
    decor_free(t);
    ws_init(&t->ws);
    t->ws.utf8 = utf8;
    t->details_gen++;
    if (show_documents(t, &doc, 1) != 0) { /* out of memory (said): nothing to show */
        *quit = true;
        return RE_NONE;
    }
    memcpy(t->ws.msg, msg, sizeof msg);
    t->ws.msg_error = msg_error;
    frame(t, RE_DRAW | RE_LAYOUT); /* the rows fit the screen before the keys move them */
    int flags = RE_DRAW | RE_LAYOUT;
    size_t i = 0;
    for (; i < t->n_queued && !(flags & RE_QUIT); i++)
        flags |= handle_event(t, &t->queued[i]);
    for (; i < t->n_queued; i++) /* after a quit */
        if (t->queued[i].kind == IN_PASTE)
            free(t->queued[i].paste);
    t->n_queued = 0;
    if (flags & RE_QUIT)
        *quit = true;
    return flags;
}

/* One turn: wait for input (or do a slice of background work), handle what came. */
static int turn(struct tui *t, int *timeout, bool *quit)
{
    int flags = 0;
    /* The third: the analysis thread says it is done (-1, ignored, when none runs). */
    /* The fourth: an application list's brief came in (-1 when none is being read). */
    /* The fifth: the whole document is in (-1 when nothing loads). */
    struct pollfd pfd[5] = {{term_fd(), POLLIN, 0}, {term_signal_fd(), POLLIN, 0},
                            {jobs_wake_fd(&t->ws.jobs), POLLIN, 0},
                            {t->apps ? evapps_wake_fd(t->apps->list) : -1, POLLIN, 0},
                            {loadjob_wake_fd(t->loading), POLLIN, 0}};
    /* A search still reading the text goes on between keys, unless a key is half read
     * (libtermkey waits to tell Escape from a sequence). */
    bool searching = t->ws.search_tab && *timeout < 0;
    bool indexing = !searching && *timeout < 0 && ws_background_tab(&t->ws);
    int n = poll(pfd, 5, searching || indexing ? 0 : *timeout);
    if (n < 0 && errno == EINTR)
        return 0;
    struct input_event ev;
    if (n == 0 && searching)
        flags |= tui_search_run(t);
    else if (n == 0 && indexing)
        flags |= tui_index_slice(t);
    else if (n == 0 && input_force(&ev))
        flags |= take_event(t, &ev);
    if (pfd[2].revents & POLLIN)
        flags |= collect_jobs(t);
    if (pfd[3].revents & POLLIN) {
        evapps_drain(t->apps->list);
        flags |= RE_DRAW;
    }
    if (pfd[1].revents & POLLIN)
        flags |= take_signals(quit);
    bool eof = false;
    if (pfd[0].revents & (POLLIN | POLLHUP | POLLERR))
        input_readable();
    while (!*quit && input_next(&ev, &eof)) {
        flags |= take_event(t, &ev);
        if (flags & RE_QUIT)
            *quit = true;
    }
    flags |= settings_terminal_answer(t);
    if ((pfd[4].revents & POLLIN) && !*quit)
        flags |= take_whole_document(t, quit);
    if (eof || (flags & RE_QUIT) ||
        ((pfd[0].revents & (POLLHUP | POLLERR)) && !(pfd[0].revents & POLLIN)))
        *quit = true;
    *timeout = input_wait_ms();
    if (flags & RE_DRAW)
        flags |= RE_LAYOUT; /* cheap, and keeps the rows' height in step */
    return flags;
}

int ui_run(struct document **docs, size_t n_docs, const struct ui_options *opts)
{
    static struct tui t; /* one explorer per process; static keeps it off the stack */
    char err[256] = "";
    memset(&t, 0, sizeof t);
    setlocale(LC_ALL, ""); /* the wide-character curses and the codeset need it */
    int status = start(&t, docs, n_docs, opts, err, sizeof err);
    if (status != 0) {
        free_state(&t);
        return status;
    }
    int flags = RE_DRAW | RE_LAYOUT;
    int timeout = -1;
    bool quit = false;
    jobs_hold(&t.ws.jobs); /* the first frame comes before the analysis */
    struct pollfd tty = {term_fd(), POLLIN, 0};
    if (poll(&tty, 1, 0) > 0) { /* the terminal answered already: no flash of the default */
        input_readable();
        flags |= settings_terminal_answer(&t);
    }
    frame(&t, flags);
    flags = 0;
    if (!t.loading) { /* a preview's jobs stay held: the whole document's replace them */
        struct jobs_news news = {0};
        jobs_release(&t.ws.jobs, ws_doc(&t.ws)->doc, &news);
        flags = take_news(&t, &news, false); /* no thread: the findings were made in place */
    }
    while (!quit) {
        if (flags & RE_SUSPEND) {
            term_suspend();
            flags |= RE_DRAW | RE_LAYOUT | RE_FULL;
        }
        frame(&t, flags);
        flags = turn(&t, &timeout, &quit);
    }
    term_close();
    free_state(&t);
    int sig = term_quit_signal(); /* 130, 143, 129: a script can tell */
    return sig ? 128 + sig : 0;
}
