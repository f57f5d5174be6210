/* opclass: what kind of operator a node is, for colours and x/X jumps; and THE summary
 * counts (nodes, shuffles, broadcasts, codegen stages, joins) that both the explorer's header
 * and --summary show, so the two never disagree.
 *
 * Classifies by the operator name (first word of node->name), so it works for Spark's own
 * operators and for the plugin ones (Comet*, Gpu*, Native*, Photon*, Columnar*).  The summary
 * prefers the catalogue's role when the operator is known (a Photon shuffle source reads a
 * shuffle; it is not one), and counts the plan that runs: AQE labels are not nodes, and an
 * Initial Plan that a Final Plan replaced is left out.
 * Owns nothing and allocates nothing except inside op_summary_compute (freed before it
 * returns), a sliced run (op_summary_stop or the run's end frees it) and an op_counter
 * (op_counter_finish or op_counter_free frees it).  Never prints, never draws.
 */
#ifndef SPARKPLAN_OPCLASS_H
#define SPARKPLAN_OPCLASS_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "sparkplan/catalog.h"
#include "sparkplan/plan.h"
#include "sparkplan/status.h"

enum op_class {
    OP_OTHER,
    OP_SHUFFLE,            /* Exchange, ColumnarExchange, CometExchange, ...ShuffleExchange... */
    OP_BROADCAST,          /* BroadcastExchange and its plugin variants */
    OP_SHUFFLE_REUSED,     /* ReusedExchange of a shuffle */
    OP_BROADCAST_REUSED,   /* ReusedExchange of a broadcast */
    OP_SHUFFLE_STAGE,      /* AQE ShuffleQueryStage */
    OP_BROADCAST_STAGE,    /* AQE BroadcastQueryStage */
    OP_JOIN,               /* *Join*, CartesianProduct */
    OP_SCAN,               /* *Scan*, logical relations */
    OP_LABEL,              /* "== Final Plan ==" style label inside AQE plans */
};

enum op_class op_class_of(const struct plan_node *n);

/* True for the classes x/X step through (exchanges, reused or not; not the query stages). */
static inline int op_class_is_exchange(enum op_class c)
{
    return c == OP_SHUFFLE || c == OP_BROADCAST || c == OP_SHUFFLE_REUSED ||
           c == OP_BROADCAST_REUSED;
}

/* The operator's first word ("SortMergeJoin" of "SortMergeJoin [a#1], ..."). */
struct slice op_word(const struct plan_node *n);

#define OP_SUMMARY_JOIN_KINDS 8

struct op_summary {
    uint32_t nodes, shuffles, broadcasts, reused, stages;
    struct {
        char name[40];     /* "SortMergeJoin", "Join Inner" */
        uint32_t count;
    } joins[OP_SUMMARY_JOIN_KINDS];
    unsigned n_join_kinds;
    uint32_t other_joins;  /* joins of kinds beyond the table */
    /* Additive (QA #1): the joins by strategy, for --summary. */
    uint32_t join_strategies[JOIN_LOGICAL + 1]; /* by enum catalog_join; JOIN_NONE: unknown */
};

/* One node into the counts (all but the stage count); c = op_class_of(n).  Labels count for
 * nothing.  Leaving out a replaced Initial Plan is op_summary_compute's job. */
void op_summary_add(struct op_summary *sum, const struct plan_node *n, enum op_class c);
/* How many distinct non-negative ids; may reorder ids. */
uint32_t op_count_distinct(int32_t *ids, size_t n);

/* The summary of the section's pre-order [begin..end) (plan_section_node) — an explorer tab, or a
 * whole section for --summary — counting the plan that runs: the subtree of an AQE Initial Plan
 * label that a Final/Current plan replaced is skipped, unless it is the range's own root (the
 * "Initial" tab).  Codegen stages: distinct *(N) ids, plus each run of Spark 2's bare '*' and each
 * WholeStageCodegen node of a simplified tree.  Linear; returns 0 on allocation failure (then the
 * stage count is left at 0), 1 otherwise. */
int op_summary_compute(struct op_summary *sum, const struct plan_section *s, uint32_t begin,
                       uint32_t end);
