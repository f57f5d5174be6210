/* view_insight.c: the teaching features of the explorer (see tui.h) — the operator
 * explanation (i), findings in the gutter and their list (! f F), expression-id traces (*),
 * the flipped tree (r) and the guided walk (w).  The reading is done by the core (analyze,
 * catalog, exprid, walk); this file keeps the state and draws the two lists.
 *
 * The analysis runs on a thread of its own, started after the first frame, so no key waits
 * for it: the status line says "analysing…" meanwhile, and when the thread is done the main
 * loop (its wake pipe is in the loop's poll set) installs the findings and redraws.  The
 * thread only reads the document, which nothing changes once it is loaded, and writes
 * nothing but its job; the main thread reads the job after pthread_join.  One thread at a
 * time; other documents shown meanwhile wait their turn. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "sparkplan/analyze.h"
#include "sparkplan/draw.h"
#include "sparkplan/exprid.h"
#include "sparkplan/insight.h"
#include "sparkplan/nodeinfo.h"
#include "sparkplan/thread.h"
#include "sparkplan/tui.h"
#include "sparkplan/walk.h"

/* Every document is analysed as soon as it is shown, whatever its size: the analysis costs
 * no key any time (it runs on its own thread, and quitting stops it within a millisecond),
 * and little memory: on the 1,000,000-node formatted plan (233 MB) it holds about 11 MB
 * (one byte a node of scratch, a table index, at most 5,000 findings a rule) next to the
 * document's 367 MB, and takes about 2 s of the second core. */
#define MAX_REFS 64

enum analysis_state {
    AN_NONE,      /* not asked for yet */
    AN_QUEUED,    /* shown: to be analysed when the thread is free (or the first frame is out) */
    AN_RUNNING,   /* the thread is at it */
    AN_DONE,      /* a holds the findings, or NULL when the analysis failed */
};

struct insight_doc {
    const struct document *doc;
    struct analysis *a;
    enum analysis_state state;
};

/* The one background analysis.  The thread reads doc, cancel and gate and writes result,
 * status and err, then a byte into wake_fd; the main thread reads them after joining it. */
struct job {
    bool running;
    pthread_t thread;
    const struct document *doc;
    atomic_int cancel;            /* set on quit: the analysis stops within a millisecond */
    const char *gate;             /* tests: start only once this file exists (see below) */
    int wake_fd;
    struct analysis *result;
    enum sp_status status;
    struct diag err;
};

/* For the tests: SPARKPLAN_TEST_ANALYSIS_GATE=FILE holds the analysis back until FILE
 * exists, so a test can show that keys are answered while it runs, however fast or slow
 * the machine is. */
#define GATE_ENV "SPARKPLAN_TEST_ANALYSIS_GATE"

static struct {
    struct insight_doc *docs;
    size_t n_docs, cap_docs;

    /* the list overlay: findings of a document, or the ids of a node */
    size_t sel, top;
    struct exprid_ref refs[MAX_REFS];
    size_t n_refs;
    const struct plan_node *refs_node;

    /* the traced expression id (a search for another text ends it) */
    char trace_text[256];
    bool tracing;
    uint64_t trace_id;
    const struct plan_node *producer;
    const struct tab *trace_tab;

    /* the tab whose gutter need was last computed */
    const struct tab *marks_tab;
    bool marks_tab_has;

    /* the guided walk */
    bool walking, explain_before;
    struct walk walk;
    const struct plan_section *walk_section; /* the section walked: shown while walking */
    size_t step;

    /* no analysis yet: the first frame is being drawn (insight_hold) */
    bool held;

    struct job job;
    int wake[2];                  /* the job's wake pipe: read end polled by the loop */
    bool wake_open;
    /* ! f F pressed while the document was being analysed: done when the findings are in,
     * forgotten at the next key */
    enum key_action pending;
    const struct document *pending_doc;
} S;

/* ---- analyses, one per document ------------------------------------------------------ */

static struct insight_doc *entry_of(const struct document *doc)
{
    for (size_t i = 0; i < S.n_docs; i++)  /* a handful of documents */
        if (S.docs[i].doc == doc)
            return &S.docs[i];
    if (S.n_docs == S.cap_docs) {
        size_t cap = S.cap_docs ? S.cap_docs * 2 : 4;
        struct insight_doc *nd = realloc(S.docs, cap * sizeof *nd);
        if (!nd)
            return NULL;
        S.docs = nd;
        S.cap_docs = cap;
    }
    S.docs[S.n_docs] = (struct insight_doc){doc, NULL, AN_NONE};
    return &S.docs[S.n_docs++];
}

