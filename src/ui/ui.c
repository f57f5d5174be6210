/* ui.c: the explorer's loop (see tui.h and view.h): input → the view on top of the stack
 * (or the focused pane) → its reaction → one draw of the stack and one doupdate per turn.
 * Owns the stack, the focus, the header, the status line, the prompts and pastes; the
 * documents, tabs and jumps are the workspace's (workspace.c), the panes the views'. */
#include "sparkplan/ui.h"

#include <curses.h>
#include <errno.h>
#include <locale.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sparkplan/draw.h"
#include "sparkplan/load.h"
#include "sparkplan/opclass.h"
#include "sparkplan/term.h"
#include "sparkplan/tui.h"

/* ---- documents ---------------------------------------------------------------------- */

static bool add_document(struct tui *t, struct document *doc, bool owned)
{
    if (t->n_docs == t->cap_docs) {
        size_t cap = t->cap_docs ? t->cap_docs * 2 : 4;
        struct doc_view *nd = realloc(t->docs, cap * sizeof *nd);
        if (!nd)
            return false;
        t->docs = nd;
        t->cap_docs = cap;
    }
    struct doc_view *dv = &t->docs[t->n_docs];
    memset(dv, 0, sizeof *dv);
    dv->doc = doc;
    dv->owned = owned;
    if (!tui_build_tabs(dv)) {
        free(dv->tabs);
        return false;
    }
    t->n_docs++;
    return true;
}

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

/* Does what a view's reaction asks of the loop; returns the flags left for the loop's
 * turn (drawing, quitting). */
