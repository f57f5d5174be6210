/* tui: the explorer's shared state — the workspace (workspace.h: documents, tabs, jumps,
 * the message, searches, the analysis jobs), the view stack, the display options and the
 * layout.  The views (view.h) and the loop (ui.c) share it; each view's own state is
 * private to its module.
 *
 * Who writes what: the loop (ui.c) owns the view stack and the focus, and draws the stack
 * once a turn (one doupdate); the workspace functions (ws_*, on &t->ws) and layout.c
 * change tabs, selections and the message and may be called by any view; display options
 * are toggled by the view whose key they are.
 * Owns: the workspace (freed with it), the views' states.  Borrows the documents ui_run
 * was given (through the workspace).
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
#include "sparkplan/ui.h"
#include "sparkplan/view.h"
#include "sparkplan/workspace.h"

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
    /* The documents, tabs, jumps, the message, searches and the analysis jobs: the
     * curses-free workspace (workspace.h). */
    struct workspace ws;

    /* The loop's (ui.c): views ask for changes through their reactions. */
    struct view_slot stack[VIEW_STACK_MAX];
    size_t depth;
    enum focus focus;

    /* Display options, shared by the views. */
    bool ascii, wrap, stage_hl;   /* (utf8 is ws.utf8) */
    bool explain;                 /* i: the operator's catalogue entry in the details */
    bool diff_aqe;                /* the diff view opens on Initial against Final (I), not
                                     on the current diff tab */
    bool picker_compare;          /* the picker chooses side B of a diff (=), not a tab to
                                     show (t) */
    int split_pct;                /* the tree's share of the body (+ -, config); 0: auto */
    bool zoom;                    /* z: the focused pane takes the body */
    unsigned details_gen;         /* bumped when the details must be rebuilt (and their
                                     cursor put back on the first reference) */
    unsigned details_rev;         /* bumped when what the details show changed under them
                                     (the findings came in): rebuilt, the cursor kept */
    char narration[512];          /* the guided walk's step, shown atop the details */
    struct layout L;

    struct trace_mark trace;      /* the traced expression id (decor_trace) */
    struct decor_cache decor;

    /* An event log (evview.h), or NULL: its queries (VIEW_QUERIES), the metrics column
     * (decor_metrics, toggled by m) and the details' metric lines. */
    const struct evview *ev;
    bool metrics_col;
    /* A History Server directory (ui.h), or NULL: the application list (VIEW_APPS) loads
     * an application into app_next and returns RE_SWITCH_APP; the loop then shows it. */
    struct ui_apps *apps;
    struct ui_app_view app_next;
    /* A big input still loading (ui.h): the preview is shown (ws.loading) and the keys
     * but quit wait in `queued` until the whole document takes its place. */
    struct loadjob *loading;
    struct input_event queued[64];
    size_t n_queued;
};

/* Is n's codegen stage known?  Always, but in a preview (ws.loading) of a formatted plan:
 * there a node's stage is in its details block, past the preview (simple mode prints it on
 * the node's own line, *(3)). */
static inline bool tui_stage_known(const struct tui *t, const struct plan_node *n)
{
    return !t->ws.loading || n->id < 0;
}

/* The workspace's background slices as reactions (view.h): a search's progress or end
 * redraws; an indexed tab changes the header and the gutter's width. */
static inline int tui_search_slice(struct tui *t)
{
    return ws_search_slice(&t->ws) ? RE_DRAW : RE_NONE;
}
static inline int tui_index_slice(struct tui *t)
{
    return ws_index_slice(&t->ws) ? RE_DRAW | RE_LAYOUT : RE_NONE;
}
/* search_all.c: the next (dir > 0) or previous section, of this document or the next
 * ones, that has matches of pattern, nearest first: goes to its first (last) match and
 * says so; false when no other section has one. */
bool tui_search_elsewhere(struct tui *t, const char *pattern, int dir);
/* tui_search_slice, then, when the search is over with no match in its section, on into
 * the others; reactions. */
int tui_search_run(struct tui *t);

/* ---- view_diff.c: a diff as a tab ---------------------------------------------------- */
/* The diff of the current tab against tab b_tab of document b_doc as a tab of its own
 * (SUBJECT_DIFF, kept when it exists) made current; the loop opens the diff view whenever
 * a diff tab is current, and closing the view goes back to side A's tab.  Returns the
 * reaction flags. */
int tui_diff_subject(struct tui *t, size_t b_doc, size_t b_tab);

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
