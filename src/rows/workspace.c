/* workspace.c: the documents the explorer shows and everything about them that is not
 * drawing (see workspace.h): the tabs (one per section, plus AQE Final/Initial sub-plans),
 * making a tab ready and indexing big ones between frames, the header's summary, the jump
 * history and jumps, the status message, searches, the findings' arrival.  No curses: the
 * explorer calls it, and it calls the explorer back only through the `show` hook. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sparkplan/load.h"
#include "sparkplan/opclass.h"
#include "sparkplan/workspace.h"

struct doc_view *ws_doc(struct workspace *ws)
{
    return &ws->docs[ws->cur_doc];
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

/* Appends the tab's findings count to its summary line (when the document is analysed). */
static void findings_summary(const struct workspace *ws, struct tab *tab)
{
    const struct analysis *a = jobs_known(&ws->jobs, tab->section->plan->doc);
    if (!a)
        return;
    size_t warnings = 0, info = 0;
    for (size_t i = 0; i < a->n_findings; i++) {  /* once per tab, when it is first shown */
        const struct plan_node *n = a->findings[i].node;
        if (!n || n->section != tab->section || !rows_contains(&tab->rows, n))
            continue;
        if (a->findings[i].severity == SEVERITY_WARNING)
            warnings++;
        else
            info++;
    }
    if (!warnings && !info)
        return;
    char *line = tab->counts->summary;
    size_t len = strlen(line);
    snprintf(line + len, sizeof tab->counts->summary - len, "%s%zu warning%s, %zu info (!)",
             ws->utf8 ? " \xC2\xB7 " : " | ", warnings, warnings == 1 ? "" : "s", info);
}

const char *ws_tab_summary_text(const struct tab *tab)
{
    return tab->counts ? tab->counts->summary : "";
}

void ws_tab_summary(struct workspace *ws, struct tab *tab)
{
    if (!tab->counts)
        return;
    char *line = tab->counts->summary;
    size_t cap = sizeof tab->counts->summary;
    if (ws->loading) { /* a preview's counts are not the document's */
        snprintf(line, cap, "%s",
                 ws->utf8 ? "loading\xE2\x80\xA6" : "loading...");
        return;
    }
    if (!tab->indexed) {
        snprintf(line, cap, "%u nodes %s", tab->rows.end - tab->rows.begin,
                 ws->utf8 ? "\xC2\xB7 counting\xE2\x80\xA6" : "| counting...");
        return;
    }
    op_summary_format(&tab->counts->sum.sum, ws->utf8, line, cap);
    findings_summary(ws, tab);
}

/* Indexes and counts up to budget more nodes of tab (UINT32_MAX: all); true when done. */
static bool tab_index_step(struct workspace *ws, struct tab *tab, uint32_t budget)
{
    if (tab->indexed)
        return true;
    int rows_done = rows_index_more(&tab->rows, budget);
    int sum_done = tab->counts ? op_summary_more(&tab->counts->sum, budget) : -1;
    if (rows_done == 0 || sum_done == 0)
        return false;
    tab->indexed = true;
    if (ws->unindexed > 0)
        ws->unindexed--;
    tab->has_stages = tab->counts && tab->counts->sum.sum.stages > 0;
    ws_tab_summary(ws, tab);
    if (rows_done < 0 || sum_done < 0)
        ws_message(ws, true, "out of memory");
    return true;
}

void ws_tab_ready(struct workspace *ws, struct tab *tab)
{
    if (tab->ready)
        return;
    tab->ready = true;
    ws->unindexed++;
    if (!rows_init(&tab->rows, tab->section, tab->scope))
        ws_message(ws, true, "out of memory");
    struct rows *r = &tab->rows;
    tab->counts = calloc(1, sizeof *tab->counts);
    if (tab->counts)
        op_summary_start(&tab->counts->sum, tab->section, r->begin, r->end);
    else
        ws_message(ws, true, "out of memory");
    if (r->end - r->begin <= TAB_INDEX_NOW) {
        tab_index_step(ws, tab, UINT32_MAX);
        return;
    }
    /* Stages start near the root in every plan that has them. */
    for (uint32_t i = r->begin; i < r->end && i - r->begin < STAGE_PROBE && !tab->has_stages; i++)
        tab->has_stages = plan_section_node(tab->section, i)->stage >= 0;
    ws_tab_summary(ws, tab);
}

