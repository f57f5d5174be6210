/* search_all.c: a search goes on into the other sections and open documents, nearest
 * first (the next sections of the document, then the next documents, round to the
 * earlier ones), when the current section has no match, or no further one for n / N.
 * See tui.h.  Sub-plan tabs (an adaptive plan's Final and Initial) repeat their
 * section's nodes and are skipped, and so are diff tabs (side A's nodes again). */
#include <stdio.h>
#include <string.h>

#include "sparkplan/tui.h"

/* The tab after (dir > 0) or before (dir < 0) doc/tab, round every document's tabs. */
static void step_tab(const struct tui *t, size_t *doc, size_t *tab, int dir)
{
    if (dir > 0) {
        if (++*tab < t->ws.docs[*doc].n_tabs)
            return;
        *doc = (*doc + 1) % t->ws.n_docs;
        *tab = 0;
    } else {
        if (*tab > 0) {
            --*tab;
            return;
        }
        *doc = (*doc + t->ws.n_docs - 1) % t->ws.n_docs;
        *tab = t->ws.docs[*doc].n_tabs - 1;
    }
}

bool tui_search_elsewhere(struct tui *t, const char *pattern, int dir)
{
    if (!pattern || !*pattern)
        return false;
    size_t total = 0;
    for (size_t d = 0; d < t->ws.n_docs; d++)
        total += t->ws.docs[d].n_tabs;
    size_t doc = t->ws.cur_doc, k = t->ws.docs[doc].cur;
    char pat[256];
    snprintf(pat, sizeof pat, "%s", pattern); /* the current tab's pattern may be freed */
    for (size_t step = 1; step < total; step++) { /* every other tab once */
        step_tab(t, &doc, &k, dir);
        struct tab *tab = &t->ws.docs[doc].tabs[k];
        if (tab->scope || tab->kind == SUBJECT_DIFF)
            continue;
        ws_tab_ready(&t->ws, tab);
        long n = rows_search(&tab->rows, pat);
        if (n <= 0) {
            rows_search(&tab->rows, NULL);
            continue;
        }
        ws_push_history(&t->ws);
        t->ws.cur_doc = doc;
        t->ws.docs[doc].cur = k;
        struct rows *r = &ws_tab(&t->ws)->rows;
        if (dir > 0)
            rows_go_first(r);
        else
            rows_go_last(r);
        bool wrapped = false;
        if (!rows_node_matches(r, r->sel))
            rows_search_step(r, dir, &wrapped);
        if (t->ws.n_docs > 1)
            ws_message(&t->ws, false, "%ld match%s in %s of %.80s (n, N)", n, n == 1 ? "" : "es",
                        tab->label, t->ws.docs[doc].doc->name);
        else
            ws_message(&t->ws, false, "%ld match%s in %s (n, N)", n, n == 1 ? "" : "es",
                        tab->label);
        return true;
    }
    return false;
}

int tui_search_run(struct tui *t)
{
    struct tab *was = t->ws.search_tab;
    int re = tui_search_slice(t);
    /* Nothing in this section: the search goes on in the others, nearest first. */
    if (was && !t->ws.search_tab && was == ws_tab(&t->ws) && was->rows.pattern &&
        was->rows.n_matches == 0 && tui_search_elsewhere(t, was->rows.pattern, 1))
        re |= RE_DRAW | RE_LAYOUT;
    return re;
}