static void *analysis_thread(void *arg)
{
    struct job *j = arg;
#ifdef __linux__
    /* Below the explorer and the terminal: on a machine of two cores the analysis would
     * otherwise take the CPU the terminal needs to show the first screen.  On Linux the
     * nice value is the thread's own (elsewhere it would be the whole process's). */
    setpriority(PRIO_PROCESS, 0, 10);
#endif
    while (j->gate && access(j->gate, F_OK) != 0 &&
           !atomic_load_explicit(&j->cancel, memory_order_relaxed)) { /* tests only; quit ends it */
        struct timespec ts = {0, 5000000L};
        nanosleep(&ts, NULL);
    }
    j->status = analyze_document_cancellable(j->doc, &j->cancel, &j->result, &j->err);
    ssize_t w;
    do
        w = write(j->wake_fd, "", 1);
    while (w < 0 && errno == EINTR);
    return NULL;
}

static bool open_wake_pipe(void)
{
    if (S.wake_open)
        return true;
    if (pipe(S.wake) != 0)
        return false;
    for (int i = 0; i < 2; i++)
        fcntl(S.wake[i], F_SETFD, FD_CLOEXEC);
    fcntl(S.wake[0], F_SETFL, fcntl(S.wake[0], F_GETFL) | O_NONBLOCK);
    S.wake_open = true;
    return true;
}

/* Starts the thread on d; false when no thread can be had. */
static bool job_start(struct insight_doc *d)
{
    if (!open_wake_pipe())
        return false;
    struct job *j = &S.job;
    j->doc = d->doc;
    j->result = NULL;
    j->status = SP_OK;
    memset(&j->err, 0, sizeof j->err);
    atomic_store(&j->cancel, 0);
    j->gate = getenv(GATE_ENV);
    j->wake_fd = S.wake[1];
    if (!thread_start_quiet(&j->thread, analysis_thread, j))
        return false;
    j->running = true;
    d->state = AN_RUNNING;
    return true;
}

/* Waits for the thread (it has written its byte, or was cancelled) and takes its result. */
static void job_finish(struct tui *t)
{
    struct job *j = &S.job;
    pthread_join(j->thread, NULL);
    j->running = false;
    struct insight_doc *d = entry_of(j->doc);
    if (!d) {
        analysis_free(j->result);
        return;
    }
    d->state = AN_DONE;
    d->a = j->result;
    if (j->status != SP_OK && j->status != SP_ERR_CANCELLED && t)
        tui_message(t, true, "analysis: %s", j->err.message);
}

/* Analyses d here and now (no thread could be started: the old way, the key waits). */
static void analyse_now(struct tui *t, struct insight_doc *d)
{
    struct diag err = {0};
    d->state = AN_DONE;
    if (analyze_document(d->doc, &d->a, &err) != SP_OK)
        tui_message(t, true, "analysis: %s", err.message);
}

/* Starts the next analysis when the thread is free: the shown document's first.  True
 * when findings came in at once (no thread: analysed in place). */
static bool pump(struct tui *t)
{
    if (S.held || S.job.running)
        return false;
    struct insight_doc *next = NULL;
    const struct document *shown = tui_doc(t)->doc;
    for (size_t i = 0; i < S.n_docs; i++)  /* a handful of documents */
        if (S.docs[i].state == AN_QUEUED && (!next || S.docs[i].doc == shown))
            next = &S.docs[i];
    if (!next || job_start(next))
        return false;
    analyse_now(t, next);
    return true;
}

/* The document's findings, or NULL while they are not known; asks for them (an analysis
 * in the background) when ask is set. */
static struct analysis *analysis_of(struct tui *t, const struct document *doc, bool ask)
{
    struct insight_doc *d = entry_of(doc);
    if (!d)
        return NULL;
    if (ask && d->state == AN_NONE) {
        d->state = AN_QUEUED;
        if (pump(t))
            S.marks_tab = NULL; /* gutter needs change with the findings */
    }
    return d->a;
}

/* Is the document's analysis still to come? */
static bool analysing(const struct document *doc)
{
    for (size_t i = 0; i < S.n_docs; i++)
        if (S.docs[i].doc == doc)
            return S.docs[i].state == AN_QUEUED || S.docs[i].state == AN_RUNNING;
    return false;
}

