/* ui.c: the explorer's loop (see tui.h): input → action → view handler → reaction flags →
 * one draw and one doupdate per turn.  Also the header, the status line, the prompts,
 * pastes and the jump history. */
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
#include "sparkplan/sanitize.h"
#include "sparkplan/term.h"
#include "sparkplan/tui.h"

/* ---- state helpers ------------------------------------------------------------------ */

struct doc_view *tui_doc(struct tui *t)
{
    return &t->docs[t->cur_doc];
}

/* Tabs up to this many nodes are counted and indexed before they are first drawn (about a
 * millisecond; a 10,000-deep chain took 11-19 ms, its nodes far apart in a 150 MB text);
 * bigger ones show their rows first and count between frames, so the first screen of a
 * million-node plan costs what its 38 rows cost. */
#define TAB_INDEX_NOW 4096
/* Nodes a background slice reads between two looks at the clock. */
#define INDEX_CHUNK 16384u
/* Nodes looked at for codegen stages before the first frame (the gutter's width); the
 * count decides for good once it is done. */
#define STAGE_PROBE 4096u

void tui_tab_summary(struct tui *t, struct tab *tab)
{
    if (!tab->indexed) {
        snprintf(tab->summary, sizeof tab->summary, "%u nodes %s", tab->rows.end - tab->rows.begin,
                 t->utf8 ? "\xC2\xB7 counting\xE2\x80\xA6" : "| counting...");
        return;
    }
    op_summary_format(&tab->sum.sum, t->utf8, tab->summary, sizeof tab->summary);
    insight_tab_summary(t, tab);
}

/* Indexes and counts up to budget more nodes of tab (UINT32_MAX: all); true when done. */
static bool tab_index_step(struct tui *t, struct tab *tab, uint32_t budget)
{
    if (tab->indexed)
        return true;
    int rows_done = rows_index_more(&tab->rows, budget);
    int sum_done = op_summary_more(&tab->sum, budget);
    if (rows_done == 0 || sum_done == 0)
        return false;
    tab->indexed = true;
    tab->has_stages = tab->sum.sum.stages > 0;
    tui_tab_summary(t, tab);
    if (rows_done < 0 || sum_done < 0)
        tui_message(t, true, "out of memory");
    return true;
}

void tui_tab_ready(struct tui *t, struct tab *tab)
{
    if (tab->ready)
        return;
    tab->ready = true;
    if (!rows_init(&tab->rows, tab->section, tab->scope))
        tui_message(t, true, "out of memory");
    struct rows *r = &tab->rows;
    op_summary_start(&tab->sum, tab->section, r->begin, r->end);
    if (r->end - r->begin <= TAB_INDEX_NOW) {
        tab_index_step(t, tab, UINT32_MAX);
        return;
    }
    /* Stages start near the root in every plan that has them. */
    for (uint32_t i = r->begin; i < r->end && i - r->begin < STAGE_PROBE && !tab->has_stages; i++)
        tab->has_stages = tab->section->preorder[i]->stage >= 0;
    tui_tab_summary(t, tab);
}

/* Work left for between frames: a tab shown but not yet indexed (the current one first). */
static struct tab *background_tab(struct tui *t)
{
    struct doc_view *dv = tui_doc(t);
    if (dv->tabs[dv->cur].ready && !dv->tabs[dv->cur].indexed)
        return &dv->tabs[dv->cur];
    for (size_t d = 0; d < t->n_docs; d++)
        for (size_t i = 0; i < t->docs[d].n_tabs; i++)
            if (t->docs[d].tabs[i].ready && !t->docs[d].tabs[i].indexed)
                return &t->docs[d].tabs[i];
    return NULL;
}

struct tab *tui_tab(struct tui *t)
{
    struct doc_view *dv = tui_doc(t);
    struct tab *tab = &dv->tabs[dv->cur];
    tui_tab_ready(t, tab);
    return tab;
}

