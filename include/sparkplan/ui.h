/* ui: the interactive explorer (ncurses + libtermkey).  The only module that draws.
 *
 * Borrows the documents it is given; the caller frees them after ui_run returns.  Documents
 * loaded inside the explorer (pastes) are the explorer's and freed by it.
 * Returns the process exit status (0, or non-zero when no terminal could be opened).
 */
#ifndef SPARKPLAN_UI_H
#define SPARKPLAN_UI_H

#include <stdbool.h>
#include <stddef.h>

#include "sparkplan/evview.h"
#include "sparkplan/plan.h"

struct evapps;
struct loadjob;

/* One application as the explorer shows it: the final plans of its queries and its
 * evview (both the caller's). */
struct ui_app_view {
    struct document **docs;
    size_t n_docs;
    const struct evview *ev;
    /* Its log's warnings (a cut log, a malformed line): how many and the first one as
     * "FILE:LINE: message", for the status line (nothing can go to stderr then). */
    size_t n_warnings;
    char first_warning[200];
};

/* A History Server directory (ui_options.apps): the application list (evapps.h) and how
 * to read one.  The explorer shows one application at a time, and opens on the list.
 * load reads application i into *out (false, err filled, when it cannot be read or has no
 * plan: what was shown stays); once the explorer has let go of what it showed, it calls
 * swap, and the caller frees the old application. */
struct ui_apps {
    struct evapps *list;
    void *ctx;
    bool (*load)(void *ctx, size_t i, struct ui_app_view *out, char *err, size_t errcap);
    void (*swap)(void *ctx);
};

struct ui_options {
    bool ascii;           /* --ascii: ASCII tree guides even in a UTF-8 locale */
    const char *theme;    /* --theme NAME: dark, light, projector, mono; NULL: chosen (settings.h) */
    bool tty_from_dev;    /* stdin was the plan: read keys from /dev/tty */
    bool no_color;        /* --no-color, or NO_COLOR set and non-empty: no colours at all */
    /* An event log's side (evview.h), or NULL.  docs are then the final plans of its
     * queries; the explorer opens on the query list and adds the other plan versions as
     * tabs.  Borrowed like the documents. */
    const struct evview *ev;
    /* A History Server directory's applications, or NULL; ev and the documents are then
     * the first application's. */
    struct ui_apps *apps;
    /* A big input still loading (loadjob.h), or NULL: docs is then its one preview, shown
     * until the whole document is in (its counts say "loading…", keys other than quit wait
     * for it), which then takes the preview's place; ui_run returns at once when the load
     * fails (the caller says why, from the job).  Borrowed: the caller frees the job and
     * its document after ui_run. */
    struct loadjob *loading;
};

int ui_run(struct document **docs, size_t n_docs, const struct ui_options *opts);

#endif
