/* walk: the order in which a plan runs, for the guided walk and the flipped tree.
 *
 * A plan runs bottom-up: scans first, each operator after its children, and a stage (the
 * operators between two exchanges) only after the stages it reads from have written their
 * shuffle or broadcast.  walk_section lists the operators in that order, a stage at a time, and
 * flags the steps that cross an exchange.  Wrappers (AQE labels and stages, codegen adapters)
 * and an AQE Initial Plan that has a Final/Current plan beside it are left out.
 * Owns: the arrays it returns (malloc); free them with walk_free / free().
 * Never: recursion (explicit post-order with parent links); linear in the section size.
 */
#ifndef SPARKPLAN_WALK_H
#define SPARKPLAN_WALK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sparkplan/plan.h"
#include "sparkplan/status.h"

struct walk_step {
    const struct plan_node *node;
    uint32_t stage;            /* 1-based stage number in execution order */
    bool starts_stage;         /* first step of its stage (a leaf, or a reader of other stages) */
    bool crosses_exchange;     /* the node reads what another stage wrote: it consumes an
                                  Exchange, a broadcast or a subquery, or is a ReusedExchange */
    bool ends_stage;           /* the node writes a shuffle or broadcast (stage boundary) */
    /* Additive (QA #8).  When crosses_exchange: the boundary node it reads (the node itself
     * for a ReusedExchange) and the stage that boundary ends (0 when not in this walk). */
    const struct plan_node *reads;
    uint32_t reads_stage;
};

struct walk {
    struct walk_step *steps;
    size_t n;
    uint32_t n_stages;
};

/* scope NULL: the whole section (an AQE Initial Plan shadowed by a Final/Current plan is left
 * out); otherwise only that node's subtree (an explorer tab such as "Final" or "Initial"). */
enum sp_status walk_section(const struct plan_section *s, const struct plan_node *scope,
                            struct walk *out, struct diag *err);
void walk_free(struct walk *w);
/* Step index of a node, -1 when it is not a step (a wrapper, or outside the walk). */
long walk_find(const struct walk *w, const struct plan_node *n);

/* Every node of the section in post-order (children before their parent, children in order):
 * the row order of a flipped tree, scans on top and data flowing down.  *out is malloc'd. */
enum sp_status walk_postorder(const struct plan_section *s, const struct plan_node ***out,
                              size_t *n, struct diag *err);

/* Is this node a stage boundary (writes a shuffle or broadcast, or roots a subquery)? */
bool walk_is_stage_boundary(const struct plan_node *n);

#endif