void tui_message(struct tui *t, bool error, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(t->msg, sizeof t->msg, fmt, ap);
    va_end(ap);
    t->msg_error = error;
}

static void push_history(struct tui *t)
{
    struct tab *tab = tui_tab(t);
    if (!tab->rows.sel)
        return;
    if (t->n_hist == TUI_HISTORY) {
        memmove(t->hist, t->hist + 1, (TUI_HISTORY - 1) * sizeof t->hist[0]);
        t->n_hist--;
    }
    t->hist[t->n_hist++] = (struct jump){t->cur_doc, tui_doc(t)->cur, tab->rows.sel};
}

static bool tab_holds(const struct tab *tab, const struct plan_node *n)
{
    if (tab->section != n->section)
        return false;
    if (!tab->scope)
        return true;
    return n->preorder >= tab->scope->preorder &&
           n->preorder <= tab->scope->preorder + tab->scope->subtree_size;
}

bool tui_jump_to(struct tui *t, struct plan_node *n, bool record)
{
    struct doc_view *dv = tui_doc(t);
    size_t target = dv->n_tabs;
    if (tab_holds(&dv->tabs[dv->cur], n)) {
        target = dv->cur;
    } else {
        /* A subtree tab (Final, Initial) says more than the whole section. */
        for (size_t i = 0; i < dv->n_tabs && target == dv->n_tabs; i++)
            if (dv->tabs[i].scope && tab_holds(&dv->tabs[i], n))
                target = i;
        for (size_t i = 0; i < dv->n_tabs && target == dv->n_tabs; i++)
            if (tab_holds(&dv->tabs[i], n))
                target = i;
    }
    if (target == dv->n_tabs)
        return false;
    if (record)
        push_history(t);
    dv->cur = target;
    struct tab *tab = tui_tab(t);
    tui_layout(t);
    rows_select_centered(&tab->rows, n);
    return true;
}

bool tui_goto_id(struct tui *t, int32_t id)
{
    struct plan *p = tui_tab(t)->section->plan;
    struct plan_node *n = plan_node_find_by_id(p, id);
    if (!n) {
        tui_message(t, true, "no node (%d) in this plan", id);
        return false;
    }
    if (!tui_jump_to(t, n, true))
        return false;
    tui_message(t, false, "went to (%d); Backspace goes back", id);
    return true;
}

static void go_back(struct tui *t)
{
    if (t->n_hist == 0) {
        tui_message(t, true, "no earlier position");
        return;
    }
    struct jump j = t->hist[--t->n_hist];
    if (j.doc >= t->n_docs || j.tab >= t->docs[j.doc].n_tabs)
        return;
    t->cur_doc = j.doc;
    t->docs[j.doc].cur = j.tab;
    struct tab *tab = tui_tab(t);
    tui_layout(t);
    rows_select_centered(&tab->rows, j.node);
}

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
    if (!docs_build_tabs(dv)) {
        free(dv->tabs);
        return false;
    }
    t->n_docs++;
    return true;
}

/* "64 MiB", "1000 bytes": where a paste was cut. */
static void paste_limit_text(char *out, size_t cap)
{
    size_t n = input_paste_max();
    if (n % (1u << 20) == 0)
        snprintf(out, cap, "%zu MiB", n >> 20);
    else if (n % 1024 == 0)
        snprintf(out, cap, "%zu KiB", n >> 10);
    else
        snprintf(out, cap, "%zu bytes", n);
}

/* A paste (bracketed, or p ... Ctrl-d) becomes a new document and is shown.  dropped: the
 * bytes past input_paste_max() that were not kept; the document's name then says so (the
 * document list shows it), and so does the status line. */
