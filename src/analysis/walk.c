/* walk.c: execution order and post-order of a section (see walk.h). */
#include "sparkplan/walk.h"

#include <stdlib.h>

#include "sparkplan/nodeinfo.h"

bool walk_is_stage_boundary(const struct plan_node *n)
{
    switch (node_role(n)) {
    case CAT_SHUFFLE:
    case CAT_BROADCAST:
    case CAT_SUBQUERY:
        return true;
    default:
        return false;
    }
}

static const struct plan_node *leftmost_leaf(const struct plan_node *n)
{
    while (plan_node_first_child(n))
        n = plan_node_first_child(n);
    return n;
}

/* Fills out[0..n_nodes) with the section's nodes in post-order. */
static void postorder_fill(const struct plan_section *s, const struct plan_node **out)
{
    size_t k = 0;
    for (const struct plan_node *root = s->first_root; root; root = plan_node_next_sibling(root)) {
        const struct plan_node *n = leftmost_leaf(root);
        for (;;) {  /* each node is visited once */
            out[k++] = n;
            if (n == root)
                break;
            n = plan_node_next_sibling(n) ? leftmost_leaf(plan_node_next_sibling(n))
                                          : plan_node_parent(n);
        }
    }
}

enum sp_status walk_postorder(const struct plan_section *s, const struct plan_node ***out,
                              size_t *n, struct diag *err)
{
    *out = NULL;
    *n = 0;
    if (!s->n_nodes)
        return SP_OK;
    const struct plan_node **v = malloc(s->n_nodes * sizeof *v);
    if (!v) {
        diag_set(err, 0, "out of memory");
        return SP_ERR_NOMEM;
    }
    postorder_fill(s, v);
    *out = v;
    *n = s->n_nodes;
    return SP_OK;
}

/* Nodes the walk leaves out: labels, codegen wrappers, AQE stage wrappers, the AQE node. */
static bool is_step(const struct plan_node *n)
{
    if (node_is_label(n))
        return false;
    switch (node_role(n)) {
    case CAT_CODEGEN:
    case CAT_QUERY_STAGE:
    case CAT_AQE:
        return false;
    default:
        return true;
    }
}

/* An Initial Plan label whose AQE parent also holds a Final or Current plan. */
static bool is_shadowed_initial_plan(const struct plan_node *n)
{
    if (!node_is_initial_plan_label(n) || !plan_node_parent(n))
        return false;
    for (const struct plan_node *c = plan_node_first_child(plan_node_parent(n)); c;
         c = plan_node_next_sibling(c))
        if (c != n && node_is_label(c) && !node_is_initial_plan_label(c))
            return true;
    return false;
}

/* Does the step read what another stage wrote?  Its children are looked at through the
 * wrappers the walk leaves out (query stages, codegen adapters, labels): each wrapper is
 * below exactly one step, so this is linear over the whole walk.  stage_of: preorder ->
 * stage number of the step on that node. */
static void mark_reads(struct walk_step *st, const unsigned char *skip, const uint32_t *stage_of)
{
    const struct plan_node *n = st->node;
    if (node_role(n) == CAT_REUSED) {  /* a leaf standing for an exchange that ran before */
        st->crosses_exchange = true;
        st->reads = n;
        return;
    }
    for (const struct plan_node *c = plan_node_first_child(n); c; c = plan_node_next_sibling(c)) {
        const struct plan_node *d = c;
        while (d && !is_step(d))  /* wrappers have one child */
            d = plan_node_first_child(d);
        if (!d || skip[plan_node_preorder(d)] || !walk_is_stage_boundary(d))
            continue;
        st->crosses_exchange = true;
        st->reads = d;
        st->reads_stage = stage_of[plan_node_preorder(d)];
        return;
    }
}

