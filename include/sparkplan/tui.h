/* tui: the explorer's state and its views (tree, details, help, document list), shared by
 * the files of src/ui.  ui.c owns the loop: it turns input into actions, calls the view
 * that has focus, collects the reaction flags the handlers return, and is the only place
 * that draws (one doupdate per turn).  Draw functions read the state and never change it.
 *
 * Owns: the tabs and their row models, the details lines, pasted documents (owned = true),
 * the jump history.  Borrows the documents ui_run was given.
 * Never: recursion on plan depth, drawing from a key handler, output outside curses.
 */
#ifndef SPARKPLAN_TUI_H
#define SPARKPLAN_TUI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sparkplan/input.h"
#include "sparkplan/keys.h"
#include "sparkplan/opclass.h"
#include "sparkplan/plan.h"
#include "sparkplan/rows.h"
#include "sparkplan/theme.h"

/* Reaction flags handlers return. */
enum {
    RE_NONE = 0,
    RE_DRAW = 1 << 0,     /* something changed: redraw */
    RE_LAYOUT = 1 << 1,   /* pane sizes may change */
    RE_FULL = 1 << 2,     /* repaint the whole terminal (Ctrl-l, resume) */
    RE_QUIT = 1 << 3,
    RE_SUSPEND = 1 << 4,
};

struct tab {
    char label[48];               /* "Physical", "Final", "Subquery:1", "Codegen 1/3" */
    struct plan_section *section;
    struct plan_node *scope;      /* NULL: the whole section */
    bool ready;                   /* rows built (on first show) */
    bool indexed;                 /* the summary and the rows' indexes are complete: big
                                     tabs build them between frames (tui_background) */
    struct rows rows;
    struct op_summary_run sum;    /* the header's counts, in slices */
    char summary[256];
    bool has_stages;
    unsigned skip;                /* levels the screen hides at its left (tree_prepare) */
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
enum overlay { OVERLAY_NONE, OVERLAY_HELP, OVERLAY_DOCS, OVERLAY_FINDINGS, OVERLAY_IDS };
enum prompt_kind { PROMPT_NONE, PROMPT_SEARCH, PROMPT_GOTO, PROMPT_PASTE };

/* One display line of the details pane. */
struct dline {
    const char *ptr;              /* text in the document, or NULL: pooled */
    size_t off;                   /* pooled: offset in t->dpool (which may move) */
    uint32_t len;
    uint8_t role;                 /* enum role */
    bool strong;                  /* the node's heading: drawn bold */
    bool cont;                    /* a wrapped line's continuation: drawn indented */
    uint16_t key_len;             /* bytes at the start drawn as a field name */
    int32_t link;                 /* formatted id this line refers to, -1 when none */
    int32_t link_at, link_len;    /* where the reference is in this line (-1: not here) */
};

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

struct tui {
    struct doc_view *docs;
    size_t n_docs, cap_docs, cur_doc;
    unsigned pastes;              /* "paste N" names */

    enum focus focus;
    enum overlay overlay;
    int overlay_scroll;
    size_t docs_sel;

    enum prompt_kind prompt;
    char prompt_buf[256];
    size_t prompt_len;
    char *paste_buf;              /* p mode: text collected until Ctrl-d */
    size_t paste_len, paste_cap;
    size_t paste_dropped;         /* p mode: bytes past input_paste_max(), not kept */

    struct tab *search_tab;       /* a search still reading its tab's text, or NULL */

    struct jump hist[TUI_HISTORY];
    size_t n_hist;

    /* Details of det_node, wrapped to det_width. */
    struct dline *dlines;
    size_t n_dlines, cap_dlines;
    char *dpool;
    size_t dpool_len, dpool_cap;
    const struct plan_node *det_node;
    int det_width;
    size_t det_top, det_cursor;