static int load_paste(struct tui *t, char *bytes, size_t len, size_t dropped)
{
    char name[96], cut[96] = "";
    if (len == 0 && !dropped) {
        free(bytes);
        tui_message(t, false, "empty paste: nothing to open");
        return RE_DRAW;
    }
    if (dropped) {
        char lim[32];
        paste_limit_text(lim, sizeof lim);
        snprintf(cut, sizeof cut, "paste cut at %s: %zu bytes dropped", lim, dropped);
        snprintf(name, sizeof name, "paste %u [cut: %zu bytes dropped]", t->pastes + 1, dropped);
    } else {
        snprintf(name, sizeof name, "paste %u", t->pastes + 1);
    }
    struct document *doc = NULL;
    struct diag err = {0};
    if (load_bytes(name, bytes, len, &doc, &err) != SP_OK) {
        tui_message(t, true, "%s: %s%s%s", name, err.message, cut[0] ? "; " : "", cut);
        return RE_DRAW;
    }
    if (!add_document(t, doc, true)) {
        document_free(doc);
        tui_message(t, true, "%s: no plan sections to show", name);
        return RE_DRAW;
    }
    t->pastes++;
    push_history(t);
    t->cur_doc = t->n_docs - 1;
    t->focus = FOCUS_TREE;
    if (cut[0])
        tui_message(t, true, "%s (%zu nodes kept)", cut, doc->n_all_nodes);
    else if (doc->first_warning)
        tui_message(t, false, "%s: %zu nodes; %s", name, doc->n_all_nodes,
                    doc->first_warning->message);
    else
        tui_message(t, false, "%s: %zu nodes (D lists the documents)", name, doc->n_all_nodes);
    return RE_DRAW | RE_LAYOUT | RE_FULL;
}

static void paste_append(struct tui *t, const char *s, size_t n)
{
    if (t->paste_dropped || t->paste_len + n > input_paste_max()) {
        t->paste_dropped += n; /* all after the cut: the text kept has no hole */
        return;
    }
    if (t->paste_len + n + 1 > t->paste_cap) {
        size_t cap = t->paste_cap ? t->paste_cap : 4096;
        while (cap < t->paste_len + n + 1)
            cap *= 2;
        char *b = realloc(t->paste_buf, cap);
        if (!b) {
            t->paste_dropped += n;
            return;
        }
        t->paste_buf = b;
        t->paste_cap = cap;
    }
    memcpy(t->paste_buf + t->paste_len, s, n);
    t->paste_len += n;
}

/* ---- layout ------------------------------------------------------------------------- */

void tui_layout(struct tui *t)
{
    struct layout *L = &t->L;
    struct tab *tab = tui_tab(t);
    memset(L, 0, sizeof *L);
    L->too_small = COLS < 20 || LINES < 5;
    if (L->too_small)
        return;
    L->header_h = LINES >= 10 ? 2 : 1;
    L->status_y = LINES - 1;
    int body_y = L->header_h, body_h = LINES - L->header_h - 1;
    L->gutter_w = tab->has_stages ? 4 : insight_tab_has_marks(t, tab) ? 2 : 0;
    L->tree_y = body_y;
    L->tree_x = 0;
    if (COLS >= 110) {
        L->det_visible = L->det_side = true;
        L->det_w = COLS * 2 / 5;
        if (L->det_w > 90)
            L->det_w = 90;
        L->tree_w = COLS - L->det_w - 1;
        L->det_x = L->tree_w + 1;
        L->det_y = body_y;
        L->det_h = L->tree_h = body_h;
    } else if (body_h >= 12) {
        L->det_visible = true;
        L->det_h = body_h * 2 / 5;
        L->tree_h = body_h - L->det_h - 1;
        L->tree_w = L->det_w = COLS;
        L->det_x = 0;
        L->det_y = body_y + L->tree_h + 1;
    } else if (t->focus == FOCUS_DETAILS) {
        /* Too short to share: the details take the body while they have focus. */
        L->det_visible = true;
        L->det_h = body_h - 1;
        L->det_y = body_y + 1;
        L->det_w = COLS;
        L->tree_w = COLS;
        L->tree_h = 0;
    } else {
        L->tree_w = COLS;
        L->tree_h = body_h;
    }
    rows_set_height_fn(&tab->rows, t->wrap ? tree_row_height : NULL, t);
    rows_set_height(&tab->rows, L->tree_h > 0 ? (unsigned)L->tree_h : 1);
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
        int k = snprintf(buf, sizeof buf,
                 " PASTE: paste a plan now, then Ctrl-d to open it (Ctrl-c cancels)  %zu bytes",
                 t->paste_len);
        if (t->paste_dropped && k > 0 && (size_t)k < sizeof buf)
            snprintf(buf + k, sizeof buf - (size_t)k, ", %zu dropped (over the limit)",
                     t->paste_dropped);
        draw_puts(&dl, buf, strong);
        draw_fill(&dl, st);
        return;
    }
    /* Right side first, so the left side knows how much room it has. */
    char right[128] = "";
    size_t len = 0;
    if (r->pattern && !insight_walking(t)) {  /* the walk's own counter is in the message */
        size_t i = rows_match_index(r);
        if (i)
            len += (size_t)snprintf(right + len, sizeof right - len, "[%zu/%zu] ", i,
                                    r->n_matches);
        else
            len += (size_t)snprintf(right + len, sizeof right - len, "[-/%zu] ", r->n_matches);
    }
    const char *busy = insight_busy(t);
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