static int react(struct tui *t, struct view_slot *from, int re)
{
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

/* A paste (bracketed, or p ... Ctrl-d) becomes a new document and is shown. */
static int load_paste(struct tui *t, char *bytes, size_t len)
{
    char name[32];
    snprintf(name, sizeof name, "paste %u", t->pastes + 1);
    struct document *doc = NULL;
    struct diag err = {0};
    if (load_bytes(name, bytes, len, &doc, &err) != SP_OK) {
        tui_message(t, true, "%s: %s", name, err.message);
        return RE_DRAW;
    }
    if (!add_document(t, doc, true)) {
        document_free(doc);
        tui_message(t, true, "%s: no plan sections to show", name);
        return RE_DRAW;
    }
    t->pastes++;
    tui_push_history(t);
    t->cur_doc = t->n_docs - 1;
    t->focus = FOCUS_TREE;
    while (top_overlay(t)) /* a paste replaces whatever was open */
        pop_view(t);
    if (doc->first_warning)
        tui_message(t, false, "%s: %zu nodes; %s", name, doc->n_all_nodes,
                    doc->first_warning->message);
    else
        tui_message(t, false, "%s: %zu nodes (D lists the documents)", name, doc->n_all_nodes);
    return RE_DRAW | RE_LAYOUT | RE_FULL;
}

static void paste_append(struct tui *t, const char *s, size_t n)
{
    if (t->paste_len + n > INPUT_PASTE_MAX)
        return;
    if (t->paste_len + n + 1 > t->paste_cap) {
        size_t cap = t->paste_cap ? t->paste_cap : 4096;
        while (cap < t->paste_len + n + 1)
            cap *= 2;
        char *b = realloc(t->paste_buf, cap);
        if (!b)
            return;
        t->paste_buf = b;
        t->paste_cap = cap;
    }
    memcpy(t->paste_buf + t->paste_len, s, n);
    t->paste_len += n;
}

/* ---- header and status -------------------------------------------------------------- */

static void draw_header(const struct tui *t)
{
    const struct doc_view *dv = &t->docs[t->cur_doc];
    struct draw_line dl;
    attr_t hdr = theme_attr(ROLE_HEADER, VAR_PLAIN);
    draw_line_start(&dl, 0, 0, COLS, 0);
    draw_puts(&dl, " ", hdr);
    draw_puts(&dl, dv->doc->name, theme_attr(ROLE_STATUS_STRONG, VAR_PLAIN));
    if (t->n_docs > 1) {
        char n[32];
        snprintf(n, sizeof n, " [%zu/%zu]", t->cur_doc + 1, t->n_docs);
        draw_puts(&dl, n, hdr);
    }
    draw_puts(&dl, "  ", hdr);
    /* Tabs: start late enough that the active one is on screen. */
    int room = COLS - dl.x;
    size_t first = 0;
    int width_to_active = 0;
    for (size_t i = 0; i <= dv->cur && i < dv->n_tabs; i++)
        width_to_active += (int)strlen(dv->tabs[i].label) + 3;
    while (first < dv->cur && width_to_active > room) {
        width_to_active -= (int)strlen(dv->tabs[first].label) + 3;
        first++;
    }
    if (first > 0)
        draw_puts(&dl, t->utf8 && !t->ascii ? "\xE2\x80\xB9 " : "< ", hdr);
    for (size_t i = first; i < dv->n_tabs; i++) {
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
        draw_puts(&dl, tab->summary, theme_attr(ROLE_SUMMARY, VAR_PLAIN));
        draw_fill(&dl, theme_attr(ROLE_SUMMARY, VAR_PLAIN));
        draw_cut_marker(&dl, theme_attr(ROLE_CUT, VAR_PLAIN));
    }
}

static void draw_status(const struct tui *t)
{
    const struct doc_view *dv = &t->docs[t->cur_doc];
    const struct tab *tab = &dv->tabs[dv->cur];
    const struct rows *r = &tab->rows;
    attr_t st = theme_attr(ROLE_STATUS, VAR_PLAIN);
    attr_t strong = theme_attr(ROLE_STATUS_STRONG, VAR_PLAIN);
    struct draw_line dl;
    draw_line_start(&dl, t->L.status_y, 0, COLS, 0);
    if (t->prompt == PROMPT_SEARCH || t->prompt == PROMPT_GOTO) {
        draw_puts(&dl, t->prompt == PROMPT_SEARCH ? "/" : ":", strong);
        draw_put(&dl, slice_make(t->prompt_buf, t->prompt_len), strong, true);
        draw_puts(&dl, "_", theme_attr(ROLE_STATUS, VAR_PLAIN) | A_BLINK);
        draw_puts(&dl, t->prompt == PROMPT_GOTO ? "   (node number, Enter; Esc cancels)"
                                                : "   (Enter searches; Esc cancels)",
                  st);
        draw_fill(&dl, st);
        return;
    }
    if (t->prompt == PROMPT_PASTE) {
        char buf[160];
        snprintf(buf, sizeof buf,
                 " PASTE: paste a plan now, then Ctrl-d to open it (Ctrl-c cancels)  %zu bytes",
                 t->paste_len);
        draw_puts(&dl, buf, strong);
        draw_fill(&dl, st);
        return;
    }
    /* Right side first, so the left side knows how much room it has. */
    char right[128] = "";
    size_t len = 0;
    if (r->pattern && !stack_has(t, VIEW_WALK)) {  /* the walk's own counter is in the message */
        size_t i = rows_match_index(r);
        if (i)
            len += (size_t)snprintf(right + len, sizeof right - len, "[%zu/%zu] ", i,
                                    r->n_matches);
        else
            len += (size_t)snprintf(right + len, sizeof right - len, "[-/%zu] ", r->n_matches);
    }
    const char *busy = !jobs_analysing(&t->jobs, dv->doc)  ? NULL
                       : t->utf8                              ? "analysing\xE2\x80\xA6"
                                                              : "analysing...";
    if (busy)
        len += (size_t)snprintf(right + len, sizeof right - len, "%s  ", busy);
    if (r->sel)
        len += (size_t)snprintf(right + len, sizeof right - len, "%u/%u  ",
                                r->sel->preorder - r->begin + 1, r->end - r->begin);
    snprintf(right + len, sizeof right - len, "?:help ");
    int right_w = 0;
    for (const char *p = right; *p; p++) /* columns: UTF-8 continuation bytes take none */
        right_w += ((unsigned char)*p & 0xC0) != 0x80;

    draw_line_start(&dl, t->L.status_y, 0, COLS - right_w, 0);
    draw_puts(&dl, " ", st);
    if (r->sel) {
        const struct plan_node *n = r->sel;
        struct slice w = op_word(n);
        draw_put(&dl, w, strong, true);
        char extra[48] = "";
        size_t e = 0;
        if (n->id >= 0)
            e += (size_t)snprintf(extra + e, sizeof extra - e, " (%d)", n->id);
        if (n->stage >= 0)
            e += (size_t)snprintf(extra + e, sizeof extra - e, "  stage *(%d)", n->stage);
        draw_puts(&dl, extra, st);
    }
    if (t->msg[0]) {
        draw_puts(&dl, "  ", st);
        draw_puts(&dl, t->msg, t->msg_error ? theme_attr(ROLE_ERROR, VAR_PLAIN) : strong);
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

/* Text bytes a search reads between two looks at the clock, and how long it may run
 * before the explorer draws and reads keys again: a plan of a million nodes is 233 MB of
 * text, more than one frame can read. */
#define SEARCH_CHUNK (4u << 20)
#define SEARCH_SLICE_MS 8

static double clock_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Runs the search of t->search_tab for a slice; when it is done, goes to the first match
 * from the selection (once: the search's Enter) and says how many there are. */
static int search_slice(struct tui *t)
{
    struct tab *tab = t->search_tab;
    if (tab && !rows_searching(&tab->rows))
        t->search_tab = tab = NULL; /* cleared, or replaced by a trace (*) */
    if (!tab)
        return RE_NONE;
    struct rows *r = &tab->rows;
    double deadline = clock_ms() + SEARCH_SLICE_MS;
    int done;
    do /* bounded by the slice's time */
        done = rows_search_more(r, SEARCH_CHUNK);
    while (done == 0 && clock_ms() < deadline);
    if (done == 0) {
        tui_message(t, false, "searching %u%%: %zu so far (n, N)", rows_search_progress(r),
                    r->n_matches);
        return RE_DRAW;
    }
    t->search_tab = NULL;
    if (done < 0 || !r->pattern) {
        tui_message(t, true, done < 0 ? "out of memory" : "search ended");
    } else if (r->n_matches == 0) {
        tui_message(t, true, "not found in this section: %s", r->pattern);
    } else {
        tui_push_history(t);
        bool wrapped = false;
        if (tui_tab(t) == tab && rows_match_index(r) == 0)
            rows_search_step(r, 1, &wrapped);
        tui_message(t, false, "%zu match%s (n, N)", r->n_matches, r->n_matches == 1 ? "" : "es");
    }
    return RE_DRAW;
}

static int prompt_key(struct tui *t, const struct input_event *ev)
{
    enum key_action a = keys_lookup(KCTX_PROMPT, ev->name);
    if (a == KA_P_CANCEL) {
        t->prompt = PROMPT_NONE;
        return RE_DRAW;
    }
    if (a == KA_P_ERASE) {
        if (t->prompt_len == 0) {
            t->prompt = PROMPT_NONE;
            return RE_DRAW;
        }
        /* Erase one UTF-8 character. */
        do
            t->prompt_len--;
        while (t->prompt_len > 0 && ((unsigned char)t->prompt_buf[t->prompt_len] & 0xC0) == 0x80);
        return RE_DRAW;
    }
    if (a == KA_P_ACCEPT) {
        enum prompt_kind kind = t->prompt;
        t->prompt = PROMPT_NONE;
        t->prompt_buf[t->prompt_len] = '\0';
        struct tab *tab = tui_tab(t);
        if (kind == PROMPT_GOTO) {
            const char *p = t->prompt_buf;
            while (*p == ' ' || *p == '(')
                p++;
            char *end;
            long id = strtol(p, &end, 10);
            if (end == p || id < 0 || id > 0x7FFFFFFF) {
                tui_message(t, true, "type a node number, like 12");
                return RE_DRAW;
            }
            tui_goto_id(t, (int32_t)id);
            return RE_DRAW;
        }
        if (t->prompt_len == 0) {
            rows_search(&tab->rows, NULL);
            return RE_DRAW;
        }
        if (t->search_tab && t->search_tab != tab) /* a search left unfinished elsewhere */
            rows_search(&t->search_tab->rows, NULL);
        if (!rows_search_start(&tab->rows, t->prompt_buf)) {
            tui_message(t, true, "out of memory");
            return RE_DRAW;
        }
        t->search_tab = tab;
        return search_slice(t);
    }
    if (ev->text[0] && (unsigned char)ev->text[0] >= 0x20 && ev->text[0] != 0x7F) {
        size_t n = strlen(ev->text);
        if (t->prompt == PROMPT_GOTO && !(ev->text[0] >= '0' && ev->text[0] <= '9'))
            return RE_NONE;
        if (t->prompt_len + n < sizeof t->prompt_buf) {
            memcpy(t->prompt_buf + t->prompt_len, ev->text, n);
            t->prompt_len += n;
        }
        return RE_DRAW;
    }
    return RE_NONE;
}

static int paste_mode_key(struct tui *t, const struct input_event *ev)
{
    enum key_action a = keys_lookup(KCTX_PASTE, ev->name);
    if (a == KA_PASTE_CANCEL) {
        t->prompt = PROMPT_NONE;
        t->paste_len = 0;
        tui_message(t, false, "paste cancelled");
        return RE_DRAW;
    }
    if (a == KA_PASTE_END) {
        t->prompt = PROMPT_NONE;
        char *bytes = malloc(t->paste_len + 1);
        if (!bytes)
            return RE_DRAW;
        memcpy(bytes, t->paste_buf ? t->paste_buf : "", t->paste_len);
        size_t len = t->paste_len;
        t->paste_len = 0;
        return load_paste(t, bytes, len);
    }
    paste_append(t, ev->text, strlen(ev->text));
    return RE_DRAW;
}

/* ---- keys ------------------------------------------------------------------------------ */

static int switch_tab(struct tui *t, int dir)
{
    struct doc_view *dv = tui_doc(t);
    dv->cur = (dv->cur + dv->n_tabs + (size_t)(dir > 0 ? 1 : dv->n_tabs - 1)) % dv->n_tabs;
    tui_tab(t);
    return RE_DRAW | RE_LAYOUT;
}

static int start_prompt(struct tui *t, enum prompt_kind kind)
{
    t->prompt = kind;
    t->prompt_len = 0;
    t->paste_len = 0;
    return RE_DRAW;
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
        tui_go_back(t);
        return RE_DRAW | RE_LAYOUT;
    case KA_DOCS:
        return RE_PUSH(VIEW_DOCS) | RE_DRAW;
    case KA_HELP:
        return RE_PUSH(VIEW_HELP) | RE_DRAW;
    case KA_PASTE:
        return start_prompt(t, PROMPT_PASTE);
    case KA_GOTO:
        return start_prompt(t, PROMPT_GOTO);
    case KA_SEARCH:
        return start_prompt(t, PROMPT_SEARCH);
    case KA_THEME:
        tui_message(t, false, "theme: %s", theme_next());
        return RE_DRAW | RE_FULL;
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

/* A paste event: into the paste or a prompt (its first line), else a new document. */
static int paste_event(struct tui *t, const struct input_event *ev)
{
    if (t->prompt == PROMPT_PASTE) {
        paste_append(t, ev->paste ? ev->paste : "", ev->paste_len);
    } else if (t->prompt == PROMPT_SEARCH || t->prompt == PROMPT_GOTO) {
        for (size_t i = 0; ev->paste && i < ev->paste_len && ev->paste[i] != '\n' &&
                           t->prompt_len + 1 < sizeof t->prompt_buf;
             i++)
            if ((unsigned char)ev->paste[i] >= 0x20)
                t->prompt_buf[t->prompt_len++] = ev->paste[i];
    } else if (ev->paste) {
        return load_paste(t, ev->paste, ev->paste_len); /* takes the bytes */
    }
    free(ev->paste);
    return RE_DRAW;
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
    t->msg[0] = '\0';
    jobs_forget_key(&t->jobs); /* a ! f F waiting for the findings gives way to any later key */
    if (ev->kind == IN_PASTE)
        return paste_event(t, ev);
    if (t->prompt == PROMPT_PASTE)
        return paste_mode_key(t, ev);
    if (t->prompt != PROMPT_NONE)
        return prompt_key(t, ev);
    return key_event(t, ev);
}

/* ---- background work --------------------------------------------------------------------- */

/* What the analysis jobs report: findings in (summaries, gutter, details), and a ! f F
 * pressed meanwhile, given to the tree now unless something else took the keys. */
static int take_news(struct tui *t, const struct jobs_news *news, bool collected)
{
    if (news->n_done == 0 && !news->error[0])
        return RE_NONE;
    tui_take_news(t, news);
    if (!collected)
        return RE_DRAW | RE_LAYOUT;
    enum key_action pending = t->jobs.pending;
    bool here = t->jobs.pending_doc == tui_doc(t)->doc;
    jobs_forget_key(&t->jobs);
    int re = RE_DRAW | RE_LAYOUT;
    if (pending == KA_NONE)
        return re;
    t->msg[0] = '\0'; /* "still analysing": no longer */
    if (here && !top_overlay(t) && t->prompt == PROMPT_NONE)
        re |= react(t, &t->stack[0], tree_insight_key(t, pending) & ~RE_PASS);
    return re;
}

static int collect_jobs(struct tui *t)
{
    struct jobs_news news = {0};
    jobs_collect(&t->jobs, tui_doc(t)->doc, &news);
    if (news.n_done == 0 && !news.error[0])
        return RE_NONE;
    return take_news(t, &news, true);
}

/* The shown document's analysis is asked for before each layout (never by the layout). */
static int ask_analysis(struct tui *t)
{
    struct jobs_news news = {0};
    jobs_ask(&t->jobs, tui_doc(t)->doc, tui_doc(t)->doc, &news);
    return take_news(t, &news, false);
}

/* ---- the loop ----------------------------------------------------------------------------- */

static void free_state(struct tui *t)
{
    jobs_free(&t->jobs); /* first: it stops the analysis thread, which reads the documents */
    while (t->depth > 0)
        pop_view(t);
    for (size_t i = 0; i < t->n_docs; i++) {
        for (size_t j = 0; j < t->docs[i].n_tabs; j++)
            if (t->docs[i].tabs[j].ready) {
                rows_free(&t->docs[i].tabs[j].rows);
                op_summary_stop(&t->docs[i].tabs[j].sum);
            }
        free(t->docs[i].tabs);
        if (t->docs[i].owned)
            document_free(t->docs[i].doc);
    }
    free(t->docs);
    free(t->paste_buf);
    decor_free(t);
}

/* The documents, the terminal, the options and the two panes; false (err set, or a
 * message printed) when there is nothing to show or no terminal. */
static int start(struct tui *t, struct document **docs, size_t n_docs,
                 const struct ui_options *opts, char *err, size_t errcap)
{
    for (size_t i = 0; i < n_docs; i++)
        if (!add_document(t, docs[i], false)) {
            fprintf(stderr, "sparkplan: %s: nothing to show\n", docs[i]->name);
            return 2;
        }
    if (t->n_docs == 0) {
        fprintf(stderr, "sparkplan: no plan to show\n");
        return 2;
    }
    if (!push_view(t, VIEW_TREE) || !push_view(t, VIEW_DETAILS)) {
        fprintf(stderr, "sparkplan: out of memory\n");
        return 1;
    }
    if (!term_open(opts && opts->tty_from_dev, err, errcap) ||
        !input_open(term_fd(), term_utf8(), err, errcap) || !term_start_screen(err, errcap)) {
        term_close();
        fprintf(stderr, "sparkplan: %s\n", err);
        return 1;
    }
    t->utf8 = term_utf8();
    t->ascii = (opts && opts->ascii) || !t->utf8;
    t->stage_hl = true;
    draw_set_utf8(t->utf8);
    const char *nc = getenv("NO_COLOR");
    bool colours = !(opts && opts->no_color) && !(nc && *nc);
    if (!theme_init(opts ? opts->theme : NULL, colours))
        tui_message(t, true, "unknown theme '%s': using dark", opts->theme);
    term_modes(true);
    return 0;
}

/* Draws the frame the flags ask for (layout first). */
static void frame(struct tui *t, int flags)
{
    if (flags & RE_LAYOUT) {
        tui_tab(t);
        flags |= ask_analysis(t);
        tui_layout(t);
    }
    if (flags & RE_FULL)
        clearok(curscr, TRUE);
    if (flags & (RE_DRAW | RE_LAYOUT | RE_FULL)) {
        draw_all(t);
        wnoutrefresh(stdscr);
        doupdate();
    }
}

/* Signals: quit, suspend, resize. */
static int take_signals(bool *quit)
{
    unsigned sig = term_take_signals();
    int flags = 0;
    if (sig & TERM_SIG_QUIT)
        *quit = true;
    if (sig & TERM_SIG_SUSPEND)
        flags |= RE_SUSPEND;
    if (sig & (TERM_SIG_RESIZE | TERM_SIG_CONT)) {
        term_resize();
        flags |= RE_LAYOUT | RE_DRAW | RE_FULL;
    }
    return flags;
}

/* One turn: wait for input (or do a slice of background work), handle what came. */
static int turn(struct tui *t, int *timeout, bool *quit)
{
    int flags = 0;
    /* The third: the analysis thread says it is done (-1, ignored, when none runs). */
    struct pollfd pfd[3] = {{term_fd(), POLLIN, 0}, {term_signal_fd(), POLLIN, 0},
                            {jobs_wake_fd(&t->jobs), POLLIN, 0}};
    /* A search still reading the text goes on between keys, unless a key is half read
     * (libtermkey waits to tell Escape from a sequence). */
    bool searching = t->search_tab && *timeout < 0;
    bool indexing = !searching && *timeout < 0 && tui_background_tab(t);
    int n = poll(pfd, 3, searching || indexing ? 0 : *timeout);
    if (n < 0 && errno == EINTR)
        return 0;
    struct input_event ev;
    if (n == 0 && searching)
        flags |= search_slice(t);
    else if (n == 0 && indexing)
        flags |= tui_index_slice(t);
    else if (n == 0 && input_force(&ev))
        flags |= handle_event(t, &ev);
    if (pfd[2].revents & POLLIN)
        flags |= collect_jobs(t);
    if (pfd[1].revents & POLLIN)
        flags |= take_signals(quit);
    bool eof = false;
    if (pfd[0].revents & (POLLIN | POLLHUP | POLLERR))
        input_readable();
    while (!*quit && input_next(&ev, &eof)) {
        flags |= handle_event(t, &ev);
        if (flags & RE_QUIT)
            *quit = true;
    }
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
    jobs_hold(&t.jobs); /* the first frame comes before the analysis */
    frame(&t, flags);
    struct jobs_news news = {0};
    jobs_release(&t.jobs, tui_doc(&t)->doc, &news);
    flags = take_news(&t, &news, false); /* no thread: the findings were made in place */
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
    return 0;
}
