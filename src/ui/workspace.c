/* workspace.c: the documents the explorer shows and everything about them that is not
 * drawing (see tui.h): the tabs (one per section, plus AQE Final/Initial subtrees), making
 * a tab ready and indexing big ones between frames, the header's summary, the jump history
 * and jumps, the status message, the findings' arrival.  Any view may call it; it calls no
 * view. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sparkplan/load.h"
#include "sparkplan/opclass.h"
#include "sparkplan/tui.h"

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

/* Appends the tab's findings count to its summary line (when the document is analysed). */
static void findings_summary(const struct tui *t, struct tab *tab)
{
    const struct analysis *a = jobs_known(&t->jobs, tab->section->plan->doc);
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
    size_t len = strlen(tab->summary);
    snprintf(tab->summary + len, sizeof tab->summary - len, "%s%zu warning%s, %zu info (!)",
             t->utf8 ? " \xC2\xB7 " : " | ", warnings, warnings == 1 ? "" : "s", info);
}

void tui_tab_summary(struct tui *t, struct tab *tab)
{
    if (!tab->indexed) {
        snprintf(tab->summary, sizeof tab->summary, "%u nodes %s", tab->rows.end - tab->rows.begin,
                 t->utf8 ? "\xC2\xB7 counting\xE2\x80\xA6" : "| counting...");
        return;
    }
    op_summary_format(&tab->sum.sum, t->utf8, tab->summary, sizeof tab->summary);
    findings_summary(t, tab);
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
struct tab *tui_background_tab(struct tui *t)
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

void tui_push_history(struct tui *t)
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
        tui_push_history(t);
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

void tui_go_back(struct tui *t)
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

/* ---- tabs ---------------------------------------------------------------------------- */

static void section_label(const struct plan_section *s, unsigned codegen_i,
                          unsigned codegen_n, char *buf, size_t cap)
{
    switch (s->kind) {
    case SECTION_PARSED:
        snprintf(buf, cap, "Parsed");
        break;
    case SECTION_ANALYZED:
        snprintf(buf, cap, "Analyzed");
        break;
    case SECTION_OPTIMIZED:
        snprintf(buf, cap, "Optimized");
        break;
    case SECTION_PHYSICAL:
        snprintf(buf, cap, "Physical");
        break;
    case SECTION_SUBQUERY: {
        /* "Subquery:1 Hosting operator id = 3 ..." -> "Subquery:1" */
        size_t n = 0;
        while (n < s->title.len && n < 20 && s->title.ptr[n] != ' ')
            n++;
        if (n == 0)
            snprintf(buf, cap, "Subquery");
        else
            snprintf(buf, cap, "%.*s", (int)n, s->title.ptr);
        break;
    }
    case SECTION_CODEGEN:
        snprintf(buf, cap, "Codegen %u/%u", codegen_i, codegen_n);
        break;
    }
}

/* "== Final Plan ==" -> "Final" */
static void label_name(const struct plan_node *n, char *buf, size_t cap)
{
    struct slice s = slice_trim(n->text.len ? n->text : n->name);
    while (s.len && (s.ptr[0] == '=' || s.ptr[0] == ' '))
        s.ptr++, s.len--;
    while (s.len && (s.ptr[s.len - 1] == '=' || s.ptr[s.len - 1] == ' '))
        s.len--;
    if (s.len > 5 && memcmp(s.ptr + s.len - 5, " Plan", 5) == 0)
        s.len -= 5;
    if (s.len > 20)
        s.len = 20;
    snprintf(buf, cap, "%.*s", (int)s.len, s.ptr);
}

static bool add_tab(struct doc_view *dv, size_t *cap, struct plan_section *s,
                    struct plan_node *scope, const char *label, unsigned plan_no,
                    bool several_plans)
{
    if (dv->n_tabs == *cap) {
        size_t nc = *cap ? *cap * 2 : 8;
        struct tab *nt = realloc(dv->tabs, nc * sizeof *nt);
        if (!nt)
            return false;
        dv->tabs = nt;
        *cap = nc;
    }
    struct tab *t = &dv->tabs[dv->n_tabs++];
    memset(t, 0, sizeof *t);
    t->section = s;
    t->scope = scope;
    char clean[40];
    /* Labels come from the input: keep printable ASCII only. */
    size_t j = 0;
    for (size_t i = 0; label[i] && j + 1 < sizeof clean; i++) {
        unsigned char c = (unsigned char)label[i];
        clean[j++] = (c >= 0x20 && c < 0x7F) ? (char)c : '?';
    }
    clean[j] = '\0';
    if (several_plans && s->plan->source.cell)
        /* A notebook's plans are known by their cells: "c12:Physical". */
        snprintf(t->label, sizeof t->label, "c%u:%.30s", (unsigned)s->plan->source.cell, clean);
    else if (several_plans)
        snprintf(t->label, sizeof t->label, "%u:%s", plan_no, clean);
    else
        snprintf(t->label, sizeof t->label, "%s", clean);
    return true;
}

/* The outermost AdaptiveSparkPlan of a section, found in pre-order (linear once). */
static struct plan_node *outer_adaptive(const struct plan_section *s)
{
    for (uint32_t i = 0; i < s->n_nodes; i++) {
        struct slice w = op_word(s->preorder[i]);
        if (slice_eq_cstr(w, "AdaptiveSparkPlan"))
            return s->preorder[i];
    }
    return NULL;
}

bool tui_build_tabs(struct doc_view *dv)
{
    size_t cap = 0;
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
            if (!add_tab(dv, &cap, s, NULL, label, plan_no, several))
                return false;
            if (s->kind != SECTION_PHYSICAL)
                continue;
            /* Only an adaptive plan has labels to split on: no pass over the others. */
            struct plan_node *a = p->adaptive ? outer_adaptive(s) : NULL;
            for (struct plan_node *c = a ? a->first_child : NULL; c; c = c->next_sibling) {
                if (!(c->flags & NODE_LABEL))
                    continue;
                label_name(c, label, sizeof label);
                if (!add_tab(dv, &cap, s, c, label, plan_no, several))
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
int tui_index_slice(struct tui *t)
{
    double deadline = now_ms() + INDEX_SLICE_MS;
    int re = RE_NONE;
    struct tab *tab;
    while ((tab = tui_background_tab(t)) && now_ms() < deadline) /* bounded by the slice's time */
        if (tab_index_step(t, tab, INDEX_CHUNK))
            re = RE_DRAW | RE_LAYOUT;
    return re;
}

/* ---- documents and search -------------------------------------------------------------- */

bool tui_add_document(struct tui *t, struct document *doc, bool owned)
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


/* A paste (bracketed, or p ... Ctrl-d) becomes a new document and is shown (true), or
 * the message says why not. */
bool tui_open_paste(struct tui *t, char *bytes, size_t len)
{
    char name[32];
    snprintf(name, sizeof name, "paste %u", t->pastes + 1);
    struct document *doc = NULL;
    struct diag err = {0};
    if (load_bytes(name, bytes, len, &doc, &err) != SP_OK) {
        tui_message(t, true, "%s: %s", name, err.message);
        return false;
    }
    if (!tui_add_document(t, doc, true)) {
        document_free(doc);
        tui_message(t, true, "%s: no plan sections to show", name);
        return false;
    }
    t->pastes++;
    tui_push_history(t);
    t->cur_doc = t->n_docs - 1;
    if (doc->first_warning)
        tui_message(t, false, "%s: %zu nodes; %s", name, doc->n_all_nodes,
                    doc->first_warning->message);
    else
        tui_message(t, false, "%s: %zu nodes (D lists the documents)", name, doc->n_all_nodes);
    return true;
}

/* Text bytes a search reads between two looks at the clock, and how long it may run
 * before the explorer draws and reads keys again: a plan of a million nodes is 233 MB of
 * text, more than one frame can read. */
#define SEARCH_CHUNK (4u << 20)

/* Runs the search of t->search_tab for a slice; when it is done, goes to the first match
 * from the selection (once: the search's Enter) and says how many there are. */
int tui_search_slice(struct tui *t)
{
    struct tab *tab = t->search_tab;
    if (tab && !rows_searching(&tab->rows))
        t->search_tab = tab = NULL; /* cleared, or replaced by a trace (*) */
    if (!tab)
        return RE_NONE;
    struct rows *r = &tab->rows;
    double deadline = now_ms() + INDEX_SLICE_MS;
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
        tui_push_history(t);
        bool wrapped = false;
        if (tui_tab(t) == tab && rows_match_index(r) == 0)
            rows_search_step(r, 1, &wrapped);
        tui_message(t, false, "%zu match%s (n, N)", r->n_matches, r->n_matches == 1 ? "" : "es");
    }
    return RE_DRAW;
}


bool tui_search_start(struct tui *t, const char *text)
{
    struct tab *tab = tui_tab(t);
    if (t->search_tab && t->search_tab != tab) /* a search left unfinished elsewhere */
        rows_search(&t->search_tab->rows, NULL);
    if (!rows_search_start(&tab->rows, text)) {
        tui_message(t, true, "out of memory");
        return false;
    }
    t->search_tab = tab;
    return true;
}

/* ---- findings ------------------------------------------------------------------------- */

void tui_findings_arrived(struct tui *t, const struct document *doc)
{
    for (size_t k = 0; k < t->n_docs; k++) {
        struct doc_view *dv = &t->docs[k];
        if (dv->doc != doc)
            continue;
        for (size_t i = 0; i < dv->n_tabs; i++)
            if (dv->tabs[i].ready)
                tui_tab_summary(t, &dv->tabs[i]);
    }
    decor_forget(t);
    t->details_gen++;
}

void tui_take_news(struct tui *t, const struct jobs_news *news)
{
    for (size_t i = 0; i < news->n_done; i++)
        tui_findings_arrived(t, news->done[i]);
    if (news->error[0])
        tui_message(t, true, "analysis: %s", news->error);
}

void tui_go_to_finding(struct tui *t, const struct analysis *a, size_t i)
{
    const struct finding *f = &a->findings[i];
    if (!f->node || !tui_jump_to(t, (struct plan_node *)f->node, true)) {
        tui_message(t, false, "%s (line %lu)", f->message, (unsigned long)f->line);
        return;
    }
    tui_message(t, f->severity == SEVERITY_WARNING, "[%zu/%zu] %s %s: %s", i + 1, a->n_findings,
                analyze_rules[f->rule].id, severity_name(f->severity), f->message);
}