static void draw_all(struct tui *t)
{
    if (t->L.too_small) {
        draw_too_small();
        return;
    }
    if (t->L.tree_h > 0)
        tree_prepare(t);
    if (t->L.det_visible)
        details_prepare(t);
    draw_header(t);
    if (t->L.tree_h > 0)
        tree_draw(t);
    if (t->L.det_visible) {
        if (!t->L.det_side && t->L.tree_h == 0)
            draw_clear(t->L.det_y - 1, 0, 1, COLS, theme_attr(ROLE_NORMAL, VAR_PLAIN));
        details_draw(t);
    }
    draw_status(t);
    if (t->overlay == OVERLAY_HELP)
        help_draw(t);
    else if (t->overlay == OVERLAY_DOCS)
        docs_draw(t);
    else if (t->overlay == OVERLAY_FINDINGS || t->overlay == OVERLAY_IDS)
        insight_list_draw(t);
}

/* ---- keys --------------------------------------------------------------------------- */

/* ---- search in slices ------------------------------------------------------------- */

/* Text bytes a search reads between two looks at the clock, and how long it may run
 * before the explorer draws and reads keys again: a plan of a million nodes is 233 MB of
 * text, more than one frame can read. */
#define SEARCH_CHUNK (4u << 20)
#define SEARCH_SLICE_MS 8

static double now_ms(void)
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
    double deadline = now_ms() + SEARCH_SLICE_MS;
    int done;
    do /* bounded by the slice's time */
        done = rows_search_more(r, SEARCH_CHUNK);
    while (done == 0 && now_ms() < deadline);
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
        push_history(t);
        bool wrapped = false;
        if (tui_tab(t) == tab && rows_match_index(r) == 0)
            rows_search_step(r, 1, &wrapped);
        tui_message(t, false, "%zu match%s (n, N)", r->n_matches, r->n_matches == 1 ? "" : "es");
    }
    return RE_DRAW;
}

/* Indexes the shown tabs for a slice; redraws the header (and the gutter's width) when
 * one is done. */
static int background_slice(struct tui *t)
{
    double deadline = now_ms() + SEARCH_SLICE_MS;
    int re = RE_NONE;
    struct tab *tab;
    while ((tab = background_tab(t)) && now_ms() < deadline) /* bounded by the slice's time */
        if (tab_index_step(t, tab, INDEX_CHUNK))
            re = RE_DRAW | RE_LAYOUT;
    return re;
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
        t->paste_len = t->paste_dropped = 0;
        tui_message(t, false, "paste cancelled");
        return RE_DRAW;
    }
    if (a == KA_PASTE_END) {
        t->prompt = PROMPT_NONE;
        char *bytes = malloc(t->paste_len + 1);
        if (!bytes)
            return RE_DRAW;
        memcpy(bytes, t->paste_buf ? t->paste_buf : "", t->paste_len);
        size_t len = t->paste_len, dropped = t->paste_dropped;
        t->paste_len = t->paste_dropped = 0;
        return load_paste(t, bytes, len, dropped);
    }
    paste_append(t, ev->text, strlen(ev->text));
    return RE_DRAW;
}

