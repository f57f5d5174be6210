/* eventlog: the model of a Spark application read from its event log — the application,
 * its SQL executions, each execution's plan versions (the start plan and every AQE update),
 * each parsed by the plan parser, and every node's runtime metrics.
 *
 * Metrics are side data: a plan version keeps, for each node of its physical section in
 * pre-order (plan_node.preorder), the sparkPlanInfo node aligned onto it (its metric ids),
 * and the execution keeps the aggregated values by accumulator id (sqlmetric.h).  Nothing is
 * added to struct plan_node.
 * Owns: struct ev_app owns one arena (executions, info trees, metric lists, strings) and
 * every plan version's document; ev_app_free() releases them all.
 * Filled by: evload.c (src/parse).  Read by: output, analysis, rows, ui.
 * Never: recursion on tree depth, printing.
 */
#ifndef SPARKPLAN_EVENTLOG_H
#define SPARKPLAN_EVENTLOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sparkplan/arena.h"
#include "sparkplan/plan.h"
#include "sparkplan/sqlmetric.h"

/* A metric of a sparkPlanInfo node. */
struct ev_metric {
    const char *name;           /* "number of output rows" */
    const char *type_name;      /* as the log spells it: "sum", "nsTiming", "v2Custom_..." */
    int64_t acc_id;
    enum sqlm_type type;
};

/* A sparkPlanInfo node (the tree the UI's graph is drawn from). */
struct ev_info {
    const char *node_name;      /* "WholeStageCodegen (1)", "Scan parquet ", "Exchange" */
    const char *simple;         /* simpleString */
    struct ev_info *parent, *first_child, *next_sibling;
    struct ev_metric *metrics;
    uint32_t n_metrics;
};

/* What a text node got from the alignment. */
struct ev_node_side {
    const struct ev_info *info;     /* NULL: not aligned (command nodes, labels) */
    const struct ev_info *codegen;  /* the WholeStageCodegen whose stage this node tops */
};

enum ev_plan_kind { EV_PLAN_START, EV_PLAN_UPDATE };

struct ev_plan {
    enum ev_plan_kind kind;
    uint32_t index;             /* 0 = the start plan, then 1, 2, ... per AQE update */
    bool final;                 /* the last version of its execution */
    struct document *doc;       /* the parsed physicalPlanDescription (may be NULL) */
    const struct plan_section *section; /* the physical section aligned, NULL when none */
    struct ev_info *info;       /* root of sparkPlanInfo */
    struct ev_node_side *side;  /* side[plan_node_preorder(n)] for n in section; NULL when none;
                                   then the subquery sections' nodes (ev_plan_side finds them) */
    const struct plan_section **sub_sections; /* formatted "Subquery:N" sections aligned */
    uint32_t *sub_offsets;      /* where each one's nodes start in side */
    uint32_t n_sub;
    uint32_t n_aligned;         /* text nodes that got an info node */
    uint64_t log_line;          /* the event's line in its file */
};

enum ev_status { EV_RUNNING, EV_SUCCEEDED, EV_FAILED };
const char *ev_status_name(enum ev_status s);   /* "running", "succeeded", "failed" */

struct ev_exec {
    int64_t id;
    int64_t root_id;            /* rootExecutionId, -1 when absent */
    const char *description, *details;
    int64_t start, end;         /* ms since the epoch; end -1 while running */
    enum ev_status status;
    const char *error;          /* NULL unless failed */
    int64_t *jobs;              /* job ids in start order */
    size_t n_jobs;
    bool *job_failed;           /* per job: ended with a failure */
    int32_t *stages;            /* stage ids the jobs listed */
    size_t n_stages;
    struct ev_plan *plans;      /* start plan, then each AQE update (the last is final) */
    size_t n_plans, cap_plans;
    struct sqlm_value *values;  /* aggregated metrics by accumulator id */
    size_t n_values;
    uint64_t log_line;          /* line of its SQLExecutionStart (in file log_file) */
    size_t log_file;
    /* The operator that took most time in the final plan (NULL when no time metric). */
    const struct plan_node *hottest;
    int64_t hottest_ms;
};

struct ev_warning {
    const char *file;           /* the file of the log it is about */
    uint64_t line;              /* 0 when none */
    const char *message;
};

struct ev_app {
    struct arena arena;
    const char *name_shown;     /* the path opened */
    const char *app_id, *app_name, *spark_version, *user;
    bool databricks;            /* the version is a Databricks runtime */
    int64_t start, end;         /* -1 when unknown */
    const char *codec;          /* of the first file */
    const char *layout;         /* ev_layout_name */
    bool in_progress, truncated;
    struct ev_exec *execs;      /* by execution id */
    size_t n_execs, cap_execs;
    struct ev_warning *warnings;
    size_t n_warnings, cap_warnings;
    uint64_t n_lines, n_bytes;  /* decompressed */
    const char *const *files;   /* the files read, in order */
    size_t n_files;
};

/* The final plan of an execution (its last version), NULL when it has none. */
const struct ev_plan *ev_exec_final(const struct ev_exec *e);
/* A node's side data in plan p (NULL when the node is not in p's aligned section). */
const struct ev_node_side *ev_plan_side(const struct ev_plan *p, const struct plan_node *n);

/* A node's metrics with values: calls fn for each metric of its info node (and of the
 * codegen stage it tops) that the execution has a value for, in the info's order. */
struct ev_shown_metric {
    const struct ev_metric *def;
    const struct sqlm_value *value;
    bool codegen;               /* the WholeStageCodegen stage's own metric */
};
size_t ev_node_metrics(const struct ev_exec *e, const struct ev_plan *p,
                       const struct plan_node *n, struct ev_shown_metric *out, size_t cap);
/* Time spent in a node by its time metrics (ms; nsTiming converted; totals). */
int64_t ev_node_time_ms(const struct ev_exec *e, const struct ev_plan *p,
                        const struct plan_node *n);
/* A node's metric by name ("number of output rows"), NULL when absent. */
const struct sqlm_value *ev_node_metric(const struct ev_exec *e, const struct ev_plan *p,
                                        const struct plan_node *n, const char *name);

/* The metrics column of a node, right-aligned pieces in a fixed order: rows output, time
 * (its own time metrics), data size, spill when there was some: "12,345 rows  1.2 s  3.4 MiB
 * spill 1.0 GiB".  Empty when the node has none of them.  Returns buf. */
const char *ev_node_brief(const struct ev_exec *e, const struct ev_plan *p,
                          const struct plan_node *n, char *buf, size_t cap);

/* Heat of a node in plan p: 0 (no time or under a tenth of the hottest node's), 1, 2, 3
 * (over two thirds of the hottest).  hottest_ms: the plan's largest own time
 * (ev_plan_max_time_ms). */
int ev_node_heat(const struct ev_exec *e, const struct ev_plan *p, const struct plan_node *n,
                 int64_t hottest_ms);
int64_t ev_plan_max_time_ms(const struct ev_exec *e, const struct ev_plan *p);

/* The Spark UI's label of a metric: "name value" when the value holds ':', else
 * "name: value" (SparkPlanGraph).  Returns buf. */
const char *ev_metric_label(const struct ev_shown_metric *m, char *buf, size_t cap);

/* Aligns p->info onto p->doc's physical section (fills section, side, n_aligned).  False
 * on allocation failure only; nodes that do not match stay unaligned. */
bool ev_plan_align(struct ev_plan *p, struct arena *a);
/* Finds each execution's hottest operator (after its values are known). */
void ev_exec_find_hottest(struct ev_exec *e);

void ev_app_free(struct ev_app *app);

#endif
