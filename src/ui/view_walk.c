/* view_walk.c: the guided walk (w) — the plan in execution order, a stage at a time: each
 * step selects its node, the details explain it (i is on while walking), the status line
 * says where the step is and which stage boundary it crossed.  An overlay without a
 * picture: it takes the keys while the tree and details show the step.  Its state: the
 * walk (walk.h), the step, whether i was on before.  However it closes (q, or a paste
 * showing another document closes every overlay), it puts i back and says "walk ended":
 * a walk never steps a document no longer shown. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sparkplan/catalog.h"
#include "sparkplan/nodeinfo.h"
#include "sparkplan/tui.h"
#include "sparkplan/walk.h"

struct walk_state {
    struct walk walk;
    size_t step;
    bool explain_before;
};

/* How the step relates to the stages: it reads what another stage wrote (a stage boundary
 * crossed), or a new stage starts at a leaf that reads a table or rows of its own. */
static void step_entry(const struct walk_step *st, size_t step, char *buf, size_t cap)
{
    buf[0] = '\0';
    if (st->crosses_exchange) {
        enum catalog_role r = node_role(st->reads);
        const char *what = r == CAT_REUSED      ? "reuses an exchange that already ran"
                           : r == CAT_BROADCAST ? "reads the broadcast"
                           : r == CAT_SUBQUERY  ? "uses the subquery result"
                                                : "reads the shuffle";
        if (st->reads_stage)
            snprintf(buf, cap, " (%s of job stage %u)", what, st->reads_stage);
        else
            snprintf(buf, cap, " (%s: a stage boundary)", what);
    } else if (st->starts_stage && step > 0) {
        enum catalog_role r = node_role(st->node);
        snprintf(buf, cap, " (a new job stage starts %s)",
                 plan_node_first_child(st->node)                                ? "here"
                 : r == CAT_SCAN || r == CAT_CACHE || r == CAT_RELATION ? "at a scan"
                                                                        : "at this leaf");
    }
}

static bool logical(const struct tab *tab)
{
    enum section_kind k = tab->section->kind;
    return k == SECTION_PARSED || k == SECTION_ANALYZED || k == SECTION_OPTIMIZED;
}

/* The status line: the counter and the keys first (always on screen), then where the
 * step is: its job stage (execution order) and its codegen stage, never just "stage". */
static void show_step(struct tui *t, const struct walk_state *w)
{
    const struct walk_step *st = &w->walk.steps[w->step];
    ws_jump_to(&t->ws, (struct plan_node *)st->node, false);
    t->details_gen++; /* the details follow the step */
    struct slice op = catalog_operator_name(
        plan_node_name(st->node).len ? plan_node_name(st->node) : plan_node_text(st->node));
    int opn = (int)(op.len > 60 ? 60 : op.len);
    if (logical(ws_tab(&t->ws))) {
        ws_message(&t->ws, false, "walk %zu/%zu (Space b q) \xC2\xB7 logical plan: %.*s",
                    w->step + 1, w->walk.n, opn, op.ptr);
        snprintf(t->narration, sizeof t->narration,
                 "Step %zu of %zu. A logical plan does not run: this walk follows its data "
                 "flow, sources first, to %.*s.", w->step + 1, w->walk.n, opn, op.ptr);
        return;
    }
    const struct catalog_entry *e = catalog_lookup_slice(op);
    char what[160] = "";
    if (st->ends_stage)
        snprintf(what, sizeof what, ": %s, job stage %u ends here",
                 e && e->role == CAT_BROADCAST ? "collects and broadcasts its rows"
                 : e && e->role == CAT_SUBQUERY ? "runs the subquery"
                                                 : "writes the shuffle",
                 st->stage);
    else if (w->step == 0)
        snprintf(what, sizeof what, ": execution starts here");
    char how[120], codegen[40] = "", label[16];
    step_entry(st, w->step, how, sizeof how);
    if (st->node->stage >= 0)
        snprintf(codegen, sizeof codegen, " (codegen stage %s)",
                 tree_stage_label(st->node, label, sizeof label));
    ws_message(&t->ws, false, "walk %zu/%zu (Space b q) \xC2\xB7 job stage %u/%u%s: %.*s%s%s",
                w->step + 1, w->walk.n, st->stage, w->walk.n_stages, how, opn, op.ptr, codegen,
                what);
    /* The whole sentence where it can wrap: the status line cuts it on a narrow screen. */
    snprintf(t->narration, sizeof t->narration, "Step %zu of %zu, job stage %u of %u%s: %.*s%s%s.",
             w->step + 1, w->walk.n, st->stage, w->walk.n_stages, how, opn, op.ptr, codegen,
             what);
}

static int walk_key(struct tui *t, void *state, enum key_action a,
                    const struct input_event *ev)
{
    struct walk_state *w = state;
    switch (a) {
    case KA_W_NEXT:
        if (w->step + 1 >= w->walk.n) {
            ws_message(&t->ws, false,
                       "the plan's result comes out of this last step (q ends the walk)");
            return RE_DRAW;
        }
        w->step++;
        break;
    case KA_W_PREV:
        if (w->step == 0) {
            ws_message(&t->ws, false, "this is the first step");
            return RE_DRAW;
        }
        w->step--;
        break;
    case KA_FIRST:
        w->step = 0;
        break;
    case KA_LAST:
        w->step = w->walk.n - 1;
        break;
    case KA_W_END:
        return RE_POP | RE_DRAW | RE_LAYOUT; /* walk_close ends it */
    default:
        if (keys_lookup(KCTX_GLOBAL, ev->name) == KA_QUIT)
            return RE_QUIT; /* Ctrl-c still quits */
        return RE_NONE;
    }
    show_step(t, w);
    return RE_DRAW | RE_LAYOUT;
}

/* The walk of the current tab from its first step; NULL (and a message) when there is
 * nothing to walk. */
static void *walk_open(struct tui *t)
{
    struct walk_state *w = calloc(1, sizeof *w);
    if (!w) {
        ws_message(&t->ws, true, "out of memory");
        return NULL;
    }
    struct tab *tab = ws_tab(&t->ws);
    struct diag err = {0};
    if (walk_section(tab->section, tab->scope, &w->walk, &err) != SP_OK) {
        ws_message(&t->ws, true, "%s", err.message);
        walk_free(&w->walk);
        free(w);
        return NULL;
    }
    if (w->walk.n == 0) {
        ws_message(&t->ws, true, "nothing to walk through in this section");
        walk_free(&w->walk);
        free(w);
        return NULL;
    }
    w->explain_before = t->explain;
    t->explain = true;
    show_step(t, w);
    return w;
}

static void walk_close(struct tui *t, void *state)
{
    struct walk_state *w = state;
    t->explain = w->explain_before;
    t->narration[0] = '\0';
    t->details_gen++;
    ws_message(&t->ws, false, "walk ended");
    walk_free(&w->walk);
    free(w);
}

const struct view_ops view_walk = {
    .name = "walk",
    .layer = LAYER_OVERLAY,
    .keys = KCTX_WALK,
    .open = walk_open,
    .close = walk_close,
    .key = walk_key,
};
