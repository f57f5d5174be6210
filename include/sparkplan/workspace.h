/* workspace: what the explorer has open, without a terminal — the documents, their
 * subjects (what a tab shows), the current one, the jump history, the status message,
 * each document's analysis (jobs.h) and the background work between frames (indexing big
 * tabs, a search reading the text).  The explorer (src/ui) draws it; the tests drive it
 * directly (tests/check_workspace.c).
 *
 * The shape: documents -> (applications -> executions) -> subjects.
 *   - A plan-text document has one application and one execution (both 0): its plans and
 *     their sections give the subjects.
 *   - An event log: one application at a time (a History Server directory's application
 *     list, src/ui/view_apps.c, swaps the whole workspace for another application's); each
 *     SQL execution's final plan is a document, its other plan versions (the start plan,
 *     each AQE update) are its tabs of kind SUBJECT_PLAN_VERSION; every tab of it carries
 *     `app` (the application's index in its directory), `exec`, `version`.
 *   - A subject is one of enum subject_kind: a section, an adaptive plan's sub-plan (AQE
 *     "Final"/"Initial", `scope` its label node), a plan version, or a diff pair (the
 *     explorer's = adds it: its sides are tabs named by index; this module only keeps it).
 *
 * Call order: ws_init; ws_add_document (or ws_open_paste) for each document; ws_tab gives
 * the current tab, ready (its rows built); jumps and searches change the current tab and
 * its selection; between frames the loop asks ws_background_tab / ws_search_busy and runs
 * ws_index_slice / ws_search_slice; the loop polls jobs_wake_fd(&ws->jobs) and passes what
 * jobs_collect says to ws_take_news; ws_free last.
 *
 * Hooks: `show` (may be NULL) is called with the tab a jump or a return is about to
 * select a node in, before the selection is made, so the explorer can fit the rows to the
 * screen (its layout) and the node is centred the way the screen shows it.
 *
 * Owns: the tabs and their row models, the documents added with owned = true (pastes),
 * the jobs.  Borrows the other documents, which must outlive it.  Never: curses, drawing,
 * recursion on plan depth, output outside msg.
 */
#ifndef SPARKPLAN_WORKSPACE_H
#define SPARKPLAN_WORKSPACE_H

#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "sparkplan/jobs.h"
#include "sparkplan/opclass.h"
#include "sparkplan/plan.h"
#include "sparkplan/rows.h"

enum subject_kind {
    SUBJECT_SECTION,              /* a section of a plan ("Physical", "Codegen 1/3") */
    SUBJECT_SUBPLAN,              /* an adaptive plan's labelled sub-plan ("Final") */
    SUBJECT_PLAN_VERSION,         /* hook: a plan version of an event-log execution */
    SUBJECT_DIFF,                 /* a diff pair: a_doc/a_tab against b_doc/b_tab */
};

/* A subject as a tab shows it. */
struct tab {
    char label[48];               /* "Physical", "Final", "Subquery:1", "Codegen 1/3" */
    enum subject_kind kind;
    struct plan_section *section;
    struct plan_node *scope;      /* NULL: the whole section */
    uint32_t app, exec, version;  /* an event log's coordinates; 0 for plan text */
    /* SUBJECT_DIFF: side A is the tab (a_doc, a_tab) (its section and scope are copied
     * above), side B the tab (b_doc, b_tab); indexes, since tab pointers move. */
    size_t a_doc, a_tab, b_doc, b_tab;
    bool ready;                   /* rows built (on first show) */
    bool indexed;                 /* the summary and the rows' indexes are complete: big
                                     tabs build them between frames (ws_index_slice) */
    struct rows rows;
    struct tab_counts *counts;    /* the header's counts and summary line: made when the
                                     tab is first shown (a plan can have 80,000 tabs, one
                                     per subquery, and most are never shown) */
    bool has_stages;
    unsigned skip;                /* levels the screen hides at its left (tree prepare) */
};

struct tab_counts {
    struct op_summary_run sum;    /* the header's counts, in slices */
    char summary[256];
};

/* The tab's summary line ("12 nodes · 3 shuffles ..."); "" before the tab is first shown. */
const char *ws_tab_summary_text(const struct tab *tab);

struct doc_view {
    struct document *doc;
    bool owned;                   /* loaded inside the explorer (a paste): freed by it */
    struct tab *tabs;
    size_t n_tabs, cap_tabs, cur;
};

struct jump {
    size_t doc, tab;
    struct plan_node *node;
};

#define WS_HISTORY 128

