/* view: the one interface every view of the explorer implements (the tree, the details,
 * the help, the document list, the findings and id lists, the guided walk, the prompts of
 * the status line), the registry that lists them, and the reactions their key handlers
 * return.  See docs/explorer-internals.md for how to add a view.
 *
 * A view is one module (src/ui/view_NAME.c) exporting one `const struct view_ops`, listed
 * once in view_registry (src/ui/views.c).  Its state is its own: open allocates it, close
 * frees it; nothing else reads it.  The loop (ui.c) keeps the open views on a stack (the
 * base, the split beside it, overlays above), sends each key to the view on top (or to the
 * focused pane), draws the stack bottom up, and does what the reaction asks: a view never
 * writes the loop's fields (the stack, the focus, the prompt) and never calls ui.c.
 * Views may call the modules below them: the workspace (tabs, jumps, messages; tui.h),
 * the analysis jobs (jobs.h), decorators (decor.h), the list widget (listbox.h), drawing.
 * Never: drawing from a key handler, changing state while drawing (draw gets const).
 */
#ifndef SPARKPLAN_VIEW_H
#define SPARKPLAN_VIEW_H

#include <stdbool.h>
#include <stddef.h>

#include "sparkplan/input.h"
#include "sparkplan/keys.h"

struct tui;

/* Every view, by name.  Adding a view: a new id here, its module, one registry line. */
enum view_id {
    VIEW_TREE,       /* base: the plan as a tree */
    VIEW_DETAILS,    /* split: the selected node's details */
    VIEW_HELP,       /* overlay: ? */
    VIEW_DOCS,       /* overlay: D, the open documents */
    VIEW_QUERIES,    /* overlay: Q, an event log's SQL queries */
    VIEW_APPS,       /* overlay: A, a History Server directory's applications */
    VIEW_FINDINGS,   /* overlay: !, the document's findings */
    VIEW_IDS,        /* overlay: *, the selected node's expression ids */
    VIEW_WALK,       /* overlay without a box: w, the guided walk (keys only) */
    VIEW_SEARCH,     /* overlay on the status line: / */
    VIEW_GOTO,       /* overlay on the status line: : */
    VIEW_PASTE,      /* overlay on the status line: p, a plan pasted until Ctrl-d */
    VIEW_DIFF,       /* overlay over the whole screen: = or I, the plan diff */
    VIEW_PICKER,     /* overlay: t, every plan and section of every document */
    VIEW_COUNT
};

enum view_layer {
    LAYER_BASE,      /* fills the body; always open */
    LAYER_SPLIT,     /* shares the body with the base; always open, shown when room */
    LAYER_OVERLAY,   /* above both; takes every key while open (modal) */
};

/* Reactions: what a key handler asks of the loop, as bit flags.  RE_NONE is "handled,
 * nothing changed"; RE_PASS is "not mine": the loop offers the key further down (the
 * loop's own keys).  RE_PUSH(id) opens a view above the stack, RE_POP closes the view
 * that returned it. */
enum {
    RE_NONE = 0,
    RE_PASS = 1 << 0,          /* not mine */
    RE_DRAW = 1 << 1,          /* something changed: redraw */
    RE_LAYOUT = 1 << 2,        /* pane sizes may change */
    RE_FULL = 1 << 3,          /* repaint the whole terminal (Ctrl-l, resume) */
    RE_QUIT = 1 << 4,
    RE_SUSPEND = 1 << 5,
    RE_POP = 1 << 6,           /* close me */
    RE_FOCUS_TREE = 1 << 7,    /* keys to the tree pane */
    RE_FOCUS_DETAILS = 1 << 8, /* keys to the details pane */
    RE_SWITCH_APP = 1 << 9,    /* the application list loaded another application
                                  (ui_apps.pending): the loop shows it instead */
};
#define RE_PUSH_SHIFT 16
#define RE_PUSH(id) ((int)((unsigned)(id) + 1u) << RE_PUSH_SHIFT)
/* The view a reaction pushes, or -1. */
#define RE_PUSHED(re) ((int)((unsigned)(re) >> RE_PUSH_SHIFT) - 1)

struct view_area {
    int y, x, h, w;
};

struct view_ops {
    const char *name;
    enum view_layer layer;
    enum key_context keys;     /* the context its bindings are looked up in (keys.h) */
    /* Its state, set up from t (the selection, the document...); NULL when it cannot
     * open (nothing to show, out of memory), after ws_message says why.  The loop then
     * leaves the stack as it was.  NULL open: a view without state. */
    void *(*open)(struct tui *t);
    void (*close)(struct tui *t, void *state);
    /* Before drawing, after the loop's layout: settle what drawing reads (the tree's
     * window of hidden levels, the details' lines).  May be NULL. */
    void (*prepare)(struct tui *t, void *state);
    /* Draws the view; changes nothing.  NULL: the view has no picture (the walk: the
     * panes below show its step). */
    void (*draw)(const struct tui *t, const void *state);
    /* a is the event looked up in `keys` (KA_NONE when unbound); returns reactions. */
    int (*key)(struct tui *t, void *state, enum key_action a, const struct input_event *ev);
    /* Base and split panes: where the view is on screen (mouse events go there).  NULL:
     * no mouse. */
    struct view_area (*area)(const struct tui *t);
    /* A bracketed paste while the view is on top: its bytes (the loop frees them) and the
     * bytes cut off past the paste limit (input_paste_max), not kept.  NULL: a paste
     * closes the overlays and opens as a new document. */
    int (*paste)(struct tui *t, void *state, const char *bytes, size_t len, size_t dropped);
};

/* view_id -> ops (src/ui/views.c). */
extern const struct view_ops *const view_registry[VIEW_COUNT];

#endif