/* Work left for between frames: a tab shown but not yet indexed (the current one first). */
struct tab *ws_background_tab(struct workspace *ws)
{
    if (ws->loading)
        return NULL;
    /* Asked between every two frames: with 80,000 tabs (one per subquery) a look at every
       tab read 100 MB each time, a fifth of the first screen.  The count is never low (every
       tab made ready adds one before it can be indexed); when it is high, the look below
       finds nothing and sets it right. */
    if (ws->unindexed == 0)
        return NULL;
    struct doc_view *dv = ws_doc(ws);
    if (dv->tabs[dv->cur].ready && !dv->tabs[dv->cur].indexed)
        return &dv->tabs[dv->cur];
    for (size_t d = 0; d < ws->n_docs; d++)
        for (size_t i = 0; i < ws->docs[d].n_tabs; i++)
            if (ws->docs[d].tabs[i].ready && !ws->docs[d].tabs[i].indexed)
                return &ws->docs[d].tabs[i];
    ws->unindexed = 0;
    return NULL;
}

struct tab *ws_tab(struct workspace *ws)
{
    struct doc_view *dv = ws_doc(ws);
    struct tab *tab = &dv->tabs[dv->cur];
    ws_tab_ready(ws, tab);
    return tab;
}

void ws_vmessage(struct workspace *ws, bool error, const char *fmt, va_list ap)
{
    vsnprintf(ws->msg, sizeof ws->msg, fmt, ap);
    ws->msg_error = error;
}

void ws_message(struct workspace *ws, bool error, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ws_vmessage(ws, error, fmt, ap);
    va_end(ap);
}

/* Selects n in tab centred, once the explorer has fitted the tab to its screen. */
static void show_node(struct workspace *ws, struct tab *tab, struct plan_node *n)
{
    if (ws->show)
        ws->show(ws->show_ctx, tab);
    rows_select_centered(&tab->rows, n);
}

void ws_push_history(struct workspace *ws)
{
    struct tab *tab = ws_tab(ws);
    if (!tab->rows.sel)
        return;
    if (ws->n_hist == WS_HISTORY) {
        memmove(ws->hist, ws->hist + 1, (WS_HISTORY - 1) * sizeof ws->hist[0]);
        ws->n_hist--;
    }
    ws->hist[ws->n_hist++] = (struct jump){ws->cur_doc, ws_doc(ws)->cur, tab->rows.sel};
}

static bool tab_holds(const struct tab *tab, const struct plan_node *n)
{
    if (tab->section != n->section || tab->kind == SUBJECT_DIFF) /* a diff repeats side A */
        return false;
    if (!tab->scope)
        return true;
    return plan_node_preorder(n) >= plan_node_preorder(tab->scope) &&
           plan_node_preorder(n) <= plan_node_preorder(tab->scope) + tab->scope->subtree_size;
}

bool ws_jump_to(struct workspace *ws, struct plan_node *n, bool record)
{
    struct doc_view *dv = ws_doc(ws);
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
        ws_push_history(ws);
    dv->cur = target;
    show_node(ws, ws_tab(ws), n);
    return true;
}

bool ws_goto_id(struct workspace *ws, int32_t id)
{
    struct plan *p = ws_tab(ws)->section->plan;
    struct plan_node *n = plan_node_find_by_id(p, id);
    if (!n) {
        ws_message(ws, true, "no node (%d) in this plan", id);
        return false;
    }
    if (!ws_jump_to(ws, n, true))
        return false;
    ws_message(ws, false, "went to (%d); Backspace goes back", id);
    return true;
}