enum sp_status walk_section(const struct plan_section *s, const struct plan_node *scope,
                            struct walk *out, struct diag *err)
{
    out->steps = NULL;
    out->n = 0;
    out->n_stages = 0;
    size_t nn = s->n_nodes;
    if (!nn)
        return SP_OK;
    const struct plan_node **post = malloc(nn * sizeof *post);
    uint32_t *head = malloc(nn * sizeof *head);      /* preorder -> preorder of its stage head */
    uint32_t *post_pos = malloc(nn * sizeof *post_pos);
    unsigned char *skip = malloc(nn);
    uint32_t *bucket = malloc((nn + 1) * sizeof *bucket);
    struct walk_step *steps = malloc(nn * sizeof *steps);
    if (!post || !head || !post_pos || !skip || !bucket || !steps) {
        free(post), free(head), free(post_pos), free(skip), free(bucket), free(steps);
        diag_set(err, 0, "out of memory");
        return SP_ERR_NOMEM;
    }
    /* Preorder pass: parents come before children, so inherited facts are ready. */
    for (size_t i = 0; i < nn; i++) {
        const struct plan_node *n = plan_section_node(s, i);
        const struct plan_node *p = plan_node_parent(n);
        if (scope)
            skip[i] = plan_node_preorder(n) < plan_node_preorder(scope) ||
                      plan_node_preorder(n) > plan_node_preorder(scope) + scope->subtree_size;
        else
            skip[i] = (p && skip[plan_node_preorder(p)]) || is_shadowed_initial_plan(n);
        head[i] = (!p || walk_is_stage_boundary(n)) ? (uint32_t)i : head[plan_node_preorder(p)];
    }
    postorder_fill(s, post);
    for (size_t k = 0; k < nn; k++)
        post_pos[plan_node_preorder(post[k])] = (uint32_t)k;
    /* Group the steps by stage, stages in the post-order of their heads (a stage's inputs are
     * below its head, so they come first), nodes of one stage in post-order: a counting sort
     * keyed by the head's post-order position. */
    for (size_t k = 0; k <= nn; k++)
        bucket[k] = 0;
    for (size_t k = 0; k < nn; k++) {
        const struct plan_node *n = post[k];
        if (!skip[plan_node_preorder(n)] && is_step(n))
            bucket[post_pos[head[plan_node_preorder(n)]] + 1]++;
    }
    for (size_t k = 1; k <= nn; k++)
        bucket[k] += bucket[k - 1];
    size_t n_steps = bucket[nn];
    for (size_t k = 0; k < nn; k++) {
        const struct plan_node *n = post[k];
        if (skip[plan_node_preorder(n)] || !is_step(n))
            continue;
        uint32_t key = post_pos[head[plan_node_preorder(n)]];
        steps[bucket[key]++] = (struct walk_step){.node = n, .stage = key};
    }
    /* Number the stages 1.. in order; head[] now maps a step's node to its stage number. */
    uint32_t stage_no = 0, prev_key = UINT32_MAX;
    for (size_t k = 0; k < n_steps; k++) {
        uint32_t key = steps[k].stage;
        steps[k].starts_stage = key != prev_key;
        if (key != prev_key)
            stage_no++;
        prev_key = key;
        steps[k].stage = stage_no;
        steps[k].ends_stage = walk_is_stage_boundary(steps[k].node);
    }
    for (size_t k = 0; k < n_steps; k++)
        head[plan_node_preorder(steps[k].node)] = steps[k].stage;
    for (size_t k = 0; k < n_steps; k++)
        mark_reads(&steps[k], skip, head);
    free(post), free(head), free(post_pos), free(skip), free(bucket);
    out->steps = steps;
    out->n = n_steps;
    out->n_stages = stage_no;
    return SP_OK;
}

void walk_free(struct walk *w)
{
    free(w->steps);
    w->steps = NULL;
    w->n = 0;
}

long walk_find(const struct walk *w, const struct plan_node *n)
{
    for (size_t i = 0; i < w->n; i++)  /* linear: called once per key press */
        if (w->steps[i].node == n)
            return (long)i;
    return -1;
}
