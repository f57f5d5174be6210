/* tui: the explorer's shared state and the workspace every view reads — the open
 * documents, their tabs and row models, the jump history, the status message, the
 * layout.  The views (view.h) and the loop (ui.c) share it; each view's own state is
 * private to its module.
 *
 * Who writes what: the loop (ui.c) owns the view stack and the focus, and draws the stack
 * once a turn (one doupdate); the workspace functions below
 * (workspace.c, layout.c) change tabs, selections and the message and may be called by any
 * view; display options are toggled by the view whose key they are.
 * Owns: the tabs and their row models, pasted documents (owned = true), the jump history.
 * Borrows the documents ui_run was given.
 * Never: recursion on plan depth, drawing from a key handler, output outside curses.
 */
#ifndef SPARKPLAN_TUI_H
#define SPARKPLAN_TUI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sparkplan/decor.h"
#include "sparkplan/input.h"
#include "sparkplan/jobs.h"
#include "sparkplan/keys.h"
#include "sparkplan/opclass.h"
#include "sparkplan/plan.h"
#include "sparkplan/rows.h"
#include "sparkplan/theme.h"
#include "sparkplan/view.h"

struct tab {
    char label[48];               /* "Physical", "Final", "Subquery:1", "Codegen 1/3" */
    struct plan_section *section;
    struct plan_node *scope;      /* NULL: the whole section */
    bool ready;                   /* rows built (on first show) */
    bool indexed;                 /* the summary and the rows' indexes are complete: big
                                     tabs build them between frames (tui_index_slice) */
    struct rows rows;
    struct op_summary_run sum;    /* the header's counts, in slices */
    char summary[256];
    bool has_stages;
    unsigned skip;                /* levels the screen hides at its left (tree prepare) */
};

struct doc_view {
    struct document *doc;
    bool owned;                   /* loaded inside the explorer (a paste): freed by it */
    struct tab *tabs;
    size_t n_tabs, cur;
};

struct jump {
    size_t doc, tab;
    struct plan_node *node;
};

enum focus { FOCUS_TREE, FOCUS_DETAILS };

struct layout {
    bool too_small;
    int header_h;                 /* 1 or 2 (tabs, summary) */
    int tree_y, tree_x, tree_h, tree_w;
    int gutter_w;                 /* stage gutter columns (0 when the tab has no stages) */
    bool det_visible, det_side;   /* details shown; beside (wide) or below */
    int det_y, det_x, det_h, det_w;
    int status_y;
};

#define TUI_HISTORY 128
#define TUI_MAX_REFS 64           /* expression ids the * list shows of a node */
#define VIEW_STACK_MAX 8

/* An open view: its ops (view_registry[id]) and its private state. */
struct view_slot {
    enum view_id id;
    void *state;
};

/* The decorators' caches (decor.h): decor_findings' "does this tab have findings" answer
 * and its severity table. */
struct decor_cache {
    const struct tab *marks_tab;
    bool marks_has;
    const struct plan_section *sev_section;
    const struct analysis *sev_analysis;
    signed char *sev;             /* worst severity by pre-order number, -1: none */
};

struct tui {
    struct doc_view *docs;
    size_t n_docs, cap_docs, cur_doc;
    unsigned pastes;              /* "paste N" names */

    /* The loop's (ui.c): views ask for changes through their reactions. */
    struct view_slot stack[VIEW_STACK_MAX];
    size_t depth;
    enum focus focus;
    struct tab *search_tab;       /* a search still reading its tab's text, or NULL */

    struct jump hist[TUI_HISTORY];
    size_t n_hist;

    /* Display options, shared by the views. */
    bool ascii, utf8, wrap, stage_hl;
    bool explain;                 /* i: the operator's catalogue entry in the details */
    int split_pct;                /* the tree's share of the body (+ -, config); 0: auto */
    bool zoom;                    /* z: the focused pane takes the body */
    unsigned details_gen;         /* bumped when the details must be rebuilt (and their
                                     cursor put back on the first reference) */
    char narration[512];          /* the guided walk's step, shown atop the details */
    char msg[256];
    bool msg_error;
    struct layout L;

    struct jobs jobs;             /* each document's analysis */
    struct trace_mark trace;      /* the traced expression id (decor_trace) */
    struct decor_cache decor;
};