/* The trace holds while its tab still searches for the traced id. */
static bool trace_live(const struct tab *tab)
{
    return S.tracing && tab == S.trace_tab && tab->rows.pattern &&
           strcmp(tab->rows.pattern, S.trace_text) == 0;
}

static struct analysis *current_analysis(struct tui *t, bool force)
{
    return analysis_of(t, tui_doc(t)->doc, force);
}

/* Read-only lookup for drawing: never analyses. */
static const struct analysis *known_analysis(const struct tui *t)
{
    const struct document *doc = t->docs[t->cur_doc].doc;
    for (size_t i = 0; i < S.n_docs; i++)
        if (S.docs[i].doc == doc)
            return S.docs[i].a;
    return NULL;
}

void insight_hold(void)
{
    S.held = true;
}

/* The findings of a document are in: every tab showing it counts them in its summary, the
 * gutter may need its column, the details gain the node's findings. */
static void findings_arrived(struct tui *t, const struct document *doc)
{
    for (size_t k = 0; k < t->n_docs; k++) {
        struct doc_view *dv = &t->docs[k];
        if (dv->doc != doc)
            continue;
        for (size_t i = 0; i < dv->n_tabs; i++)
            if (dv->tabs[i].ready)
                tui_tab_summary(t, &dv->tabs[i]);
    }
    S.marks_tab = NULL;
    t->det_node = NULL;
}

bool insight_release(struct tui *t)
{
    S.held = false;
    const struct document *doc = tui_doc(t)->doc;
    struct insight_doc *d = entry_of(doc);
    if (d && d->state == AN_NONE)
        d->state = AN_QUEUED;
    if (!pump(t)) /* a thread took it, or nothing to do */
        return false;
    findings_arrived(t, doc);
    return true;
}

int insight_wake_fd(void)
{
    return S.job.running ? S.wake[0] : -1;
}

const char *insight_busy(const struct tui *t)
{
    if (!analysing(t->docs[t->cur_doc].doc))
        return NULL;
    return t->utf8 ? "analysing\xE2\x80\xA6" : "analysing...";
}

void insight_forget_key(void)
{
    S.pending = KA_NONE;
    S.pending_doc = NULL;
}

int insight_collect(struct tui *t)
{
    char drain[16];
    while (read(S.wake[0], drain, sizeof drain) > 0) /* bounded: one byte a job */
        ;
    if (!S.job.running)
        return RE_NONE;
    const struct document *doc = S.job.doc;
    job_finish(t);
    findings_arrived(t, doc);
    if (pump(t)) /* the next shown document, if any, then */
        findings_arrived(t, tui_doc(t)->doc);
    enum key_action pending = S.pending;
    bool here = S.pending_doc == tui_doc(t)->doc;
    insight_forget_key();
    int re = RE_DRAW | RE_LAYOUT;
    if (pending == KA_NONE)
        return re;
    t->msg[0] = '\0'; /* "still analysing": no longer */
    if (here && t->overlay == OVERLAY_NONE && t->prompt == PROMPT_NONE && !S.walking)
        re |= insight_key(t, pending);
    return re;
}

void insight_free(struct tui *t)
{
    (void)t;
    if (S.job.running) {
        atomic_store(&S.job.cancel, 1);
        job_finish(NULL);
    }
    if (S.wake_open) {
        close(S.wake[0]);
        close(S.wake[1]);
    }
    for (size_t i = 0; i < S.n_docs; i++)
        analysis_free(S.docs[i].a);
    free(S.docs);
    walk_free(&S.walk);
    memset(&S, 0, sizeof S);
}

/* ---- gutter marks -------------------------------------------------------------------- */

bool insight_tab_has_marks(struct tui *t, const struct tab *tab)
{
    const struct analysis *a = analysis_of(t, tab->section->plan->doc, true);
    if (trace_live(tab))
        return true;
    if (!a)
        return false;
    if (S.marks_tab == tab)
        return S.marks_tab_has;
    S.marks_tab = tab;
    S.marks_tab_has = false;
    for (size_t i = 0; i < a->n_findings && !S.marks_tab_has; i++) {
        const struct plan_node *n = a->findings[i].node;
        S.marks_tab_has = n && rows_contains(&tab->rows, n);
    }
    return S.marks_tab_has;
}

