/* tree_insight.c: the tree's keys for the teaching features — the operator explanation
 * (i), findings (! opens their list, f F step through them), expression-id traces (* opens
 * the node's ids) and the guided walk (w).  The lists and the walk are views of their own
 * (view_lists.c, view_walk.c): these keys check there is something to show and ask the
 * loop to open them. */
#include <stdio.h>
#include <string.h>

#include "sparkplan/analyze.h"
#include "sparkplan/exprid.h"
#include "sparkplan/settings.h"
#include "sparkplan/tui.h"

/* ! f F before the findings are in: the key is remembered and done when they come (the
 * loop gives it back to the tree when the jobs report them), unless another key comes
 * first.  Waiting instead would freeze the screen for seconds on a big plan (about 2 s at
 * a million nodes); doing nothing would make the key look broken. */
static int when_findings_are_in(struct tui *t, enum key_action a)
{
    t->ws.jobs.pending = a;
    t->ws.jobs.pending_doc = ws_doc(&t->ws)->doc;
    ws_message(&t->ws, false, "still analysing: %s when the findings are in",
                a == KA_FINDINGS ? "the list opens" : "goes to the finding");
    return RE_DRAW;
}

/* The finding to go to from line, forward or back: one on a node, the warning first
 * among several on one line; -1 when none is on a node. */
static long next_finding(const struct analysis *a, uint32_t from, bool forward)
{
    long i = analysis_next_finding(a, from, forward);
    /* Skip findings without a node (they have nothing to select). */
    for (size_t guard = 0; i >= 0 && !a->findings[i].node && guard < a->n_findings; guard++)
        i = analysis_next_finding(a, a->findings[i].line, forward);
    if (i < 0 || !a->findings[i].node)
        return -1;
    uint32_t line = a->findings[i].line;
    while (i > 0 && a->findings[i - 1].line == line)
        i--;
    for (size_t j = (size_t)i; j < a->n_findings && a->findings[j].line == line; j++)
        if (a->findings[j].severity == SEVERITY_WARNING && a->findings[j].node)
            return (long)j;
    return i;
}

/* The finding f F went to last: from its node they go on to the next finding in the
 * list, so several findings on one node are each visited ([2/3] too). */
static struct {
    const struct analysis *a;
    long i;
} last_finding = {NULL, -1};

/* The next (or previous) finding on a node after finding i, round the list; -1: none. */
static long step_from(const struct analysis *a, size_t i, bool forward)
{
    size_t n = a->n_findings;
    for (size_t k = 1; k <= n; k++) { /* at most once round */
        size_t j = forward ? (i + k) % n : (i + n - k % n) % n;
        if (a->findings[j].node)
            return (long)j;
    }
    return -1;
}

static int step_finding(struct tui *t, bool forward)
{
    const struct document *doc = ws_doc(&t->ws)->doc;
    const struct analysis *a = jobs_known(&t->ws.jobs, doc);
    if (!a && jobs_analysing(&t->ws.jobs, doc))
        return when_findings_are_in(t, forward ? KA_NEXT_FINDING : KA_PREV_FINDING);
    const struct plan_node *sel = ws_tab(&t->ws)->rows.sel;
    if (!a || a->n_findings == 0) {
        ws_message(&t->ws, true, "no findings in this document");
        return RE_DRAW;
    }
    long i = -1;
    if (last_finding.a == a && last_finding.i >= 0 && (size_t)last_finding.i < a->n_findings &&
        sel && a->findings[last_finding.i].node == sel)
        i = step_from(a, (size_t)last_finding.i, forward); /* several on one node: each one */
    if (i < 0)
        i = next_finding(a, sel ? sel->line : 0, forward);
    if (i < 0) {
        ws_message(&t->ws, true, "no findings on nodes in this document");
        return RE_DRAW;
    }
    last_finding.a = a;
    last_finding.i = i;
    ws_go_to_finding(&t->ws, a, (size_t)i);
    return RE_DRAW | RE_LAYOUT;
}

static int open_findings(struct tui *t)
{
    const struct document *doc = ws_doc(&t->ws)->doc;
    const struct analysis *a = jobs_known(&t->ws.jobs, doc);
    if (!a && jobs_analysing(&t->ws.jobs, doc))
        return when_findings_are_in(t, KA_FINDINGS);
    if (!a || a->n_findings == 0) {
        ws_message(&t->ws, false, "no findings in this document");
        return RE_DRAW;
    }
    return RE_PUSH(VIEW_FINDINGS) | RE_DRAW;
}

static int open_ids(struct tui *t)
{
    const struct plan_node *sel = ws_tab(&t->ws)->rows.sel;
    if (!sel)
        return RE_NONE;
    struct exprid_ref refs[TUI_MAX_REFS];
    size_t n = exprid_node_refs(sel, refs, TUI_MAX_REFS);
    if (n == 0) {
        ws_message(&t->ws, true, "this node mentions no expression ids");
        return RE_DRAW;
    }
    size_t traceable = 0;
    for (size_t i = 0; i < n && i < TUI_MAX_REFS; i++)
        traceable += !refs[i].normalized;
    if (traceable == 0) {
        ws_message(&t->ws, true, "this plan's ids are normalized (#x): they cannot be traced");
        return RE_DRAW;
    }
    return RE_PUSH(VIEW_IDS) | RE_DRAW;
}

int tree_insight_key(struct tui *t, enum key_action a)
{
    switch (a) {
    case KA_EXPLAIN:
        t->explain = !t->explain;
        t->details_gen++;
        ws_message(&t->ws, false, "operator explanations %s", t->explain ? "on (in the details)" : "off");
        settings_save(t, "explain", t->explain ? "on" : "off");
        return RE_DRAW;
    case KA_FINDINGS:
        return open_findings(t);
    case KA_NEXT_FINDING:
    case KA_PREV_FINDING:
        return step_finding(t, a == KA_NEXT_FINDING);
    case KA_TRACE:
        return open_ids(t);
    case KA_WALK:
        return RE_PUSH(VIEW_WALK) | RE_FOCUS_TREE | RE_DRAW | RE_LAYOUT;
    default:
        return RE_PASS;
    }
}