void ws_go_back(struct workspace *ws)
{
    if (ws->n_hist == 0) {
        ws_message(ws, true, "no earlier position");
        return;
    }
    struct jump j = ws->hist[--ws->n_hist];
    if (j.doc >= ws->n_docs || j.tab >= ws->docs[j.doc].n_tabs)
        return;
    ws->cur_doc = j.doc;
    ws->docs[j.doc].cur = j.tab;
    show_node(ws, ws_tab(ws), j.node);
}

/* ---- tabs ---------------------------------------------------------------------------- */

/* A tab's label, built without printf: a plan can have 80,000 tabs, one per subquery, and
 * two snprintf calls a tab were 100 M instructions of the first screen there.  Appends
 * stop at the buffer's end, as snprintf's truncation does. */
struct label_buf {
    char *p;
    size_t cap, len; /* cap >= 1: p[len] is always the terminating '\0' */
};

static void label_mem(struct label_buf *b, const char *s, size_t n)
{
    size_t room = b->cap - 1 - b->len;
    if (n > room)
        n = room;
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
}

static void label_str(struct label_buf *b, const char *s)
{
    label_mem(b, s, strlen(s));
}

static void label_uint(struct label_buf *b, unsigned v)
{
    char digits[16];
    size_t n = sizeof digits;
    do
        digits[--n] = (char)('0' + v % 10);
    while ((v /= 10) != 0); /* Bound: 10 digits at most. */
    label_mem(b, digits + n, sizeof digits - n);
}

static struct label_buf label_start(char *buf, size_t cap)
{
    buf[0] = '\0';
    return (struct label_buf){buf, cap, 0};
}

static void section_label(const struct plan_section *s, unsigned codegen_i,
                          unsigned codegen_n, char *buf, size_t cap)
{
    struct label_buf b = label_start(buf, cap);
    switch (s->kind) {
    case SECTION_PARSED:
        label_str(&b, "Parsed");
        break;
    case SECTION_ANALYZED:
        label_str(&b, "Analyzed");
        break;
    case SECTION_OPTIMIZED:
        label_str(&b, "Optimized");
        break;
    case SECTION_PHYSICAL:
        label_str(&b, "Physical");
        break;
    case SECTION_SUBQUERY: {
        /* "Subquery:1 Hosting operator id = 3 ..." -> "Subquery:1" */
        size_t n = 0;
        while (n < s->title.len && n < 20 && s->title.ptr[n] != ' ')
            n++;
        if (n == 0)
            label_str(&b, "Subquery");
        else
            label_mem(&b, s->title.ptr, n);
        break;
    }
    case SECTION_CODEGEN:
        label_str(&b, "Codegen ");
        label_uint(&b, codegen_i);
        label_str(&b, "/");
        label_uint(&b, codegen_n);
        break;
    }
}

/* "== Final Plan ==" -> "Final" */
static void label_name(const struct plan_node *n, char *buf, size_t cap)
{
    struct slice s = slice_trim(plan_node_text(n).len ? plan_node_text(n) : plan_node_name(n));
    while (s.len && (s.ptr[0] == '=' || s.ptr[0] == ' '))
        s.ptr++, s.len--;
    while (s.len && (s.ptr[s.len - 1] == '=' || s.ptr[s.len - 1] == ' '))
        s.len--;
    if (s.len > 5 && memcmp(s.ptr + s.len - 5, " Plan", 5) == 0)
        s.len -= 5;
    if (s.len > 20)
        s.len = 20;
    struct label_buf b = label_start(buf, cap);
    label_mem(&b, s.ptr, s.len);
}