static int switch_tab(struct tui *t, int dir)
{
    struct doc_view *dv = tui_doc(t);
    dv->cur = (dv->cur + dv->n_tabs + (size_t)(dir > 0 ? 1 : dv->n_tabs - 1)) % dv->n_tabs;
    tui_tab(t);
    return RE_DRAW | RE_LAYOUT;
}

static int global_key(struct tui *t, enum key_action a)
{
    switch (a) {
    case KA_NEXT_SECTION:
        return switch_tab(t, 1);
    case KA_PREV_SECTION:
        return switch_tab(t, -1);
    case KA_BACK:
        go_back(t);
        return RE_DRAW | RE_LAYOUT;
    case KA_DOCS:
        t->overlay = OVERLAY_DOCS;
        t->docs_sel = t->cur_doc;
        return RE_DRAW;
    case KA_PASTE:
        t->prompt = PROMPT_PASTE;
        t->paste_len = t->paste_dropped = 0;
        return RE_DRAW;
    case KA_THEME:
        tui_message(t, false, "theme: %s", theme_next());
        return RE_DRAW | RE_FULL;
    case KA_HELP:
        t->overlay = OVERLAY_HELP;
        t->overlay_scroll = 0;
        return RE_DRAW;
    case KA_REDRAW:
        return RE_DRAW | RE_FULL | RE_LAYOUT;
    case KA_SUSPEND:
        return RE_SUSPEND;
    case KA_QUIT:
        return RE_QUIT;
    case KA_GOTO:
        t->prompt = PROMPT_GOTO;
        t->prompt_len = 0;
        return RE_DRAW;
    case KA_SEARCH:
        t->prompt = PROMPT_SEARCH;
        t->prompt_len = 0;
        return RE_DRAW;
    case KA_DETAILS:
        t->focus = FOCUS_DETAILS;
        t->det_node = NULL; /* rebuild: the cursor starts on the first reference */
        return RE_DRAW | RE_LAYOUT;
    default:
        return RE_NONE;
    }
}

static bool in_box(int y, int x, int by, int bx, int bh, int bw)
{
    return y >= by && y < by + bh && x >= bx && x < bx + bw;
}

