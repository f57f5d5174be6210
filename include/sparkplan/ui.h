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

struct ui_options {
    bool ascii;           /* --ascii: ASCII tree guides even in a UTF-8 locale */
    const char *theme;    /* --theme NAME: dark, light, projector, mono; NULL: chosen (settings.h) */
    bool tty_from_dev;    /* stdin was the plan: read keys from /dev/tty */
    bool no_color;        /* --no-color, or NO_COLOR set and non-empty: no colours at all */
    /* An event log's side (evview.h), or NULL.  docs are then the final plans of its
     * queries; the explorer opens on the query list and adds the other plan versions as
     * tabs.  Borrowed like the documents. */
    const struct evview *ev;
};

int ui_run(struct document **docs, size_t n_docs, const struct ui_options *opts);

#endif