struct tab *ws_add_subject(struct doc_view *dv, enum subject_kind kind,
                           struct plan_section *s, struct plan_node *scope, const char *label)
{
    if (dv->n_tabs == dv->cap_tabs) {
        size_t nc = dv->cap_tabs ? dv->cap_tabs * 2 : 8;
        struct tab *nt = realloc(dv->tabs, nc * sizeof *nt);
        if (!nt)
            return NULL;
        dv->tabs = nt;
        dv->cap_tabs = nc;
    }
    struct tab *t = &dv->tabs[dv->n_tabs++];
    memset(t, 0, sizeof *t);
    t->kind = kind;
    t->section = s;
    t->scope = scope;
    /* Labels come from the input: keep printable ASCII only. */
    size_t j = 0;
    for (size_t i = 0; label[i] && j + 1 < sizeof t->label; i++) {
        unsigned char c = (unsigned char)label[i];
        t->label[j++] = (c >= 0x20 && c < 0x7F) ? (char)c : '?';
    }
    t->label[j] = '\0';
    return t;
}

/* A tab of a plan text: "2:Physical" when the document holds several plans, "c12:Physical"
   when they come from a notebook (known by their cells). */
static bool add_tab(struct doc_view *dv, struct plan_section *s, struct plan_node *scope,
                    const char *label, unsigned plan_no, bool several_plans)
{
    char full[64];
    struct label_buf b = label_start(full, sizeof full);
    if (several_plans && s->plan->source.cell) {
        label_str(&b, "c");
        label_uint(&b, (unsigned)s->plan->source.cell);
        label_str(&b, ":");
    } else if (several_plans) {
        label_uint(&b, plan_no);
        label_str(&b, ":");
    }
    label_str(&b, label);
    return ws_add_subject(dv, scope ? SUBJECT_SUBPLAN : SUBJECT_SECTION, s, scope, full) != NULL;
}

/* The outermost AdaptiveSparkPlan of a section, found in pre-order (linear once). */
static struct plan_node *outer_adaptive(const struct plan_section *s)
{
    for (uint32_t i = 0; i < s->n_nodes; i++) {
        struct slice w = op_word(plan_section_node(s, i));
        if (slice_eq_cstr(w, "AdaptiveSparkPlan"))
            return plan_section_node(s, i);
    }
    return NULL;
}

bool ws_build_tabs(struct doc_view *dv)
{
    unsigned plan_no = 0;
    bool several = dv->doc->n_plans > 1;
    for (struct plan *p = dv->doc->first_plan; p; p = p->next) {
        plan_no++;
        unsigned codegen_n = 0, codegen_i = 0;
        for (struct plan_section *s = p->first_section; s; s = s->next)
            codegen_n += s->kind == SECTION_CODEGEN;
        for (struct plan_section *s = p->first_section; s; s = s->next) {
            char label[40];
            codegen_i += s->kind == SECTION_CODEGEN;
            section_label(s, codegen_i, codegen_n, label, sizeof label);
            if (!add_tab(dv, s, NULL, label, plan_no, several))
                return false;
            if (s->kind != SECTION_PHYSICAL)
                continue;
            /* Only an adaptive plan has labels to split on: no pass over the others. */
            struct plan_node *a = p->adaptive ? outer_adaptive(s) : NULL;
            for (struct plan_node *c = a ? plan_node_first_child(a) : NULL; c;
                 c = plan_node_next_sibling(c)) {
                if (!(c->flags & NODE_LABEL))
                    continue;
                label_name(c, label, sizeof label);
                if (!add_tab(dv, s, c, label, plan_no, several))
                    return false;
            }
        }
    }
    dv->cur = 0;
    /* Open on the physical plan: what people usually look at first. */
    for (size_t i = 0; i < dv->n_tabs; i++)
        if (dv->tabs[i].section->kind == SECTION_PHYSICAL && !dv->tabs[i].scope) {
            dv->cur = i;
            break;
        }
    return dv->n_tabs > 0;
}


/* ---- background work ------------------------------------------------------------------ */