static int handle_event(struct tui *t, const struct input_event *ev)
{
    t->msg[0] = '\0';
    insight_forget_key(); /* a ! f F waiting for the findings gives way to any later key */
    if (ev->kind == IN_PASTE) {
        int re;
        if (t->prompt == PROMPT_PASTE) {
            paste_append(t, ev->paste ? ev->paste : "", ev->paste_len);
            t->paste_dropped += ev->paste_dropped;
            re = RE_DRAW;
        } else if (t->prompt == PROMPT_SEARCH || t->prompt == PROMPT_GOTO) {
            /* Into a prompt: the first line only. */
            for (size_t i = 0; ev->paste && i < ev->paste_len && ev->paste[i] != '\n' &&
                               t->prompt_len + 1 < sizeof t->prompt_buf;
                 i++)
                if ((unsigned char)ev->paste[i] >= 0x20)
                    t->prompt_buf[t->prompt_len++] = ev->paste[i];
            re = RE_DRAW;
        } else if (ev->paste) {
            t->overlay = OVERLAY_NONE;
            re = load_paste(t, ev->paste, ev->paste_len, ev->paste_dropped); /* takes them */
            insight_walk_follow(t);
            return re;
        } else {
            re = RE_DRAW;
        }
        free(ev->paste);
        return re;
    }
    if (t->prompt == PROMPT_PASTE)
        return paste_mode_key(t, ev);
    if (t->prompt != PROMPT_NONE)
        return prompt_key(t, ev);
    if (t->overlay == OVERLAY_HELP) {
        int re = help_key(t, keys_lookup(KCTX_HELP, ev->name));
        if (re == RE_NONE && keys_lookup(KCTX_GLOBAL, ev->name) == KA_QUIT)
            re = RE_QUIT; /* Ctrl-c still quits */
        return re;
    }
    if (t->overlay == OVERLAY_DOCS)
        return docs_key(t, keys_lookup(KCTX_DOCS, ev->name));
    if (t->overlay == OVERLAY_FINDINGS || t->overlay == OVERLAY_IDS)
        return insight_list_key(t, keys_lookup(KCTX_LIST, ev->name));
    insight_walk_follow(t); /* D or a jump back may have shown another document */
    if (insight_walking(t)) {
        int re = insight_walk_key(t, keys_lookup(KCTX_WALK, ev->name));
        if (re == RE_NONE && keys_lookup(KCTX_GLOBAL, ev->name) == KA_QUIT)
            re = RE_QUIT; /* Ctrl-c still quits */
        return re;
    }
    if (t->L.too_small) {
        enum key_action a = keys_lookup(KCTX_TREE, ev->name);
        return a == KA_QUIT ? RE_QUIT : a == KA_SUSPEND ? RE_SUSPEND : RE_NONE;
    }
    if (ev->kind == IN_MOUSE) {
        const struct layout *L = &t->L;
        if (L->det_visible && in_box(ev->line, ev->col, L->det_y, L->det_x, L->det_h, L->det_w)) {
            enum key_action a = keys_lookup(KCTX_DETAILS, ev->name);
            details_prepare(t);
            return details_key(t, a, ev) | RE_LAYOUT;
        }
        if (in_box(ev->line, ev->col, L->tree_y, L->tree_x, L->tree_h, L->tree_w)) {
            int re = tree_key(t, keys_lookup(KCTX_TREE, ev->name), ev);
            return re | RE_LAYOUT;
        }
        return RE_NONE;
    }
    enum key_context ctx = t->focus == FOCUS_DETAILS ? KCTX_DETAILS : KCTX_TREE;
    enum key_action a = keys_lookup(ctx, ev->name);
    if (a == KA_NONE)
        return RE_NONE;
    int re = ctx == KCTX_DETAILS ? details_key(t, a, ev) : tree_key(t, a, ev);
    if (re == RE_NONE && ctx == KCTX_TREE)
        re = insight_key(t, a);
    if (re == RE_NONE)
        re = global_key(t, a);
    return re;
}

/* ---- the loop ----------------------------------------------------------------------- */

static void free_state(struct tui *t)
{
    insight_free(t); /* first: it stops the analysis thread, which reads the documents */
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
    details_free(t);
}

