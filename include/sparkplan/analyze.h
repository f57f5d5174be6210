/* analyze: a linter for plans — findings with stable rule ids, and the summary counts a
 * reader checks first.
 *
 * Owns: struct analysis and everything in it (one arena: findings, messages, indexes).
 * analysis_free() releases it all.  It borrows the document: free the analysis before the
 * document.  Messages may contain plan text: print them through sanitize.
 * Thread-safe on a document nobody changes (see analyze_document_cancellable).
 * Never: prints, recurses on tree depth, or makes a pass that is not linear in the input.
 */
#ifndef SPARKPLAN_ANALYZE_H
#define SPARKPLAN_ANALYZE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sparkplan/arena.h"
#include "sparkplan/catalog.h"
#include "sparkplan/plan.h"
#include "sparkplan/status.h"

enum severity {
    SEVERITY_INFO,     /* worth knowing; never fails --lint */
    SEVERITY_WARNING,  /* an experienced reader would stop here; --lint exits 1 */
};
const char *severity_name(enum severity s);  /* "info", "warning" */

/* Stable rule ids: never renumber, only add. */
enum rule_id {
    RULE_SHUFFLE,                /* SP001 */
    RULE_SINGLE_PARTITION,       /* SP002 */
    RULE_BROADCAST,              /* SP003 */
    RULE_NESTED_LOOP_JOIN,       /* SP010 */
    RULE_CARTESIAN,              /* SP011 */
    RULE_SMJ_SMALL_SIDE,         /* SP012 */
    RULE_BROADCAST_LARGE,        /* SP013 */
    RULE_SKEW_JOIN,              /* SP014 */
    RULE_FILTER_NOT_PUSHED,      /* SP020 */
    RULE_PARTITION_FILTERS,      /* SP021 */
    RULE_READS_ALL_COLUMNS,      /* SP022 */
    RULE_ALL_PARTITIONS,         /* SP023 */
    RULE_PYTHON_ROWS,            /* SP030 */
    RULE_PYTHON_ARROW,           /* SP031 */
    RULE_AQE_DRAFT,              /* SP040 */
    RULE_AQE_JOIN_CHANGED,       /* SP041 */
    RULE_AQE_EXCHANGES_CHANGED,  /* SP042 */
    RULE_ABSURD_ESTIMATE,        /* SP050 */
    RULE_FILTER_NOT_REDUCING,    /* SP051 */
    RULE_TRUNCATED_FIELDS,       /* SP060 */
    RULE_TRUNCATED_PLAN,         /* SP061 */
    RULE_CACHE_USED,             /* SP070 */
    /* Runtime rules: what an event log's metrics show (analysis/runtime.c). */
    RULE_RT_SKEW,                /* SP080 */
    RULE_RT_SPILL,               /* SP081 */
    RULE_RT_JOIN_EXPLOSION,      /* SP082 */
    RULE_RT_FILTER_KEPT_ALL,     /* SP083 */
    RULE_RT_EMPTY_PARTITIONS,    /* SP084 */
    RULE_RT_COALESCED,           /* SP085 */
    RULE_RT_BROADCAST_SIZE,      /* SP086 */
    RULE_RT_SCAN_PRUNING,        /* SP087 */
    RULE_COUNT
};

struct rule {
    const char *id;              /* "SP001" */
    enum severity severity;      /* usual severity; a finding may lower it (see finding) */
    const char *title;           /* "shuffle" */
    const char *why;             /* short reason */
    const char *todo;            /* what to do */
};
extern const struct rule analyze_rules[RULE_COUNT];
const struct rule *rule_by_id(const char *id);  /* "SP010" -> rule, NULL if none */

struct finding {
    enum rule_id rule;
    enum severity severity;      /* this occurrence (a BNLJ of one-row sides is info) */
    const struct plan_node *node;/* the node it is about; NULL for a document-level finding */
    uint32_t line;               /* original input line (the node's, or where the text is) */
    const char *message;         /* specific sentence, arena string (may hold plan text) */
};

/* Counts for --summary and the explorer's header. */
/* A scan: 40 bytes, where slices and longs took 72 (a million-operator plan has 150,000
 * scans, and new memory is dear on some machines).  Its operator and table lie in the node's
 * text: read them with scan_info_op and scan_info_table. */