/* How long a background slice may run before the explorer draws and reads keys again. */
#define INDEX_SLICE_MS 8

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Indexes the shown tabs for a slice; redraws the header (and the gutter's width) when
 * one is done. */
bool ws_index_slice(struct workspace *ws)
{
    double deadline = now_ms() + INDEX_SLICE_MS;
    bool re = false;
    struct tab *tab;
    while ((tab = ws_background_tab(ws)) && now_ms() < deadline) /* bounded by the slice's time */
        if (tab_index_step(ws, tab, INDEX_CHUNK))
            re = true;
    return re;
}

/* ---- documents and search -------------------------------------------------------------- */

bool ws_add_document(struct workspace *ws, struct document *doc, bool owned)
{
    if (ws->n_docs == ws->cap_docs) {
        size_t cap = ws->cap_docs ? ws->cap_docs * 2 : 4;
        struct doc_view *nd = realloc(ws->docs, cap * sizeof *nd);
        if (!nd)
            return false;
        ws->docs = nd;
        ws->cap_docs = cap;
    }
    struct doc_view *dv = &ws->docs[ws->n_docs];
    memset(dv, 0, sizeof *dv);
    dv->doc = doc;
    dv->owned = owned;
    if (!ws_build_tabs(dv)) {
        free(dv->tabs);
        return false;
    }
    ws->n_docs++;
    return true;
}


/* "64 MiB", "2000 bytes": the limit a paste was cut at, as people read it. */
static void paste_limit_text(size_t limit, char *out, size_t cap)
{
    if (limit && limit % ((size_t)1 << 20) == 0)
        snprintf(out, cap, "%zu MiB", limit >> 20);
    else if (limit && limit % 1024 == 0)
        snprintf(out, cap, "%zu KiB", limit >> 10);
    else
        snprintf(out, cap, "%zu bytes", limit);
}

/* A paste (bracketed, or p ... Ctrl-d) becomes a new document and is shown (true), or
 * the message says why not.  A cut paste's name says so (the document list shows it), and
 * so does the message. */
bool ws_open_paste(struct workspace *ws, char *bytes, size_t len, size_t dropped,
                   size_t limit)
{
    if (len == 0 && !dropped) {
        free(bytes);
        ws_message(ws, false, "empty paste: nothing to open");
        return false;
    }
    char name[96], cut[96] = "";
    if (dropped) {
        char lim[32];
        paste_limit_text(limit, lim, sizeof lim);
        snprintf(cut, sizeof cut, "paste cut at %s: %zu bytes dropped", lim, dropped);
        snprintf(name, sizeof name, "paste %u [cut: %zu bytes dropped]", ws->pastes + 1,
                 dropped);
    } else {
        snprintf(name, sizeof name, "paste %u", ws->pastes + 1);
    }
    struct document *doc = NULL;
    struct diag err = {0};
    if (load_bytes(name, bytes, len, &doc, &err) != SP_OK) {
        ws_message(ws, true, "%s: %s%s%s", name, err.message, cut[0] ? "; " : "", cut);
        return false;
    }
    if (!ws_add_document(ws, doc, true)) {
        document_free(doc);
        ws_message(ws, true, "%s: no plan sections to show%s%s", name, cut[0] ? "; " : "",
                   cut);
        return false;
    }
    ws->pastes++;
    ws_push_history(ws);
    ws->cur_doc = ws->n_docs - 1;
    if (cut[0])
        ws_message(ws, true, "%s (%zu nodes kept)", cut, doc->n_all_nodes);
    else if (doc->first_warning)
        ws_message(ws, false, "%s: %zu nodes; %s", name, doc->n_all_nodes,
                    doc->first_warning->message);
    else
        ws_message(ws, false, "%s: %zu nodes (D lists the documents)", name, doc->n_all_nodes);
    return true;
}

/* Text bytes a search reads between two looks at the clock, and how long it may run
 * before the explorer draws and reads keys again: a plan of a million nodes is 233 MB of
 * text, more than one frame can read. */
#define SEARCH_CHUNK (4u << 20)

/* Runs the search of ws->search_tab for a slice; when it is done, goes to the first match
 * from the selection (once: the search's Enter) and says how many there are. */
bool ws_search_slice(struct workspace *ws)
{
    struct tab *tab = ws->search_tab;
    if (tab && !rows_searching(&tab->rows))
        ws->search_tab = tab = NULL; /* cleared, or replaced by a trace (*) */
    if (!tab)
        return false;
    struct rows *r = &tab->rows;
    double deadline = now_ms() + INDEX_SLICE_MS;
    int done;
    do /* bounded by the slice's time */
        done = rows_search_more(r, SEARCH_CHUNK);
    while (done == 0 && now_ms() < deadline);
    if (done == 0) {
        ws_message(ws, false, "searching %u%%: %zu so far (n, N)", rows_search_progress(r),
                    r->n_matches);
        return true;
    }
    ws->search_tab = NULL;
    if (done < 0 || !r->pattern) {
        ws_message(ws, true, done < 0 ? "out of memory" : "search ended");
    } else if (r->n_matches == 0) {
        ws_message(ws, true, "not found in this section: %s", r->pattern);
    } else {
        ws_push_history(ws);
        bool wrapped = false;
        if (ws_tab(ws) == tab && rows_match_index(r) == 0)
            rows_search_step(r, 1, &wrapped);
        ws_message(ws, false, "%zu match%s (n, N)", r->n_matches, r->n_matches == 1 ? "" : "es");
    }
    return true;
}


bool ws_search_start(struct workspace *ws, const char *text)
{
    struct tab *tab = ws_tab(ws);
    if (ws->search_tab && ws->search_tab != tab) /* a search left unfinished elsewhere */
        rows_search(&ws->search_tab->rows, NULL);
    if (!rows_search_start(&tab->rows, text)) {
        ws_message(ws, true, "out of memory");
        return false;
    }
    ws->search_tab = tab;
    return true;
}

/* ---- findings ------------------------------------------------------------------------- */

static void findings_arrived(struct workspace *ws, const struct document *doc)
{
    for (size_t k = 0; k < ws->n_docs; k++) {
        struct doc_view *dv = &ws->docs[k];
        if (dv->doc != doc)
            continue;
        for (size_t i = 0; i < dv->n_tabs; i++)
            if (dv->tabs[i].ready)
                ws_tab_summary(ws, &dv->tabs[i]);
    }
}

void ws_take_news(struct workspace *ws, const struct jobs_news *news)
{
    for (size_t i = 0; i < news->n_done; i++)
        findings_arrived(ws, news->done[i]);
    if (news->error[0])
        ws_message(ws, true, "analysis: %s", news->error);
}

void ws_go_to_finding(struct workspace *ws, const struct analysis *a, size_t i)
{
    const struct finding *f = &a->findings[i];
    if (!f->node || !ws_jump_to(ws, (struct plan_node *)f->node, true)) {
        ws_message(ws, false, "%s (line %lu)", f->message, (unsigned long)f->line);
        return;
    }
    ws_message(ws, f->severity == SEVERITY_WARNING, "[%zu/%zu] %s %s: %s", i + 1, a->n_findings,
                analyze_rules[f->rule].id, severity_name(f->severity), f->message);
}


/* ---- the workspace ------------------------------------------------------------------- */

void ws_init(struct workspace *ws)
{
    memset(ws, 0, sizeof *ws);
}

void ws_free(struct workspace *ws)
{
    jobs_free(&ws->jobs); /* first: it stops the analysis thread, which reads the documents */
    for (size_t i = 0; i < ws->n_docs; i++) {
        struct doc_view *dv = &ws->docs[i];
        for (size_t j = 0; j < dv->n_tabs; j++)
            if (dv->tabs[j].ready) {
                rows_free(&dv->tabs[j].rows);
                if (dv->tabs[j].counts)
                    op_summary_stop(&dv->tabs[j].counts->sum);
                free(dv->tabs[j].counts);
            }
        free(dv->tabs);
        if (dv->owned)
            document_free(dv->doc);
    }
    free(ws->docs);
    memset(ws, 0, sizeof *ws);
}