    bool ascii, utf8, wrap, stage_hl;
    bool explain;                 /* i: the operator's catalogue entry in the details */
    bool flipped;                 /* r: the tree drawn bottom-up, scans on top */
    int hscroll;
    char msg[256];
    bool msg_error;
    struct layout L;
};

/* ui.c */
struct doc_view *tui_doc(struct tui *t);
struct tab *tui_tab(struct tui *t);            /* the current tab, ready */
void tui_tab_ready(struct tui *t, struct tab *tab);
/* The header's summary line of tab again: the counts once known, and the findings. */
void tui_tab_summary(struct tui *t, struct tab *tab);
void tui_message(struct tui *t, bool error, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Go to a node anywhere in the current document (switching tab), recording the jump. */
bool tui_jump_to(struct tui *t, struct plan_node *n, bool record);
bool tui_goto_id(struct tui *t, int32_t id);
void tui_layout(struct tui *t);

/* view_tree.c */
void tree_prepare(struct tui *t);               /* the screen's window of hidden levels */
void tree_draw(const struct tui *t);
int tree_key(struct tui *t, enum key_action a, const struct input_event *ev);
unsigned tree_row_height(const struct plan_node *n, void *ctx);
enum role tree_node_role(const struct plan_node *n);

/* view_details.c */
void details_prepare(struct tui *t);           /* rebuild lines when node or width changed */
void details_draw(const struct tui *t);
int details_key(struct tui *t, enum key_action a, const struct input_event *ev);
void details_free(struct tui *t);
/* The formatted id a piece of text refers to ("Reuses operator id: 9"), or -1; *at and
 * *n (may be NULL) say where the reference is. */
int32_t details_find_link(const char *s, size_t len, size_t *at, size_t *n);

/* overlay.c: the one box every overlay (help, document list, findings, id list) is drawn
 * in.  Boxes are outer sizes, frame included. */
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

/* view_help.c */
void help_draw(const struct tui *t);
int help_key(struct tui *t, enum key_action a);

/* view_insight.c: explain (i), findings (! f F and gutter marks), expression-id traces (*),
 * the flipped tree (r) and the guided walk (w).  Its state (each document's analysis, the
 * lists, the trace, the walk) is its own; insight_free releases it. */
int insight_key(struct tui *t, enum key_action a);             /* the tree's insight keys */
int insight_list_key(struct tui *t, enum key_action a);        /* OVERLAY_FINDINGS / _IDS */
void insight_list_draw(const struct tui *t);
bool insight_walking(const struct tui *t);
int insight_walk_key(struct tui *t, enum key_action a);
/* Ends the walk when its section is no longer the one shown (after every event). */
void insight_walk_follow(struct tui *t);
/* Movement keys swap direction while the tree is flipped. */
enum key_action insight_flip_action(const struct tui *t, enum key_action a);
/* The gutter mark of a node ("!" warning, "i" information, a diamond for the producer of
 * the traced id), or NULL; *role says how to draw it. */
const char *insight_mark(const struct tui *t, const struct plan_node *n, enum role *role);
/* Appends the tab's findings count to its summary line (when the document is analysed). */
void insight_tab_summary(struct tui *t, struct tab *tab);
/* Does the tab need a gutter for marks?  (Asks for the document's analysis on first call.) */
bool insight_tab_has_marks(struct tui *t, const struct tab *tab);
/* Flipped guides: the last child's corner turned upside down, the open glyph too. */
void insight_flip_prefix(struct rows_prefix *pf, bool ascii);
/* Adds the node's findings, and with `i` its catalogue entry, to the details lines. */
void insight_details(struct tui *t, const struct plan_node *n);
/* The analysis runs on a thread of its own (one at a time, the shown document first), so
 * no key waits for it.  insight_hold: no analysis until insight_release, so the first frame
 * is drawn before it starts.  insight_release starts it; true when the screen must be
 * redrawn (no thread could be started: the findings were made in place).
 * insight_wake_fd: readable when the analysis is done (-1 while none runs): the loop polls
 * it and then calls insight_collect, which installs the findings (gutter, summaries,
 * details), starts the next document's and does a ! f F pressed meanwhile; it returns the
 * reaction flags.  insight_busy: "analysing…" while the shown document's findings are to
 * come, else NULL.  insight_forget_key: a key came, so a ! f F waiting for the findings is
 * forgotten.  insight_free stops a running analysis (within a millisecond) and joins it. */
void insight_hold(void);
bool insight_release(struct tui *t);
int insight_wake_fd(void);
int insight_collect(struct tui *t);
const char *insight_busy(const struct tui *t);
void insight_forget_key(void);
void insight_free(struct tui *t);

/* view_details.c, for insight_details: one generated logical line (wrapped to the pane). */
void details_add_line(struct tui *t, enum role role, size_t key_len, const char *text);

/* view_docs.c */
bool docs_build_tabs(struct doc_view *dv);
void docs_draw(const struct tui *t);
int docs_key(struct tui *t, enum key_action a);

#endif