/* ---- workspace.c: documents, tabs, jumps, the message ------------------------------- */
struct doc_view *tui_doc(struct tui *t);
struct tab *tui_tab(struct tui *t);            /* the current tab, ready */
/* The current document and tab as they are, for drawing and reading. */
static inline const struct doc_view *tui_doc_c(const struct tui *t)
{
    return &t->docs[t->cur_doc];
}
static inline const struct tab *tui_tab_c(const struct tui *t)
{
    return &t->docs[t->cur_doc].tabs[t->docs[t->cur_doc].cur];
}
void tui_tab_ready(struct tui *t, struct tab *tab);
/* The header's summary line of tab again: the counts once known, and the findings. */
void tui_tab_summary(struct tui *t, struct tab *tab);
void tui_message(struct tui *t, bool error, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void tui_push_history(struct tui *t);
/* Go to a node anywhere in the current document (switching tab), recording the jump. */
bool tui_jump_to(struct tui *t, struct plan_node *n, bool record);
bool tui_goto_id(struct tui *t, int32_t id);
void tui_go_back(struct tui *t);
/* Adds a document (and its tabs) to the explorer; false when it has nothing to show. */
bool tui_add_document(struct tui *t, struct document *doc, bool owned);
/* Loads pasted bytes (taken) as a new document and shows it; false (and a message) when
 * it is not a plan. */
bool tui_open_paste(struct tui *t, char *bytes, size_t len);
/* Starts a search of the current tab for text (t->search_tab); tui_search_slice runs it
 * for a time slice between keys, and says what it found when done; reactions. */
bool tui_search_start(struct tui *t, const char *text);
int tui_search_slice(struct tui *t);
/* search_all.c: the next (dir > 0) or previous section, of this document or the next
 * ones, that has matches of pattern, nearest first: goes to its first (last) match and
 * says so; false when no other section has one. */
bool tui_search_elsewhere(struct tui *t, const char *pattern, int dir);
/* tui_search_slice, then, when the search is over with no match in its section, on into
 * the others; reactions. */
int tui_search_run(struct tui *t);
/* The tabs of a document (one per section, plus AQE Final/Initial subtrees). */
bool tui_build_tabs(struct doc_view *dv);
/* A tab shown but not yet indexed (the current one first), or NULL; tui_index_slice
 * indexes them for a time slice and returns the reactions. */
struct tab *tui_background_tab(struct tui *t);
int tui_index_slice(struct tui *t);
/* The findings of doc came in: summaries, gutter and details follow. */
void tui_findings_arrived(struct tui *t, const struct document *doc);
/* Goes to finding i of a (when it is on a node) and says what it is. */
void tui_go_to_finding(struct tui *t, const struct analysis *a, size_t i);
/* Show what jobs_* reported (findings in, an error). */
void tui_take_news(struct tui *t, const struct jobs_news *news);

/* ---- layout.c: pane sizes, the tree's row geometry ----------------------------------- */
void tui_layout(struct tui *t);
/* The tree's share of the body in percent (chosen, or following the tab's content). */
int tui_split(const struct tui *t, const struct tab *tab);
/* The current tab's rows: their height function and window height from the layout. */
void tui_fit_rows(struct tui *t, struct tab *tab);
unsigned tree_row_height(const struct plan_node *n, void *ctx);
/* A row's guides as the screen draws them (the tab's window of hidden levels). */
void tree_prefix(const struct tui *t, struct rows *r, const struct plan_node *n,
                 struct rows_prefix *pf);
int tree_prefix_cols(const struct rows_prefix *pf);
unsigned tree_guide_levels(const struct tui *t, int text_cols, bool hinted);
#define TREE_MIN_TEXT_COLS 6
/* The text a row shows: everything when wrapping (continuation lines included), capped. */
struct slice tree_row_text(const struct plan_node *n);
enum role tree_node_role(const struct plan_node *n);
/* A node's codegen stage (n->stage >= 0): a key that tells stages apart (a bare '*' run
 * of Spark 2 is its own stage), its tint, and its label "*(2)", or "*" for a stage whose
 * number was not printed. */
int64_t tree_stage_key(const struct plan_node *n);
enum role tree_stage_role(const struct plan_node *n);
const char *tree_stage_label(const struct plan_node *n, char *buf, size_t cap);

/* ---- overlay.c: the one box every overlay is drawn in.  Boxes are outer sizes, frame
 * included. ---------------------------------------------------------------------------- */
struct box {
    int y, x, h, w;
};
/* Centred, clipped to the screen less a margin (none on a narrow or short screen). */
struct box overlay_place(int want_w, int want_h);
/* The part of a box inside its frame (the box itself when too small for one). */
struct box overlay_inside(struct box b);
/* Clears the box to its own background, frames it and puts in the top border the first
 * of titles (a NULL-terminated list, longest first) that fits whole, else the last one
 * cut.  Returns the inside. */
struct box overlay_draw(const struct tui *t, struct box b, const char *const *titles);

/* ---- the tree's insight keys (tree_insight.c): i ! f F * w, and the pending ! f F ---- */
int tree_insight_key(struct tui *t, enum key_action a);

/* view_details.c: the formatted id a piece of text refers to ("Reuses operator id: 9"),
 * or -1; *at and *n (may be NULL) say where the reference is. */
int32_t details_find_link(const char *s, size_t len, size_t *at, size_t *n);

#endif