int ui_run(struct document **docs, size_t n_docs, const struct ui_options *opts)
{
    static struct tui t; /* one explorer per process; static keeps it off the stack */
    char err[256] = "";
    memset(&t, 0, sizeof t);
    setlocale(LC_ALL, ""); /* the wide-character curses and the codeset need it */
    for (size_t i = 0; i < n_docs; i++)
        if (!add_document(&t, docs[i], false)) {
            fputs("sparkplan: ", stderr);
            sanitize_fwrite(stderr, slice_cstr(docs[i]->name));
            fputs(": nothing to show\n", stderr);
            free_state(&t);
            return 2;
        }
    if (t.n_docs == 0) {
        fprintf(stderr, "sparkplan: no plan to show\n");
        return 2;
    }
    if (!term_open(opts && opts->tty_from_dev, err, sizeof err) ||
        !input_open(term_fd(), term_utf8(), err, sizeof err) ||
        !term_start_screen(err, sizeof err)) {
        term_close();
        fputs("sparkplan: ", stderr); /* err may quote TERM */
        sanitize_fwrite(stderr, slice_cstr(err));
        fputc('\n', stderr);
        free_state(&t);
        return 1;
    }
    t.utf8 = term_utf8();
    t.ascii = (opts && opts->ascii) || !t.utf8;
    t.stage_hl = true;
    draw_set_utf8(t.utf8);
    const char *nc = getenv("NO_COLOR");
    bool colours = !(opts && opts->no_color) && !(nc && *nc);
    if (!theme_init(opts ? opts->theme : NULL, colours))
        tui_message(&t, true, "unknown theme '%s': using dark", opts->theme);
    term_modes(true);

    int flags = RE_DRAW | RE_LAYOUT;
    int timeout = -1;
    bool quit = false;
    bool first_frame = true;
    insight_hold(); /* the first frame comes before the insight analysis */
    while (!quit) {
        if (flags & RE_SUSPEND) {
            term_suspend();
            flags |= RE_DRAW | RE_LAYOUT | RE_FULL;
        }
        if (flags & RE_LAYOUT)
            tui_layout(&t);
        if (flags & RE_FULL)
            clearok(curscr, TRUE);
        if ((flags & (RE_DRAW | RE_LAYOUT | RE_FULL)) && term_shown()) {
            draw_all(&t);
            wnoutrefresh(stdscr);
            doupdate();
        }
        flags = 0;
        if (first_frame) {
            first_frame = false;
            if (insight_release(&t)) {
                flags = RE_DRAW | RE_LAYOUT; /* the findings: gutter, summary, details */
                continue;
            }
        }
        /* The third: the analysis thread says it is done (-1, ignored, when none runs). */
        struct pollfd pfd[3] = {{term_fd(), POLLIN, 0}, {term_signal_fd(), POLLIN, 0},
                                {insight_wake_fd(), POLLIN, 0}};
        /* A search still reading the text goes on between keys, unless a key is half
         * read (libtermkey waits to tell Escape from a sequence). */
        bool searching = t.search_tab && timeout < 0;
        bool indexing = !searching && timeout < 0 && background_tab(&t);
        int n = poll(pfd, 3, searching || indexing ? 0 : timeout);
        if (n < 0 && errno == EINTR)
            continue;
        struct input_event ev;
        if (n == 0 && searching)
            flags |= search_slice(&t);
        else if (n == 0 && indexing)
            flags |= background_slice(&t);
        else if (n == 0 && input_force(&ev))
            flags |= handle_event(&t, &ev);
        if (pfd[2].revents & POLLIN)
            flags |= insight_collect(&t);
        if (pfd[1].revents & POLLIN) {
            unsigned sig = term_take_signals();
            if (sig & TERM_SIG_QUIT)
                quit = true;
            if (sig & TERM_SIG_SUSPEND)
                flags |= RE_SUSPEND;
            if ((sig & TERM_SIG_CONT) && !term_resume())
                sig = 0; /* continued in the background: nothing to draw until fg */
            if (sig & (TERM_SIG_RESIZE | TERM_SIG_CONT)) {
                term_resize();
                flags |= RE_LAYOUT | RE_DRAW | RE_FULL;
            }
        }
        bool eof = false;
        if (pfd[0].revents & (POLLIN | POLLHUP | POLLERR))
            input_readable();
        while (!quit && input_next(&ev, &eof)) {
            flags |= handle_event(&t, &ev);
            if (flags & RE_QUIT)
                quit = true;
        }
        if (eof || (flags & RE_QUIT) || ((pfd[0].revents & (POLLHUP | POLLERR)) && !(pfd[0].revents & POLLIN)))
            quit = true;
        timeout = input_wait_ms();
        if (flags & RE_DRAW)
            flags |= RE_LAYOUT; /* cheap, and keeps the rows' height in step */
    }
    term_close();
    free_state(&t);
    int sig = term_quit_signal(); /* 130, 143, 129: a script can tell */
    return sig ? 128 + sig : 0;
}