/* The same for a thread that may be told to stop (the explorer's analysis): *cancel (may be
 * NULL) is read before every OP_SUMMARY_CANCEL_EVERY nodes, so a quit never waits for the
 * pass over a million nodes.  SP_OK, SP_ERR_NOMEM (stage count 0, as above) or
 * SP_ERR_CANCELLED (the counts stop where the pass did: none when the flag was already set). */
#define OP_SUMMARY_CANCEL_EVERY 4096u
enum sp_status op_summary_compute_cancellable(struct op_summary *sum, const struct plan_section *s,
                                              uint32_t begin, uint32_t end,
                                              const atomic_int *cancel);
/* The same summary in slices, so the explorer can count a million nodes between frames:
 * start, then more with a budget of nodes (1 when done and run->sum is final, 0 when there
 * is more, -1 when done but memory ran out: the stage count is then 0); stop frees what a
 * run left unfinished.  The counts are those of op_summary_compute whatever the budgets. */
struct op_summary_run {
    struct op_summary sum;
    const struct plan_section *s;
    uint32_t begin, end, next;
    int32_t *starts;       /* the stage ids that start a stage, one per entry (malloc) */
    size_t n_starts;
    uint32_t unnumbered;
    bool failed;
};
void op_summary_start(struct op_summary_run *run, const struct plan_section *s, uint32_t begin,
                      uint32_t end);
int op_summary_more(struct op_summary_run *run, uint32_t budget);
void op_summary_stop(struct op_summary_run *run);
/* The same counts made by a caller that walks a section itself (the analysis counts in its
 * own pass over the nodes, shared between two threads): zero a struct op_counter, give
 * op_counter_node every node that op_summary_compute over the whole section [0, n_nodes)
 * counts (all but the subtrees of replaced Initial Plans), in any order and split over any
 * number of counters; op_counter_merge adds one counter into another (and frees it), and
 * op_counter_finish sets sum.stages (0 when memory ran out, then it returns 0) and frees the
 * counter's memory.  sum.joins (by name) is not counted (n_join_kinds stays 0): read
 * join_strategies. */
struct op_counter {
    struct op_summary sum;
    uint8_t *bits;          /* stage ids that start a stage, as a bitmap (malloc) */
    size_t bits_len;        /* bytes */
    int32_t *big;           /* such ids too large for the bitmap (malloc) */
    size_t n_big, cap_big;
    uint32_t unnumbered;
    bool failed;
};
/* Counts n; returns node_entry(n), which the count looks up anyway (the analysis reads it). */
const struct catalog_entry *op_counter_node(struct op_counter *c, const struct plan_node *n);
/* A node's facts for the count in 32 bits (its class, its catalogue entry, its word's
 * "WholeStageCodegen" start), found with the look-up op_counter_node makes; 0 for a label
 * by its flag (and where the facts do not fit: the caller counts with op_counter_node).  A
 * caller that reads every node in a pass before the count (the analysis, for its tables)
 * keeps them and counts with op_counter_node_facts: one name look-up a node, not two.
 * op_facts_entry(facts) is node_entry(n) of a node whose facts are not 0. */
uint32_t op_node_facts(const struct plan_node *n);
#define OP_FACT_ENTRY 0xFFFFu /* the facts' low bits: the entry's index + 1, 0 none */
static inline const struct catalog_entry *op_facts_entry(uint32_t facts)
{
    uint32_t ix = facts & OP_FACT_ENTRY;
    return ix ? &catalog_entries[ix - 1] : NULL;
}
/* op_counter_node(c, n), with facts = op_node_facts(n) (0: op_counter_node itself). */
const struct catalog_entry *op_counter_node_facts(struct op_counter *c, const struct plan_node *n,
                                                  uint32_t facts);
void op_counter_merge(struct op_counter *c, struct op_counter *v);
int op_counter_finish(struct op_counter *c);
void op_counter_free(struct op_counter *c);
/* "12 nodes · 3 shuffles · 1 broadcast · 4 codegen stages · joins: SortMergeJoin×2".
 * utf8 = false uses ASCII separators.  Returns the length written (truncated to cap-1). */
size_t op_summary_format(const struct op_summary *sum, int utf8, char *buf, size_t cap);

#endif