struct workspace {
    struct doc_view *docs;
    size_t n_docs, cap_docs, cur_doc;
    unsigned pastes;              /* "paste N" names */
    struct jump hist[WS_HISTORY];
    size_t n_hist;
    size_t unindexed;             /* tabs made ready and not yet indexed (may count some
                                     gone since: ws_background_tab then resets it) */
    struct tab *search_tab;       /* a search still reading its tab's text, or NULL */
    bool utf8;                    /* summaries may use a middle dot and an ellipsis */
    bool loading;                 /* the document shown is the preview of one still loading
                                     (loadjob.h): its summary says "loading…" rather than
                                     counts, and no background work runs on it */
    char msg[256];                /* the status message; "" for none */
    bool msg_error;
    struct jobs jobs;             /* each document's analysis */
    void (*show)(void *ctx, struct tab *tab);  /* see Hooks above; may be NULL */
    void *show_ctx;
};

void ws_init(struct workspace *ws);
/* Stops the analysis first, then frees the tabs, their rows and the owned documents. */
void ws_free(struct workspace *ws);

/* ---- documents and subjects ---------------------------------------------------------- */
/* Adds a document and its tabs (one per section, plus AQE Final/Initial sub-plans); false
 * when it has nothing to show (or no memory), and then it is not kept. */
bool ws_add_document(struct workspace *ws, struct document *doc, bool owned);
/* Loads pasted bytes (taken) as a new document "paste N" and makes it current; false
 * (and msg says why) when it is not a plan or is empty ("empty paste: nothing to open").
 * dropped: the bytes cut off past limit (the paste limit) and not kept; the document is
 * then named "paste N [cut: DROPPED bytes dropped]" and msg says "paste cut at LIMIT:
 * DROPPED bytes dropped (K nodes kept)". */
bool ws_open_paste(struct workspace *ws, char *bytes, size_t len, size_t dropped,
                   size_t limit);
/* Adds one subject to a document's tabs (a plan version, a diff pair, ...): label is
 * cleaned to printable ASCII; returns the new tab (to fill app/exec/version or a diff's
 * sides), or NULL
 * without memory.  Tab pointers move when tabs are added: keep indexes, not pointers; add
 * subjects while no search runs in the document (ws->search_tab points at a tab), and the
 * explorer forgets its decorators' caches (decor_forget) after. */
struct tab *ws_add_subject(struct doc_view *dv, enum subject_kind kind,
                           struct plan_section *s, struct plan_node *scope, const char *label);
/* Adds the tabs of a document from its plans (ws_add_document does); the physical plan
 * becomes its current tab. */
bool ws_build_tabs(struct doc_view *dv);

struct doc_view *ws_doc(struct workspace *ws);
struct tab *ws_tab(struct workspace *ws);       /* the current tab, made ready */
static inline const struct doc_view *ws_doc_c(const struct workspace *ws)
{
    return &ws->docs[ws->cur_doc];
}
static inline const struct tab *ws_tab_c(const struct workspace *ws)
{
    return &ws->docs[ws->cur_doc].tabs[ws->docs[ws->cur_doc].cur];
}
/* Builds the tab's rows and summary on first show (small tabs indexed at once). */
void ws_tab_ready(struct workspace *ws, struct tab *tab);
/* The header's summary line of tab again: the counts once known, and the findings. */
void ws_tab_summary(struct workspace *ws, struct tab *tab);

/* ---- the message and jumps ----------------------------------------------------------- */
void ws_message(struct workspace *ws, bool error, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void ws_vmessage(struct workspace *ws, bool error, const char *fmt, va_list ap);
/* Records the current position (document, tab, selected node) for ws_go_back. */
void ws_push_history(struct workspace *ws);
/* Goes to a node anywhere in the current document (switching tab; a sub-plan tab first),
 * recording the jump when record; false when no tab holds it. */
bool ws_jump_to(struct workspace *ws, struct plan_node *n, bool record);
bool ws_goto_id(struct workspace *ws, int32_t id);
void ws_go_back(struct workspace *ws);
/* Goes to finding i of a (when it is on a node) and says what it is. */
void ws_go_to_finding(struct workspace *ws, const struct analysis *a, size_t i);

/* ---- background work ----------------------------------------------------------------- */
/* A tab shown but not yet indexed (the current one first), or NULL. */
struct tab *ws_background_tab(struct workspace *ws);
/* Indexes shown tabs for a slice of about 8 ms; true when one was finished (the header
 * and the gutter's width change). */
bool ws_index_slice(struct workspace *ws);
/* Starts a search of the current tab for text; ws_search_slice runs it for a slice and,
 * when done, goes to the first match and says how many; true when there is something new
 * to draw. */
bool ws_search_start(struct workspace *ws, const char *text);
bool ws_search_slice(struct workspace *ws);
static inline bool ws_search_busy(const struct workspace *ws)
{
    return ws->search_tab != NULL;
}
/* Summaries of the documents whose findings came in, and the error, if any, in msg. */
void ws_take_news(struct workspace *ws, const struct jobs_news *news);

#endif