struct scan_info {
    const struct plan_node *node;
    int32_t read_columns;        /* ReadSchema fields, -1 unknown */
    int32_t pushed_filters;      /* -1: the scan has no PushedFilters field */
    int32_t partition_filters;   /* -1: no PartitionFilters field */
    uint32_t op_at, op_len;      /* private: scan_info_op */
    uint32_t table_at, table_len;/* private: scan_info_table */
    bool dynamic_pruning;        /* PartitionFilters holds dynamicpruningexpression */
    bool partitioned;            /* its output has columns the files do not hold */
};
/* The operator as named ("Scan parquet", "FileScan"), and the table (may be empty); the
 * node's line is sc->node->line. */
struct slice scan_info_op(const struct scan_info *sc);
struct slice scan_info_table(const struct scan_info *sc);

struct summary {
    size_t n_plans;
    size_t n_nodes;              /* every node of every section (AQE labels are not nodes) */
    size_t n_physical_nodes;     /* nodes of the plan(s) that run, counted below; the counts
                                    are op_summary_compute's, like the explorer's header
                                    (made node by node in the rule pass: op_counter) */
    size_t shuffles[6];          /* by enum partitioning_kind (nodeinfo.h) */
    size_t n_shuffles;
    size_t n_broadcasts;
    size_t n_reused_exchanges;
    size_t n_codegen_stages;     /* distinct *(N) stage ids */
    size_t joins[JOIN_LOGICAL + 1]; /* by enum catalog_join */
    size_t n_python;
    size_t n_cache_scans;
    struct scan_info *scans;
    size_t n_scans;
    size_t cap_scans;            /* room in scans: every scan-like node, asked for once */
    size_t n_findings, n_warnings, n_info;
    size_t n_findings_dropped;   /* beyond the per-rule cap, counted but not kept */
};

struct analysis {
    struct arena arena;
    struct arena side_arena;     /* messages worded by the second thread */
    const struct document *doc;
    struct finding *findings;    /* sorted by line, then rule */
    size_t n_findings;
    struct finding **by_node;    /* same findings sorted by node address, for lookups */
    struct summary summary;
};

/* Runs every rule over the document.  *out is NULL on error. */
enum sp_status analyze_document(const struct document *doc, struct analysis **out,
                                struct diag *err);
/* The same, stopped when *cancel (may be NULL) turns non-zero: the flag is read every few
 * thousand nodes and every few MB of text (a stop takes about a millisecond), and then the
 * result is SP_ERR_CANCELLED with nothing left allocated.  Thread-safe: it only reads the
 * document and keeps no state of its own between calls, so it may run on one thread while
 * others read the same document (never while it is changed or freed). */
enum sp_status analyze_document_cancellable(const struct document *doc, const atomic_int *cancel,
                                            struct analysis **out, struct diag *err);
/* The same findings, counts and order without the findings' messages (each is "") and
 * without by_node (analysis_node_findings finds nothing), for --summary, which prints
 * counts only: the rules skip the work that only words a message. */
enum sp_status analyze_document_counts(const struct document *doc, struct analysis **out,
                                       struct diag *err);
void analysis_free(struct analysis *a);
/* Sections and documents of at least `nodes` nodes are analysed on two threads (0: the
 * default, 8,192).  For tests and benchmarks; set it before any analysis runs. */
void analyze_set_parallel_min(size_t nodes);
/* The nodes' facts (4 bytes a node) are fresh memory made present at once from `bytes` on
 * (0: the default, 1 MB), calloc's below.  For tests; set it before any analysis runs. */
void analyze_set_facts_mapped_min(size_t bytes);
/* The whole-text look for the marks the rules need takes 64 bytes a step with AVX2 where the
 * processor has it (on: the default), else 32 with SSE2; so do the scan rule's looks for a
 * word in a node's text (32 starts a step, else slice_find_in).  For tests, to try both. */
void analyze_set_marks_avx2(bool on);

/* Findings about one node (pointer into a->by_node, *count of them; NULL when none). */
struct finding *const *analysis_node_findings(const struct analysis *a,
                                              const struct plan_node *n, size_t *count);
/* Worst severity on a node, -1 when it has no finding (for gutter marks). */
int analysis_node_severity(const struct analysis *a, const struct plan_node *n);
/* Index of the next / previous finding after / before `line` in line order, wrapping;
 * -1 when there are none.  For the explorer's f / F. */
long analysis_next_finding(const struct analysis *a, uint32_t line, bool forward);

#endif
