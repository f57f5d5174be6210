/* clip.c: y, Y and | (see clip.h). */
#include "sparkplan/clip.h"

#include <stdlib.h>
#include <string.h>

#include "sparkplan/term.h"
#include "sparkplan/tui.h"
#include "sparkplan/view.h"

struct slice clip_subtree_text(const struct plan_node *n)
{
    const struct plan_section *sec = n->section;
    const struct plan_node *last = n;
    if (sec && (sec->preorder_ || sec->first_node) &&
        plan_node_preorder(n) + n->subtree_size < sec->n_nodes)
        last = plan_section_node(sec, plan_node_preorder(n) + n->subtree_size);
    const char *begin = plan_node_text(n).ptr,
               *end = plan_node_text(last).ptr + plan_node_text(last).len;
    if (end < begin) /* not printed in order (cannot happen for Spark's trees) */
        return plan_node_text(n);
    const char *text = sec && sec->plan && sec->plan->doc ? sec->plan->doc->src.text : NULL;
    while (text && begin > text && begin[-1] != '\n') /* the line's tree prefix too */
        begin--;
    return slice_make(begin, (size_t)(end - begin));
}

void clip_copy(struct tui *t, struct slice text, const char *what)
{
    size_t len = text.len > CLIP_MAX_BYTES ? CLIP_MAX_BYTES : text.len;
    if (!term_osc52(text.ptr, len)) {
        ws_message(&t->ws, true, "cannot copy: out of memory");
        return;
    }
    if (len < text.len)
        ws_message(&t->ws, false, "copied %s: the first %zu of %zu bytes", what, len, text.len);
    else
        ws_message(&t->ws, false, "copied %s (%zu bytes) to the clipboard", what, len);
}

int clip_pipe(struct tui *t, struct slice text)
{
    const char *pager = getenv("PAGER");
    char err[256];
    if (!term_pager(pager && *pager ? pager : "less", text.ptr, text.len, err, sizeof err))
        ws_message(&t->ws, true, "%s", err);
    return RE_DRAW | RE_LAYOUT | RE_FULL;
}

int clip_key(struct tui *t, enum key_action a)
{
    const struct plan_node *n = ws_tab(&t->ws)->rows.sel;
    if (!n) {
        ws_message(&t->ws, true, "no node selected");
        return RE_DRAW;
    }
    switch (a) {
    case KA_COPY:
        clip_copy(t, plan_node_text(n), "the node's text");
        return RE_DRAW;
    case KA_COPY_TREE:
        clip_copy(t, clip_subtree_text(n), "the subtree");
        return RE_DRAW;
    case KA_PIPE:
        return clip_pipe(t, clip_subtree_text(n));
    default:
        return RE_PASS;
    }
}