void insight_tab_summary(struct tui *t, struct tab *tab)
{
    const struct analysis *a = analysis_of(t, tab->section->plan->doc, true);
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

const char *insight_mark(const struct tui *t, const struct plan_node *n, enum role *role)
{
    const struct doc_view *dv = &t->docs[t->cur_doc];
    if (n == S.producer && trace_live(&dv->tabs[dv->cur])) {
        *role = ROLE_LINK;
        return t->utf8 && !t->ascii ? "\xE2\x97\x86" : "P";  /* ◆ */
    }
    const struct analysis *a = known_analysis(t);
    int sev = a ? analysis_node_severity(a, n) : -1;
    if (sev == SEVERITY_WARNING) {
        *role = ROLE_ERROR;
        return "!";
    }
    if (sev == SEVERITY_INFO) {
        *role = ROLE_HINT;
        return "i";
    }
    return NULL;
}

/* ---- the flipped tree ----------------------------------------------------------------- */

enum key_action insight_flip_action(const struct tui *t, enum key_action a)
{
    if (!t->flipped)
        return a;
    switch (a) {
    case KA_DOWN: return KA_UP;
    case KA_UP: return KA_DOWN;
    case KA_PAGE_DOWN: return KA_PAGE_UP;
    case KA_PAGE_UP: return KA_PAGE_DOWN;
    case KA_HALF_DOWN: return KA_HALF_UP;
    case KA_HALF_UP: return KA_HALF_DOWN;
    case KA_FIRST: return KA_LAST;
    case KA_LAST: return KA_FIRST;
    case KA_WHEEL_DOWN: return KA_WHEEL_UP;
    case KA_WHEEL_UP: return KA_WHEEL_DOWN;
    default: return a;
    }
}

static void replace_all(char *buf, size_t cap, const char *from, const char *to)
{
    size_t fl = strlen(from), tl = strlen(to);
    char *p = buf;
    while ((p = strstr(p, from)) != NULL) {  /* bounded by the prefix buffer */
        size_t rest = strlen(p + fl);
        if ((size_t)(p - buf) + tl + rest + 1 > cap)
            return;
        memmove(p + tl, p + fl, rest + 1);
        memcpy(p, to, tl);
        p += tl;
    }
}

void insight_flip_prefix(struct rows_prefix *pf, bool ascii)
{
    if (ascii) {
        replace_all(pf->guides, sizeof pf->guides, "\\-", "/-");
        return;
    }
    replace_all(pf->guides, sizeof pf->guides, "\xE2\x94\x94", "\xE2\x94\x8C");  /* └ -> ┌ */
    replace_all(pf->glyph, sizeof pf->glyph, "\xE2\x96\xBE", "\xE2\x96\xB4");    /* ▾ -> ▴ */
}

/* ---- details -------------------------------------------------------------------------- */

static void add_wrapped(struct tui *t, enum role role, const char *text, int indent)
{
    struct insight_text lines;
    int width = t->det_width > 12 ? t->det_width - 1 : 12;
    if (!insight_wrap_text(text, width, indent, &lines))
        return;
    for (size_t i = 0; i < lines.n_lines; i++)
        details_add_line(t, role, 0, lines.lines[i]);
    insight_text_free(&lines);
}

void insight_details(struct tui *t, const struct plan_node *n)
{
    const struct analysis *a = analysis_of(t, n->section->plan->doc, true);
    size_t k = 0;
    struct finding *const *f = a ? analysis_node_findings(a, n, &k) : NULL;
    if (k) {
        details_add_line(t, ROLE_NORMAL, 0, "");
        details_add_line(t, ROLE_TITLE, 0, k == 1 ? "Finding" : "Findings");
        for (size_t i = 0; i < k; i++) {
            const struct rule *r = &analyze_rules[f[i]->rule];
            char line[600];
            snprintf(line, sizeof line, "%s %s %s: %s", f[i]->severity == SEVERITY_WARNING ? "!" : "i",
                     r->id, severity_name(f[i]->severity), f[i]->message);
            add_wrapped(t, f[i]->severity == SEVERITY_WARNING ? ROLE_ERROR : ROLE_NORMAL, line, 0);
            if (f[i]->severity == SEVERITY_WARNING)
                add_wrapped(t, ROLE_HINT, r->todo, 2);
        }
    }
    if (!t->explain)
        return;
    details_add_line(t, ROLE_NORMAL, 0, "");
    struct insight_text entry;
    int width = t->det_width > 12 ? t->det_width - 1 : 12;
    bool known = insight_format_entry(n->name.len ? n->name : n->text, width, &entry);
    for (size_t i = 0; i < entry.n_lines; i++) {
        const char *line = entry.lines[i];
        enum role role = ROLE_NORMAL;
        if (i == 0 || strcmp(line, "What it does") == 0 || strcmp(line, "What to check") == 0)
            role = ROLE_TITLE;
        details_add_line(t, role, 0, line);
    }
    if (!known)
        details_add_line(t, ROLE_HINT, 0, "(its text above is all there is to go on)");
    insight_text_free(&entry);
}

/* ---- the lists ------------------------------------------------------------------------ */

static size_t list_len(const struct tui *t)
{
    if (t->overlay == OVERLAY_IDS)
        return S.n_refs < MAX_REFS ? S.n_refs : MAX_REFS;
    const struct analysis *a = known_analysis(t);
    return a ? a->n_findings : 0;
}

/* The list's box: one row per entry, as many as fit. */
static struct box list_box(const struct tui *t)
{
    return overlay_place(102, (int)list_len(t) + 2);
}

static int list_rows(const struct tui *t)
{
    struct box in = overlay_inside(list_box(t));
    return in.h > 0 ? in.h : 1;
}

void insight_list_draw(const struct tui *t)
{
    size_t n = list_len(t);
    char title[3][160];
    const char *const titles[4] = {title[0], title[1], title[2], NULL};
    if (t->overlay == OVERLAY_FINDINGS) {
        snprintf(title[0], sizeof title[0], "Findings: %zu (Enter goes to one, q closes)", n);
        snprintf(title[1], sizeof title[1], "Findings: %zu (q closes)", n);
        snprintf(title[2], sizeof title[2], "Findings: %zu", n);
    } else {
        snprintf(title[0], sizeof title[0], "Expression ids of this node (Enter traces one, q closes)");
        snprintf(title[1], sizeof title[1], "Expression ids (Enter traces one)");
        snprintf(title[2], sizeof title[2], "Expression ids");
    }
    struct box in = overlay_draw(t, list_box(t), titles);
    struct draw_line dl;
    size_t first = S.top;
    const struct analysis *a = known_analysis(t);
    for (int r = 0; r < in.h && first + (size_t)r < n; r++) {
        size_t i = first + (size_t)r;
        enum variant v = i == S.sel ? VAR_SELECTED : VAR_PLAIN;
        draw_line_start(&dl, in.y + r, in.x, in.w, 0);
        if (t->overlay == OVERLAY_FINDINGS) {
            const struct finding *f = &a->findings[i];
            char head[48];
            snprintf(head, sizeof head, " %6lu %s %s ", (unsigned long)f->line,
                     f->severity == SEVERITY_WARNING ? "!" : "i", analyze_rules[f->rule].id);
            draw_puts(&dl, head, theme_attr(f->severity == SEVERITY_WARNING ? ROLE_ERROR : ROLE_HINT, v));
            draw_puts(&dl, f->message, theme_attr(ROLE_NORMAL, v)); /* sanitized by draw */
        } else {
            const struct exprid_ref *ref = &S.refs[i];
            draw_puts(&dl, " ", theme_attr(ROLE_NORMAL, v));
            draw_put(&dl, ref->text, theme_attr(ref->normalized ? ROLE_HINT : ROLE_TITLE, v), true);
            if (ref->normalized)
                draw_puts(&dl, "   (normalized #x: cannot be traced)", theme_attr(ROLE_HINT, v));
        }
        draw_fill(&dl, theme_attr(ROLE_NORMAL, v));
        draw_cut_marker(&dl, theme_attr(ROLE_CUT, v));
    }
}

static void list_move(const struct tui *t, long delta)
{
    size_t n = list_len(t);
    if (!n)
        return;
    long s = (long)S.sel + delta;
    if (s < 0)
        s = 0;
    if (s >= (long)n)
        s = (long)n - 1;
    S.sel = (size_t)s;
    size_t rows = (size_t)list_rows(t);
    if (S.sel < S.top)
        S.top = S.sel;
    else if (S.sel >= S.top + rows)
        S.top = S.sel - rows + 1;
}

static void go_to_finding(struct tui *t, const struct analysis *a, size_t i)
{
    const struct finding *f = &a->findings[i];
    if (!f->node || !tui_jump_to(t, (struct plan_node *)f->node, true)) {
        tui_message(t, false, "%s (line %lu)", f->message, (unsigned long)f->line);
        return;
    }
    tui_message(t, f->severity == SEVERITY_WARNING, "[%zu/%zu] %s %s: %s", i + 1, a->n_findings,
                analyze_rules[f->rule].id, severity_name(f->severity), f->message);
}

/* Sets the tab's search matches to the nodes mentioning the id, so n/N step through them
 * and the id is highlighted in each row. */
static void trace_id(struct tui *t, const struct exprid_ref *ref)
{
    struct tab *tab = tui_tab(t);
    struct rows *r = &tab->rows;
    struct exprid_hits hits;
    struct diag err = {0};
    if (exprid_find(tab->section->plan->doc, tab->section->plan, tab->section, ref->id, &hits,
                    &err) != SP_OK) {
        tui_message(t, true, "%s", err.message);
        return;
    }
    uint32_t *pos = malloc((hits.n ? hits.n : 1) * sizeof *pos);
    char *pattern = malloc(ref->text.len + 1);
    if (!pos || !pattern) {
        free(pos), free(pattern);
        exprid_hits_free(&hits);
        tui_message(t, true, "out of memory");
        return;
    }
    size_t k = 0;
    for (size_t i = 0; i < hits.n; i++)  /* hits are in input order: pre-order in a section */
        if (rows_contains(r, hits.nodes[i]))
            pos[k++] = hits.nodes[i]->preorder;
    memcpy(pattern, ref->text.ptr, ref->text.len);
    pattern[ref->text.len] = '\0';
    /* The row highlight compares like the search: exact when the id has capitals (10L),
     * folded otherwise, and an id without capitals is already lower-case. */
    free(r->pattern);
    free(r->matches);
    r->pattern = pattern;
    r->matches = pos;
    r->n_matches = k;
    S.tracing = true;
    snprintf(S.trace_text, sizeof S.trace_text, "%s", pattern);
    S.trace_id = ref->id;
    S.trace_tab = tab;
    S.producer = hits.producer;
    S.marks_tab = NULL;
    if (hits.producer && rows_contains(r, hits.producer))
        rows_select_centered(r, (struct plan_node *)hits.producer);
    else if (k)
        rows_select_centered(r, r->section->preorder[pos[0]]);
    char where[160] = "not in this plan";
    if (hits.producer) {
        struct slice w = catalog_operator_name(hits.producer->name.len ? hits.producer->name
                                                                       : hits.producer->text);
        snprintf(where, sizeof where, "%.*s on line %lu", (int)(w.len > 60 ? 60 : w.len), w.ptr,
                 (unsigned long)hits.producer->line);
    }
    tui_message(t, false, "%.*s: %zu node%s here, %zu in the plan; produced by %s (n, N step)",
                (int)(ref->text.len > 60 ? 60 : ref->text.len), ref->text.ptr, k,
                k == 1 ? "" : "s", hits.n, where);
    exprid_hits_free(&hits);
}

int insight_list_key(struct tui *t, enum key_action a)
{
    switch (a) {
    case KA_I_DOWN:
        list_move(t, 1);
        break;
    case KA_I_UP:
        list_move(t, -1);
        break;
    case KA_I_PAGE_DOWN:
        list_move(t, list_rows(t));
        break;
    case KA_I_PAGE_UP:
        list_move(t, -list_rows(t));
        break;
    case KA_I_CLOSE:
        t->overlay = OVERLAY_NONE;
        return RE_DRAW | RE_FULL;
    case KA_I_OPEN: {
        enum overlay which = t->overlay;
        t->overlay = OVERLAY_NONE;
        if (which == OVERLAY_FINDINGS) {
            const struct analysis *an = known_analysis(t);
            if (an && S.sel < an->n_findings)
                go_to_finding(t, an, S.sel);
        } else if (S.sel < S.n_refs && S.sel < MAX_REFS) {
            if (S.refs[S.sel].normalized)
                tui_message(t, true, "normalized ids (#x) cannot be traced: every id reads the same");
            else
                trace_id(t, &S.refs[S.sel]);
        }
        return RE_DRAW | RE_LAYOUT | RE_FULL;
    }
    default:
        return RE_NONE;
    }
    return RE_DRAW;
}

/* ---- the guided walk -------------------------------------------------------------------- */

bool insight_walking(const struct tui *t)
{
    (void)t;
    return S.walking;
}

/* How the step relates to the stages: it reads what another stage wrote (a stage boundary
 * crossed), or a new stage starts at a leaf that reads a table or rows of its own. */
static void step_entry(const struct walk_step *st, char *buf, size_t cap)
{
    buf[0] = '\0';
    if (st->crosses_exchange) {
        enum catalog_role r = node_role(st->reads);
        const char *what = r == CAT_REUSED      ? "reuses an exchange that already ran"
                           : r == CAT_BROADCAST ? "reads the broadcast"
                           : r == CAT_SUBQUERY  ? "uses the subquery result"
                                                : "reads the shuffle";
        if (st->reads_stage)
            snprintf(buf, cap, " (crossed a stage boundary: %s from stage %u)", what,
                     st->reads_stage);
        else
            snprintf(buf, cap, " (crossed a stage boundary: %s)", what);
    } else if (st->starts_stage && S.step > 0) {
        enum catalog_role r = node_role(st->node);
        snprintf(buf, cap, " (a new stage starts %s)",
                 st->node->first_child                                ? "here"
                 : r == CAT_SCAN || r == CAT_CACHE || r == CAT_RELATION ? "at a scan"
                                                                        : "at this leaf");
    }
}

static void show_step(struct tui *t)
{
    const struct walk_step *st = &S.walk.steps[S.step];
    tui_jump_to(t, (struct plan_node *)st->node, false);
    t->det_node = NULL;  /* the details follow the step */
    struct slice w = catalog_operator_name(st->node->name.len ? st->node->name : st->node->text);
    const struct catalog_entry *e = catalog_lookup_slice(w);
    char what[160] = "";
    if (st->ends_stage)
        snprintf(what, sizeof what, ": %s, stage %u ends here",
                 e && e->role == CAT_BROADCAST ? "collects and broadcasts its rows"
                 : e && e->role == CAT_SUBQUERY ? "runs the subquery"
                                                 : "writes the shuffle",
                 st->stage);
    else if (S.step == 0)
        snprintf(what, sizeof what, ": execution starts here (Space next, b back, q ends)");
    char how[120];
    step_entry(st, how, sizeof how);
    tui_message(t, false, "walk %zu/%zu, stage %u/%u%s: %.*s%s", S.step + 1, S.walk.n, st->stage,
                S.walk.n_stages, how, (int)(w.len > 60 ? 60 : w.len), w.ptr, what);
}

static int start_walk(struct tui *t)
{
    struct tab *tab = tui_tab(t);
    struct diag err = {0};
    walk_free(&S.walk);
    if (walk_section(tab->section, tab->scope, &S.walk, &err) != SP_OK) {
        tui_message(t, true, "%s", err.message);
        return RE_DRAW;
    }
    if (S.walk.n == 0) {
        tui_message(t, true, "nothing to walk through in this section");
        return RE_DRAW;
    }
    current_analysis(t, true);
    S.walking = true;
    S.walk_section = tab->section;
    S.explain_before = t->explain;
    t->explain = true;
    S.step = 0;
    t->focus = FOCUS_TREE;
    show_step(t);
    return RE_DRAW | RE_LAYOUT;
}

static void end_walk(struct tui *t)
{
    S.walking = false;
    t->explain = S.explain_before;
    t->det_node = NULL;
    walk_free(&S.walk);
    tui_message(t, false, "walk ended");
}

void insight_walk_follow(struct tui *t)
{
    if (!S.walking || tui_tab(t)->section == S.walk_section)
        return;
    /* Another document (a paste, D, a jump back) is shown: its keys are not the walk's. */
    char before[sizeof t->msg];
    snprintf(before, sizeof before, "%s", t->msg);
    bool error = t->msg_error;
    end_walk(t);
    if (before[0])
        tui_message(t, error, "%s; walk ended", before);
    else
        tui_message(t, false, "walk ended: its document is no longer shown");
}

int insight_walk_key(struct tui *t, enum key_action a)
{
    switch (a) {
    case KA_W_NEXT:
        if (S.step + 1 >= S.walk.n) {
            tui_message(t, false, "the plan's result comes out of this last step (q ends the walk)");
            return RE_DRAW;
        }
        S.step++;
        break;
    case KA_W_PREV:
        if (S.step == 0) {
            tui_message(t, false, "this is the first step");
            return RE_DRAW;
        }
        S.step--;
        break;
    case KA_W_FIRST:
        S.step = 0;
        break;
    case KA_W_LAST:
        S.step = S.walk.n - 1;
        break;
    case KA_W_END:
        end_walk(t);
        return RE_DRAW | RE_LAYOUT;
    default:
        return RE_NONE;
    }
    show_step(t);
    return RE_DRAW | RE_LAYOUT;
}

/* ---- the tree's insight keys -------------------------------------------------------------- */

/* ! f F before the findings are in: the key is remembered and done when they come (the
 * main loop calls insight_collect), unless another key comes first.  Waiting instead would
 * freeze the screen for seconds on a big plan (about 2 s at a million nodes); doing nothing
 * would make the key look broken. */
static int when_findings_are_in(struct tui *t, enum key_action a)
{
    S.pending = a;
    S.pending_doc = tui_doc(t)->doc;
    tui_message(t, false, "still analysing: %s when the findings are in",
                a == KA_FINDINGS ? "the list opens" : "goes to the finding");
    return RE_DRAW;
}

static int step_finding(struct tui *t, bool forward)
{
    struct analysis *a = current_analysis(t, true);
    if (!a && analysing(tui_doc(t)->doc))
        return when_findings_are_in(t, forward ? KA_NEXT_FINDING : KA_PREV_FINDING);
    const struct plan_node *sel = tui_tab(t)->rows.sel;
    if (!a || a->n_findings == 0) {
        tui_message(t, true, "no findings in this document");
        return RE_DRAW;
    }
    long i = analysis_next_finding(a, sel ? sel->line : 0, forward);
    /* Skip findings without a node (they have nothing to select). */
    for (size_t guard = 0; i >= 0 && !a->findings[i].node && guard < a->n_findings; guard++)
        i = analysis_next_finding(a, a->findings[i].line, forward);
    if (i < 0 || !a->findings[i].node) {
        tui_message(t, true, "no findings on nodes in this document");
        return RE_DRAW;
    }
    /* Several findings on one line: name the warning first. */
    uint32_t line = a->findings[i].line;
    while (i > 0 && a->findings[i - 1].line == line)
        i--;
    for (size_t j = (size_t)i; j < a->n_findings && a->findings[j].line == line; j++)
        if (a->findings[j].severity == SEVERITY_WARNING && a->findings[j].node) {
            i = (long)j;
            break;
        }
    go_to_finding(t, a, (size_t)i);
    return RE_DRAW | RE_LAYOUT;
}

static int open_findings(struct tui *t)
{
    struct analysis *a = current_analysis(t, true);
    if (!a && analysing(tui_doc(t)->doc))
        return when_findings_are_in(t, KA_FINDINGS);
    if (!a || a->n_findings == 0) {
        tui_message(t, false, "no findings in this document");
        return RE_DRAW;
    }
    const struct plan_node *sel = tui_tab(t)->rows.sel;
    S.sel = S.top = 0;
    for (size_t i = 0; sel && i < a->n_findings; i++)
        if (a->findings[i].line >= sel->line) {
            S.sel = i;
            break;
        }
    list_move(t, 0);
    t->overlay = OVERLAY_FINDINGS;
    return RE_DRAW;
}

static int open_ids(struct tui *t)
{
    const struct plan_node *sel = tui_tab(t)->rows.sel;
    if (!sel)
        return RE_NONE;
    S.n_refs = exprid_node_refs(sel, S.refs, MAX_REFS);
    S.refs_node = sel;
    if (S.n_refs == 0) {
        tui_message(t, true, "this node mentions no expression ids");
        return RE_DRAW;
    }
    size_t traceable = 0;
    for (size_t i = 0; i < S.n_refs && i < MAX_REFS; i++)
        traceable += !S.refs[i].normalized;
    if (traceable == 0) {
        tui_message(t, true, "this plan's ids are normalized (#x): they cannot be traced");
        return RE_DRAW;
    }
    S.sel = S.top = 0;
    t->overlay = OVERLAY_IDS;
    return RE_DRAW;
}

int insight_key(struct tui *t, enum key_action a)
{
    switch (a) {
    case KA_EXPLAIN:
        t->explain = !t->explain;
        t->det_node = NULL;
        tui_message(t, false, "operator explanations %s", t->explain ? "on (in the details)" : "off");
        return RE_DRAW;
    case KA_FINDINGS:
        return open_findings(t);
    case KA_NEXT_FINDING:
    case KA_PREV_FINDING:
        return step_finding(t, a == KA_NEXT_FINDING);
    case KA_TRACE:
        return open_ids(t);
    case KA_FLIP:
        t->flipped = !t->flipped;
        tui_message(t, false, "%s", t->flipped ? "flipped: scans on top, data flows down (r again restores)"
                                               : "tree as Spark prints it");
        return RE_DRAW | RE_LAYOUT;
    case KA_WALK:
        return start_walk(t);
    default:
        return RE_NONE;
    }
}
