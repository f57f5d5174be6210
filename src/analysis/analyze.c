/* analyze.c: lint rules and summary counts over a parsed document (see analyze.h).
 *
 * Passes, all linear: (1) per plan, choose the sections that ran (physical + subqueries, or
 * what stands in for them) and skip AQE Initial Plans shadowed by a Final/Current plan;
 * (2) a reverse-preorder pass per section computes "at most one row" for every node; (3) the
 * per-node rules; (4) statistics rules over sections with estimates; (5) a text scan for
 * plan truncation.  Findings are sorted by line at the end.
 * The explorer runs it on a thread of its own: it reads the document and keeps nothing
 * between calls, and a cancel flag is looked at every CANCEL_EVERY nodes and TEXT_CHUNK
 * bytes of text, so a stop is quick.
 */
#include "sparkplan/analyze.h"
#include "sparkplan/grow.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

#include "sparkplan/exprid.h"
#include "sparkplan/nodeinfo.h"
#include "sparkplan/opclass.h"
#include "sparkplan/freshmem.h"
#include "sparkplan/prefetch.h"
#include "sparkplan/thread.h"

#define MIB (1024.0 * 1024.0)
#define BROADCAST_THRESHOLD (10.0 * MIB)     /* spark.sql.autoBroadcastJoinThreshold default */
#define LARGE_BROADCAST (100.0 * MIB)
#define UNKNOWN_SIZE 4.0e18                   /* ~ Long.MaxValue (8.0 EiB): "size unknown" */
#define TIB (1024.0 * 1024.0 * 1024.0 * 1024.0)
#define MAX_PER_RULE 5000                     /* findings kept per rule; the rest are counted */
/* How often the cancel flag is read: every 4,096 nodes of a pass (a few hundred
 * microseconds) and every 4 MB of a text scan (about a millisecond at memchr speed). */
#define CANCEL_EVERY 4096u
#define TEXT_CHUNK ((size_t)4 << 20)

const struct rule analyze_rules[RULE_COUNT] = {
    [RULE_SHUFFLE] = {"SP001", SEVERITY_INFO, "shuffle",
        "An Exchange moves rows between executors over the network and ends a stage.",
        "Check that the key is the one you expect; fewer shuffles (bucketing, broadcast joins, "
        "reusing a partitioning) make a query cheaper."},
    [RULE_SINGLE_PARTITION] = {"SP002", SEVERITY_WARNING, "single partition",
        "Exchange SinglePartition sends every row to one task: no parallelism, and that task "
        "may run out of memory.",
        "Give the window a partitionBy, sort or limit less data, or avoid repartition(1)/coalesce(1)."},
    [RULE_BROADCAST] = {"SP003", SEVERITY_INFO, "broadcast",
        "A BroadcastExchange collects one side of a join and copies it to every executor.",
        "Fine while that side is small; check its size."},
    [RULE_NESTED_LOOP_JOIN] = {"SP010", SEVERITY_WARNING, "nested loop join",
        "BroadcastNestedLoopJoin compares every row with every row: the join condition is "
        "missing or has no equality.",
        "Add an equality between the two sides to the join condition, or make sure one side is "
        "tiny."},
    [RULE_CARTESIAN] = {"SP011", SEVERITY_WARNING, "cartesian product",
        "CartesianProduct pairs every row of one side with every row of the other.",
        "Check for a missing join condition; if the cross join is intended, keep one side tiny."},
    [RULE_SMJ_SMALL_SIDE] = {"SP012", SEVERITY_WARNING, "sort-merge join with a small side",
        "One side of this sort-merge join is below the 10 MB broadcast threshold: a broadcast "
        "hash join would avoid shuffling and sorting the other side.",
        "Check spark.sql.autoBroadcastJoinThreshold (and its AQE twin), statistics (ANALYZE "
        "TABLE), or add a BROADCAST hint."},
    [RULE_BROADCAST_LARGE] = {"SP013", SEVERITY_WARNING, "large broadcast",
        "The broadcast side of this join is large: it is collected on the driver and copied "
        "to every executor.",
        "Check the BROADCAST hint or the threshold that allowed it; above a few hundred MB "
        "prefer a sort-merge or shuffled hash join."},
    [RULE_SKEW_JOIN] = {"SP014", SEVERITY_INFO, "skew join",
        "AQE found skewed partitions and split them for this join.",
        "The join keys are skewed; AQE handled it, but the skewed key may deserve a look."},
    [RULE_FILTER_NOT_PUSHED] = {"SP020", SEVERITY_WARNING, "filter not pushed down",
        "A Filter sits on a scan whose PushedFilters is empty: every row is read, then filtered.",
        "Filter on plain columns with simple comparisons; casts, UDFs and some types block "
        "pushdown."},
    [RULE_PARTITION_FILTERS] = {"SP021", SEVERITY_INFO, "partition pruning",
        "PartitionFilters: only the matching partitions are read. Good.",
        "Nothing to do."},
    [RULE_READS_ALL_COLUMNS] = {"SP022", SEVERITY_INFO, "reads every column",
        "The scan reads every column of the table. Spark already leaves out the columns a "
        "query does not use, so the query uses them all (SELECT *, or a DataFrame that keeps "
        "every column): normal for a full export, wasteful on a wide table when the result "
        "needs a few.",
        "If the result needs only some columns, select those: a columnar format then reads "
        "only them."},
    [RULE_ALL_PARTITIONS] = {"SP023", SEVERITY_INFO, "every partition read",
        "The table is partitioned but the scan has no PartitionFilters: every partition is "
        "listed and read.",
        "Filter on the partition column with a plain comparison if only some partitions matter."},
    [RULE_PYTHON_ROWS] = {"SP030", SEVERITY_WARNING, "Python UDF",
        "Rows are pickled, shipped to a Python worker, evaluated one by one and shipped back; "
        "whole-stage codegen stops here and filters on the result cannot be pushed down.",
        "Use a built-in function, or a vectorized pandas_udf."},
    [RULE_PYTHON_ARROW] = {"SP031", SEVERITY_INFO, "vectorized Python",
        "Rows go to a Python worker as Arrow batches; codegen stops here and filters on the "
        "result cannot be pushed down.",
        "Fine when no built-in function does the job."},
    [RULE_AQE_DRAFT] = {"SP040", SEVERITY_INFO, "AQE draft plan",
        "isFinalPlan=false: adaptive execution may still change join strategies, partition "
        "counts and skew handling at run time.",
        "Run the query and read the final plan (Spark UI SQL tab, or the event log)."},
    [RULE_AQE_JOIN_CHANGED] = {"SP041", SEVERITY_INFO, "AQE changed joins",
        "Adaptive execution chose different join strategies than the initial plan.",
        "Compare the Final Plan with the Initial Plan: runtime sizes drove the change."},
    [RULE_AQE_EXCHANGES_CHANGED] = {"SP042", SEVERITY_INFO, "AQE changed exchanges",
        "The final plan has a different number of exchanges than the initial plan.",
        "Compare the Final Plan with the Initial Plan."},
    [RULE_ABSURD_ESTIMATE] = {"SP050", SEVERITY_WARNING, "absurd estimate",
        "The optimizer's size estimate is not believable, so its choices built on it are not "
        "either.",
        "Compute statistics (ANALYZE TABLE ... COMPUTE STATISTICS [FOR COLUMNS]) and check for "
        "joins without usable conditions."},
    [RULE_FILTER_NOT_REDUCING] = {"SP051", SEVERITY_INFO, "missing statistics",
        "Filters leave the size estimate unchanged: without column statistics the optimizer "
        "assumes a filter keeps every row.",
        "ANALYZE TABLE ... COMPUTE STATISTICS FOR COLUMNS, and spark.sql.cbo.enabled=true."},
    [RULE_TRUNCATED_FIELDS] = {"SP060", SEVERITY_WARNING, "truncated list",
        "Spark cut this list at spark.sql.debug.maxToStringFields (default 25): columns or "
        "expressions are missing from the plan text.",
        "spark.conf.set(\"spark.sql.debug.maxToStringFields\", 1000) and explain again."},
    [RULE_TRUNCATED_PLAN] = {"SP061", SEVERITY_WARNING, "truncated plan",
        "Spark cut the plan text at spark.sql.maxPlanStringLength.",
        "Raise spark.sql.maxPlanStringLength and explain again."},
    [RULE_CACHE_USED] = {"SP070", SEVERITY_INFO, "cache used",
        "InMemoryTableScan reads a cached relation instead of recomputing it.",
        "The plan under InMemoryRelation ran once to fill the cache; make sure it is not stale "
        "and is unpersisted when no longer needed."},
    [RULE_RT_SKEW] = {"SP080", SEVERITY_WARNING, "skewed tasks",
        "One task of this operator took several times the median task and long enough to "
        "matter: the stage waited for it.",
        "Look at the stage and task the max names (Spark UI, stage page): a hot join or "
        "grouping key, or one big file. Salt the key, enable AQE skew join "
        "(spark.sql.adaptive.skewJoin.enabled), or split the input more evenly."},
    [RULE_RT_SPILL] = {"SP081", SEVERITY_WARNING, "spill",
        "This operator ran out of execution memory and wrote its data to disk and read it "
        "back.",
        "Give tasks more memory (spark.executor.memory, fewer cores per executor) or less "
        "data each (more shuffle partitions, spark.sql.shuffle.partitions / AQE's advisory "
        "size); check for skew first."},
    [RULE_RT_JOIN_EXPLOSION] = {"SP082", SEVERITY_WARNING, "join explosion",
        "The join produced far more rows than its inputs had: keys repeat on both sides and "
        "every match pairs up.",
        "Check the join keys: a missing key column, duplicates on the side that should be "
        "unique, or nulls/defaults matching each other. Deduplicate or aggregate before "
        "joining."},
    [RULE_RT_FILTER_KEPT_ALL] = {"SP083", SEVERITY_INFO, "filter kept nearly every row",
        "This filter let through nearly every row it read: it costs a pass and reduces "
        "nothing.",
        "Fine if expected. Otherwise check the condition (a predicate that is always true, "
        "e.g. isnotnull on a non-null column) or whether the selective filter is applied "
        "elsewhere."},
    [RULE_RT_EMPTY_PARTITIONS] = {"SP084", SEVERITY_INFO, "mostly empty shuffle partitions",
        "Most reduce tasks of this shuffle read nothing: the partition count is far above "
        "what the data needs, and each empty task still costs scheduling.",
        "Lower spark.sql.shuffle.partitions or let AQE coalesce partitions "
        "(spark.sql.adaptive.coalescePartitions.enabled)."},
    [RULE_RT_COALESCED] = {"SP085", SEVERITY_INFO, "partitions coalesced by AQE",
        "AQE merged small shuffle partitions into fewer reduce tasks.",
        "Nothing to do; if it always coalesces from the same count, a lower "
        "spark.sql.shuffle.partitions saves the map side's work too."},
    [RULE_RT_BROADCAST_SIZE] = {"SP086", SEVERITY_WARNING, "large broadcast at run time",
        "The broadcast data was large: it was collected on the driver and copied to every "
        "executor.",
        "Check the hint or threshold that chose the broadcast (spark.sql.autoBroadcastJoinThreshold, "
        "AQE's spark.sql.adaptive.autoBroadcastJoinThreshold); prefer a shuffled join above a "
        "few hundred MB."},
    [RULE_RT_SCAN_PRUNING] = {"SP087", SEVERITY_INFO, "scan read more than pruning left",
        "The scan read many files or partitions, or pruning left most of them: the filter on "
        "the partition column did not reduce what was read.",
        "Filter on the partition column with plain comparisons (no functions or casts on it); "
        "check dynamic partition pruning and the table's layout (too many small files: "
        "compact them)."},
};

struct slice scan_info_op(const struct scan_info *sc)
{
    const struct plan_node *n = sc->node;
    struct slice named = plan_node_name(n).len ? plan_node_name(n) : plan_node_text(n);
    return sc->op_len ? slice_make(named.ptr + sc->op_at, sc->op_len) : slice_make(NULL, 0);
}

struct slice scan_info_table(const struct scan_info *sc)
{
    return sc->table_len ? slice_make(plan_node_text(sc->node).ptr + sc->table_at, sc->table_len)
                         : slice_make(NULL, 0);
}

const char *severity_name(enum severity s)
{
    return s == SEVERITY_WARNING ? "warning" : "info";
}

const struct rule *rule_by_id(const char *id)
{
    for (size_t i = 0; i < RULE_COUNT; i++)
        if (strcmp(analyze_rules[i].id, id) == 0)
            return &analyze_rules[i];
    return NULL;
}

/* ---- collecting findings ------------------------------------------------------------------- */

struct ctx {
    struct analysis *a;
    /* what the rules add: this thread's findings (in the order they were added), their
     * messages' arena, the summary counts they move, and the findings only counted */
    struct finding *findings;
    size_t n_findings, cap;
    struct arena *arena;
    struct summary *sum;
    size_t dropped;
    bool messages;               /* word each kept finding (false: --summary's counts only) */
    bool last_kept;              /* the last add() kept its finding */
    /* where rule_scan keeps a scan: at the end of sum->scans (growing it unless scans_fixed),
     * or, on a section's second thread (scans_down), in the first thread's array downwards
     * from scans_top, never below scans_floor (keep_scan) */
    bool scans_fixed, scans_down;
    struct scan_info *scans_base;
    size_t scans_top, scans_floor;
    /* logical joins whose children carry size estimates (cost mode), in input order, and
     * an index of the expression ids each one mentions (sorted by id) */
    const struct plan_node **logical_joins;
    size_t n_logical_joins, logical_joins_cap;
    struct id_join { uint64_t id; uint32_t join; } *join_ids;
    size_t n_join_ids;
    size_t per_rule[RULE_COUNT];
    bool oom;                    /* stop: memory ran out, or cancelled (then both are set) */
    bool cancelled;
    const atomic_int *cancel;    /* NULL: never cancelled */
    /* a needle absent from the document text, whose nodes all point into it: the rules
     * that look for it in each node are skipped (set by prepare_document) */
    bool no_statistics, no_more_fields;
    /* op_node_facts of every node, by plan_node_index (n_facts of them; 0: not found yet),
     * found by the pass over every node (collect_tables) for the rules and the count:
     * one name look-up a node.  Shared by both threads, each writing the nodes of its half
     * of that pass and reading them after it. */
    uint32_t *facts;
    size_t n_facts;
    size_t facts_bytes;  /* mapped by facts_alloc (0: calloc's) */
    const struct plan_node *nodes; /* the document's nodes (plan_node_index's base) */
    /* where each of text_marks first occurs in the document text, -1 when nowhere */
    long first_mark[4];
    /* per section, indexed by node->preorder: "at most one row", found when a rule asks
     * (ONE_ROW_*); both threads read and fill it, and a node's value is the same whoever
     * finds it */
    _Atomic unsigned char *one_row;
    size_t scratch_cap;
    /* the walk that finds it: nodes waiting for a child's value (this thread's own) */
    const struct plan_node **walk;
    size_t walk_cap;
    /* the fields of the scan read last (scan_fields_of): a filter over a scan reads them,
     * and the scan's rule, a node or two on, reads them again */
    struct scan_fields {
        const struct plan_node *node;  /* whose fields these are; NULL: none yet */
        /* node_field(node, ...) of "PushedFilters", "PartitionFilters" (found as
         * scan_fields_of says), "ReadSchema" and "Output" */
        struct slice pushed, pf, schema, output;
        /* node_list_count of pushed and pf, node_schema_field_count of schema, when counted
           as they were found (text_fields_get_counted); COUNT_NOT_KNOWN: not */
        long pushed_n, pf_n, schema_n;
        bool empty_lists_left_out;     /* a missing list means "[]" (scan_list) */
        /* a simple-mode line's ": " places (in_line), kept for a look a rule may need */
        bool in_line;
        struct text_fields line;
    } scan_memo;
};

/* True when the analysis must stop: out of memory, or the caller's cancel flag is set. */
static bool stopped(struct ctx *c)
{
    if (!c->oom && c->cancel && atomic_load_explicit(c->cancel, memory_order_relaxed))
        c->oom = c->cancelled = true;
    return c->oom;
}

/* Every CANCEL_EVERY-th node of a pass: time to look at the cancel flag. */
static bool stop_at(struct ctx *c, uint32_t i)
{
    return (i % CANCEL_EVERY) == 0 && stopped(c);
}

#define CLIP 100  /* plan text quoted in a message is cut to this many bytes */

static int clip_len(struct slice s)
{
    return (int)(s.len > CLIP ? CLIP : s.len);
}

static const char *clip_tail(struct slice s)
{
    return s.len > CLIP ? "..." : "";
}

/* Would a finding of this rule be kept with its message?  False beyond the rule's cap (it
 * is only counted) and when the caller asked for no messages (--summary): then a rule skips
 * the work that only words its message, and add() counts the finding the same. */
static bool message_wanted(const struct ctx *c, enum rule_id rule)
{
    return c->messages && c->per_rule[rule] < MAX_PER_RULE;
}

/* A new finding at the end of c's list; NULL (and c->oom) when memory ran out. */
static struct finding *push_finding(struct ctx *c)
{
    if (c->n_findings == c->cap) {
        size_t ncap = c->cap ? c->cap * 2 : 64;
        struct finding *nf = realloc(c->findings, ncap * sizeof *nf);
        if (!nf) {
            c->oom = true;
            return NULL;
        }
        c->findings = nf;
        c->cap = ncap;
    }
    return &c->findings[c->n_findings++];
}

__attribute__((format(printf, 4, 5)))
static void add(struct ctx *c, enum rule_id rule, const struct plan_node *n, const char *fmt, ...)
{
    c->last_kept = false;
    if (c->oom)
        return;
    if (c->per_rule[rule]++ >= MAX_PER_RULE) {
        c->dropped++;
        return;
    }
    struct finding *f = push_finding(c);
    if (!f)
        return;
    const char *msg = "";
    if (c->messages) {
        char buf[1024];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(buf, sizeof buf, fmt, ap);
        va_end(ap);
        msg = arena_strdup(c->arena, buf);
        if (!msg) {
            c->n_findings--;
            c->oom = true;
            return;
        }
    }
    f->rule = rule;
    f->severity = analyze_rules[rule].severity;
    f->node = n;
    f->line = n ? n->line : 0;
    f->message = msg;
    c->last_kept = true;
}

/* Lower the severity of the finding just added (a case that is usually fine); nothing when
 * that finding was only counted. */
static void soften_last(struct ctx *c, enum rule_id rule)
{
    if (c->last_kept && c->n_findings && c->findings[c->n_findings - 1].rule == rule)
        c->findings[c->n_findings - 1].severity = SEVERITY_INFO;
}

/* The node's facts (op_node_facts) when the node pass found them, else 0. */
static uint32_t facts_of(const struct ctx *c, const struct plan_node *n)
{
    /* plan_node_index(n), where n is in the document's nodes */
    size_t ix = (size_t)((uintptr_t)n - (uintptr_t)c->nodes) / sizeof *n;
    return n >= c->nodes && ix < c->n_facts ? c->facts[ix] : 0;
}

/* node_role(n), read from the node's facts when they are known. */
static enum catalog_role role_of(const struct ctx *c, const struct plan_node *n)
{
    uint32_t f = facts_of(c, n);
    if (!f)
        return node_role(n);
    const struct catalog_entry *e = op_facts_entry(f);
    return e ? e->role : CAT_OTHER;
}

/* node_is_wrapper(n) with role_of. */
static bool is_wrapper(const struct ctx *c, const struct plan_node *n)
{
    if (node_is_label(n))
        return true;
    switch (role_of(c, n)) {
    case CAT_CODEGEN: case CAT_QUERY_STAGE: case CAT_SHUFFLE_READ: case CAT_TRANSITION:
    case CAT_AQE:
        return true;
    default:
        return false;
    }
}

/* ---- which sections ran ------------------------------------------------------------------- */

static bool is_executed_kind(enum section_kind k)
{
    return k == SECTION_PHYSICAL || k == SECTION_SUBQUERY;
}

/* The sections whose nodes are counted for a plan: physical + subqueries; else the biggest
 * codegen subtree; else the last logical section.  doc_has_exec: the document prints a
 * physical plan somewhere; then an EXPLAIN CODEGEN output only repeats it (its subtrees are
 * the physical plan's codegen stages) and is neither counted nor linted again.
 * Found in one pass over the plan's sections (plan_counted_init), then asked per section:
 * a plan may hold tens of thousands of subquery sections. */
struct plan_counted {
    bool has_exec;
    const struct plan_section *biggest_codegen, *last_logical;
    bool doc_has_exec;
};

static void plan_counted_init(struct plan_counted *pc, const struct plan *p, bool doc_has_exec)
{
    memset(pc, 0, sizeof *pc);
    pc->doc_has_exec = doc_has_exec;
    for (const struct plan_section *t = p->first_section; t; t = t->next) {
        if (is_executed_kind(t->kind))
            pc->has_exec = true;
        else if (t->kind == SECTION_CODEGEN) {
            if (!pc->biggest_codegen || t->n_nodes > pc->biggest_codegen->n_nodes)
                pc->biggest_codegen = t;
        } else
            pc->last_logical = t;
    }
}

static bool section_counts(const struct plan_counted *pc, const struct plan_section *s)
{
    if (pc->has_exec)
        return is_executed_kind(s->kind);
    if (pc->biggest_codegen)
        return !pc->doc_has_exec && s == pc->biggest_codegen;
    return s == pc->last_logical;
}

/* Does any plan of the document print a physical plan (or a formatted subquery)? */
static bool document_has_exec(const struct document *doc)
{
    for (const struct plan *p = doc->first_plan; p; p = p->next)
        for (const struct plan_section *s = p->first_section; s; s = s->next)
            if (is_executed_kind(s->kind))
                return true;
    return false;
}

/* Sections whose text the text rules (statistics, truncated lists) read: every section but
 * codegen subtrees, which repeat the physical plan, unless one is what the plan counts. */
static bool section_read(const struct plan_counted *pc, const struct plan_section *s)
{
    return s->kind != SECTION_CODEGEN || section_counts(pc, s);
}

static bool is_shadowed_initial(const struct plan_node *n)
{
    return node_is_shadowed_initial(n);
}

/* ---- "at most one row" ---------------------------------------------------------------------- */

enum { ONE_ROW_UNKNOWN, ONE_ROW_NO, ONE_ROW_YES };

/* A child's value, when known; else *missing names it (the first one missing). */
static bool child_one(const struct ctx *c, const struct plan_node *ch, const struct plan_node **missing)
{
    unsigned char v =
        atomic_load_explicit(&c->one_row[plan_node_preorder(ch)], memory_order_relaxed);
    if (v == ONE_ROW_UNKNOWN && !*missing)
        *missing = ch;
    return v == ONE_ROW_YES;
}

/* Does n produce at most one row?  Reads the values of the children it needs only; when one
 * of them is not known yet, *missing names it and the answer is to be asked again. */
static bool compute_one_row(const struct ctx *c, const struct plan_node *n,
                            const struct plan_node **missing)
{
    const struct catalog_entry *e = node_entry(n);
    const struct plan_node *ch = plan_node_first_child(n);
    if (node_is_label(n))
        return ch && child_one(c, ch, missing);
    if (!e)
        return false;
    if (strcmp(e->name, "Scan OneRowRelation") == 0 || strcmp(e->name, "OneRowRelation") == 0)
        return true;
    switch (e->role) {
    case CAT_AGGREGATE:
        if (node_aggregate_has_keys(n) == 0 && !node_aggregate_is_partial(n))
            return true;
        return false;
    case CAT_JOIN:
        for (const struct plan_node *k = plan_node_first_child(n); k; k = plan_node_next_sibling(k))
            if (!(k->flags & NODE_INNER) && !child_one(c, k, missing))
                return false;
        return ch != NULL;
    case CAT_CODEGEN: case CAT_QUERY_STAGE: case CAT_SHUFFLE_READ: case CAT_TRANSITION:
    case CAT_AQE: case CAT_PROJECT: case CAT_FILTER: case CAT_SORT: case CAT_SHUFFLE:
    case CAT_BROADCAST: case CAT_LIMIT: case CAT_WINDOW: case CAT_SUBQUERY: case CAT_OTHER:
        return plan_node_n_children(n) == 1 && child_one(c, ch, missing);
    default:
        return false;
    }
}

/* A fresh "one row" table for the section (every value unknown).  A big section's is a new
 * calloc: its zero pages are only made when a rule asks about a node there (a few nodes in
 * most plans), where setting every byte wrote a megabyte of new memory a million nodes. */
#define ONE_ROW_CALLOC (64u * 1024u)
_Static_assert(ONE_ROW_UNKNOWN == 0, "a calloc'd table is every value unknown");

static bool one_row_room(struct ctx *c, const struct plan_section *s)
{
    if (s->n_nodes >= ONE_ROW_CALLOC) {
        free((void *)c->one_row);
        c->one_row = calloc(s->n_nodes, 1);
        c->scratch_cap = c->one_row ? s->n_nodes : 0;
        if (!c->one_row)
            c->oom = true;
        return c->one_row != NULL;
    }
    if (s->n_nodes > c->scratch_cap) {
        _Atomic unsigned char *p = realloc((void *)c->one_row, s->n_nodes);
        if (!p) {
            c->oom = true;
            return false;
        }
        c->one_row = p;
        c->scratch_cap = s->n_nodes;
    }
    for (size_t i = 0; i < s->n_nodes; i++) /* bound: the section */
        atomic_init(&c->one_row[i], ONE_ROW_UNKNOWN);
    return true;
}

/* Does n produce at most one row (a global aggregate, or what passes one through)?  Found
 * when a rule asks, for n and the nodes below it it depends on, and kept: most plans ask
 * about a few nodes only (the input of a single-partition shuffle, the sides of a nested
 * loop join), and the aggregates' keys are read from their details only then.  A walk with
 * a stack of its own (no recursion on depth); each node's value is found once. */
static bool one_row_of(struct ctx *c, const struct plan_node *n)
{
    unsigned char v =
        atomic_load_explicit(&c->one_row[plan_node_preorder(n)], memory_order_relaxed);
    if (v != ONE_ROW_UNKNOWN)
        return v == ONE_ROW_YES;
    size_t depth = 0;
    const struct plan_node *at = n;
    for (;;) { /* each round finds one node's value or goes one node down: bounded by 2x the subtree */
        const struct plan_node *missing = NULL;
        bool one = compute_one_row(c, at, &missing);
        if (missing) {
            if (depth == c->walk_cap) {
                size_t ncap = c->walk_cap ? c->walk_cap * 2 : 64;
                const struct plan_node **nw = realloc(c->walk, ncap * sizeof *nw);
                if (!nw) {
                    c->oom = true;
                    return false;
                }
                c->walk = nw;
                c->walk_cap = ncap;
            }
            c->walk[depth++] = at;
            at = missing;
            continue;
        }
        atomic_store_explicit(&c->one_row[plan_node_preorder(at)], one ? ONE_ROW_YES : ONE_ROW_NO,
                              memory_order_relaxed);
        if (!depth)
            return one;
        at = c->walk[--depth];
    }
}

/* ---- helpers for messages ------------------------------------------------------------------- */

/* The operator a shuffle or broadcast feeds: up through wrappers and sorts. */
static const struct plan_node *consumer_of(const struct plan_node *n)
{
    const struct plan_node *p = plan_node_parent(n);
    for (int guard = 0; p && guard < 16; guard++) {  /* wrapper chains are short */
        enum catalog_role r = node_role(p);
        if (!node_is_wrapper(p) && r != CAT_SORT)
            return p;
        p = plan_node_parent(p);
    }
    return p;
}

static struct slice short_name(const struct plan_node *n)
{
    struct slice name = plan_node_name(n).len ? plan_node_name(n) : plan_node_text(n);
    struct slice op = catalog_operator_name(name);
    return op.len ? op : name;
}

/* First child that is a real (not inner) child, through wrappers (node_down_through_wrappers,
 * with the roles the node pass found). */
static const struct plan_node *input_of(const struct ctx *c, const struct plan_node *n)
{
    const struct plan_node *ch = plan_node_first_child(n);
    while (ch && (ch->flags & NODE_INNER))
        ch = plan_node_next_sibling(ch);
    while (ch && is_wrapper(c, ch)) /* bound: the wrapper chain */
        ch = plan_node_first_child(ch);
    return ch;
}

/* Size of a join side: statistics on the first node down the side that has them, through
 * wrappers, sorts and exchanges (runtime sizes sit on AQE query stages). */
static bool side_size(const struct plan_node *side, double *bytes, bool *runtime)
{
    const struct plan_node *n = side;
    for (int guard = 0; n && guard < 10; guard++) {  /* short chain of wrappers */
        struct plan_stats st;
        if (node_stats(n, &st) && st.has_size) {
            *bytes = st.size_bytes;
            *runtime = node_role(n) == CAT_QUERY_STAGE ||
                       slice_find_in(plan_node_text(n), "isRuntime=true", 0) >= 0;
            return true;
        }
        enum catalog_role r = node_role(n);
        if (!node_is_wrapper(n) && r != CAT_SORT && r != CAT_SHUFFLE && r != CAT_BROADCAST &&
            r != CAT_PROJECT)
            return false;
        n = plan_node_first_child(n);
    }
    return false;
}

static const struct plan_node *nth_real_child(const struct plan_node *n, int k)
{
    for (const struct plan_node *ch = plan_node_first_child(n); ch;
         ch = plan_node_next_sibling(ch)) {
        if (ch->flags & NODE_INNER)
            continue;
        if (k-- == 0)
            return ch;
    }
    return NULL;
}

/* Cost mode: the logical Join a physical join was planned from — the one whose text mentions
 * every expression id of the physical join (its keys and condition). */
static const struct plan_node *logical_join_of(const struct ctx *c, const struct plan_node *n)
{
    struct exprid_ref refs[32];
    size_t k = exprid_node_refs(n, refs, 32);
    if (k == 0 || k > 32 || refs[0].normalized || !c->n_join_ids)
        return NULL;
    /* Candidates: the logical joins mentioning the physical join's first id. */
    size_t lo = 0, hi = c->n_join_ids;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (c->join_ids[mid].id < refs[0].id)
            lo = mid + 1;
        else
            hi = mid;
    }
    const struct plan *plan = n->section->plan;
    for (size_t j = lo; j < c->n_join_ids && c->join_ids[j].id == refs[0].id; j++) {
        /* Bounded by the joins mentioning one id: a few in real plans. */
        const struct plan_node *lj = c->logical_joins[c->join_ids[j].join];
        if (lj->section->plan != plan)
            continue;
        bool all = true;
        for (size_t i = 1; i < k && all; i++)
            all = !refs[i].normalized && exprid_mentions(plan_node_text(lj), refs[i].id);
        if (all)
            return lj;
    }
    return NULL;
}

static int cmp_id_join(const void *x, const void *y)
{
    const struct id_join *a = x, *b = y;
    if (a->id != b->id)
        return a->id < b->id ? -1 : 1;
    return a->join < b->join ? -1 : a->join > b->join;
}

/* The id index of the logical joins: at most 16 ids each (keys and condition). */
static void index_join_ids(struct ctx *c)
{
    if (!c->n_logical_joins)
        return;
    c->join_ids = malloc(c->n_logical_joins * 16 * sizeof *c->join_ids);
    if (!c->join_ids) {
        c->oom = true;
        return;
    }
    for (size_t j = 0; j < c->n_logical_joins; j++) {
        struct exprid_ref refs[16];
        size_t k = exprid_scan(plan_node_text(c->logical_joins[j]), refs, 16);
        for (size_t i = 0; i < k && i < 16; i++)
            if (!refs[i].normalized)
                c->join_ids[c->n_join_ids++] = (struct id_join){refs[i].id, (uint32_t)j};
    }
    qsort(c->join_ids, c->n_join_ids, sizeof *c->join_ids, cmp_id_join);
}

/* Size of side k of a join: measured or estimated on the physical side, else the estimate of
 * the logical join it came from. */
static bool join_side_size(const struct ctx *c, const struct plan_node *n, int k, double *bytes,
                           bool *runtime)
{
    if (c->no_statistics)
        return false; /* no estimate anywhere: node_stats would say no for every node */
    const struct plan_node *side = nth_real_child(n, k);
    if (side && side_size(side, bytes, runtime))
        return true;
    const struct plan_node *lj = logical_join_of(c, n);
    const struct plan_node *lside = lj ? nth_real_child(lj, k) : NULL;
    struct plan_stats st;
    if (lside && node_stats(lside, &st) && st.has_size) {
        *bytes = st.size_bytes;
        *runtime = false;
        return true;
    }
    return false;
}

/* ---- rules on executed nodes ------------------------------------------------------------------ */

/* A single-partition shuffle whose input has few rows (a global aggregate, a limit): each
 * task sends a partial result, so one task receiving them all is fine. */
static bool single_partition_bounded(struct ctx *c, const struct plan_node *n)
{
    const struct plan_node *in = input_of(c, n);
    return in && (one_row_of(c, in) ||
                  (role_of(c, in) == CAT_AGGREGATE && node_aggregate_has_keys(in) == 0) ||
                  role_of(c, in) == CAT_LIMIT ||
                  (role_of(c, in) == CAT_WINDOW &&
                   slice_find_in(short_name(in), "WindowGroupLimit", 0) >= 0));
}

/* Where the shuffle comes from: its origin, else that of the map stage wrapping it. */
static struct slice shuffle_origin(const struct plan_node *n)
{
    struct slice origin = node_shuffle_origin(n);
    /* Photon prints the origin on the map stage that wraps its shuffle sink. */
    if (!origin.len && plan_node_parent(n) && node_role(plan_node_parent(n)) == CAT_QUERY_STAGE)
        origin = node_shuffle_origin(plan_node_parent(n));
    return origin;
}

/* SP001's message for a shuffle of this kind. */
static void add_shuffle(struct ctx *c, const struct plan_node *n, enum partitioning_kind kind,
                        struct slice part, struct slice origin, const struct plan_node *consumer,
                        bool bounded)
{
    if (!message_wanted(c, RULE_SHUFFLE)) {
        add(c, RULE_SHUFFLE, n, "%s", "");  /* counted alike, nothing to word */
        return;
    }
    struct slice keys = partitioning_keys(part);
    char why[200] = "";
    if (origin.len && slice_starts_with(origin, "REPARTITION"))
        snprintf(why, sizeof why, "; asked for by the query (%.*s)", (int)origin.len, origin.ptr);
    else if (origin.len && slice_starts_with(origin, "REBALANCE"))
        snprintf(why, sizeof why, "; a REBALANCE hint");
    else if (consumer) {
        struct slice cn = short_name(consumer);
        snprintf(why, sizeof why, "; needed by %.*s on line %u", (int)cn.len, cn.ptr, consumer->line);
    }
    switch (kind) {
    case PART_HASH:
        add(c, RULE_SHUFFLE, n, "shuffle by hash of %.*s%s%s", clip_len(keys), keys.ptr,
            clip_tail(keys), why);
        break;
    case PART_RANGE:
        add(c, RULE_SHUFFLE, n, "shuffle by range of %.*s%s (a global sort)%s", clip_len(keys),
            keys.ptr, clip_tail(keys), why);
        break;
    case PART_ROUND_ROBIN:
        add(c, RULE_SHUFFLE, n, "round-robin shuffle: %.*s%s", clip_len(part), part.ptr, why);
        break;
    case PART_SINGLE:
        add(c, RULE_SHUFFLE, n, "shuffle into a single partition%s%s", why,
            bounded ? " (few rows: each task sends a partial result)" : "");
        break;
    default: {
        /* Simplified trees print the keys as a list: "Exchange [a,b] #1". */
        long lb = slice_find_in(plan_node_text(n), "[", 0);
        struct slice list =
            lb >= 0 ? slice_make(plan_node_text(n).ptr + lb, plan_node_text(n).len - (size_t)lb)
                    : slice_make(NULL, 0);
        if (list.len)
            add(c, RULE_SHUFFLE, n, "shuffle on %.*s%s%s", clip_len(list), list.ptr,
                clip_tail(list), why);
        else
            add(c, RULE_SHUFFLE, n, "shuffle%s", why);
    }
    }
}

/* executor_broadcast: node_is_executor_broadcast(n) when the caller knows it already (1 or
 * 0), else -1. */
static void rule_exchange(struct ctx *c, const struct plan_node *n, int executor_broadcast)
{
    if (executor_broadcast < 0)
        executor_broadcast = node_is_executor_broadcast(n);
    if (executor_broadcast) {
        /* Photon's executor-side broadcast: a single-partition shuffle every task reads. */
        if (!message_wanted(c, RULE_BROADCAST)) {
            add(c, RULE_BROADCAST, n, "%s", "");
            return;
        }
        const struct plan_node *consumer = consumer_of(n);
        struct slice cn = consumer ? short_name(consumer) : slice_cstr("the join");
        add(c, RULE_BROADCAST, n, "executor-side broadcast (EXECUTOR_BROADCAST) for %.*s%s",
            (int)cn.len, cn.ptr, consumer ? "" : "");
        return;
    }
    /* The partitioning itself words SP001 only; the count needs its kind alone. */
    bool wanted = message_wanted(c, RULE_SHUFFLE);
    enum partitioning_kind kind;
    struct slice part = wanted ? node_partitioning(n, &kind) : slice_make(NULL, 0);
    if (!wanted)
        kind = node_partitioning_kind(n);
    c->sum->shuffles[kind]++;  /* by kind; the total is count_section's */
    bool single = kind == PART_SINGLE;
    bool bounded = single && single_partition_bounded(c, n);
    /* The origin and the consumer word SP001 and name what SP002 is about. */
    struct slice origin = wanted || (single && !bounded) ? shuffle_origin(n) : slice_make(NULL, 0);
    const struct plan_node *consumer = wanted || (single && !bounded) ? consumer_of(n) : NULL;
    add_shuffle(c, n, kind, part, origin, consumer, bounded);
    if (!single || bounded)
        return;
    const char *what = "";
    const struct plan_node *up = consumer;
    enum catalog_role ur = up ? node_role(up) : CAT_OTHER;
    if (ur == CAT_WINDOW)
        what = "a window without partitionBy";
    else if (ur == CAT_SORT)
        what = "a global sort";
    else if (ur == CAT_LIMIT)
        what = "a limit";
    else if (origin.len && slice_starts_with(origin, "REPARTITION"))
        what = "repartition(1)";
    if (*what)
        add(c, RULE_SINGLE_PARTITION, n, "one task receives every row: %s", what);
    else
        add(c, RULE_SINGLE_PARTITION, n, "one task receives every row");
}

static void rule_broadcast(struct ctx *c, const struct plan_node *n)
{
    if (!message_wanted(c, RULE_BROADCAST)) {
        add(c, RULE_BROADCAST, n, "%s", "");
        return;
    }
    struct slice mode = node_field(n, "Arguments");
    if (!mode.len) {
        long sp = slice_find_in(plan_node_text(n), " ", 0);
        mode = sp >= 0 ? slice_trim(slice_make(plan_node_text(n).ptr + sp,
                                               plan_node_text(n).len - (size_t)sp))
                       : slice_make(NULL, 0);
    }
    const struct plan_node *consumer = consumer_of(n);
    if (consumer) {
        struct slice cn = short_name(consumer);
        add(c, RULE_BROADCAST, n, "broadcast for %.*s on line %u%s%.*s%s", (int)cn.len, cn.ptr,
            consumer->line, mode.len ? ": " : "", clip_len(mode), mode.ptr, clip_tail(mode));
    } else
        add(c, RULE_BROADCAST, n, "broadcast%s%.*s%s", mode.len ? ": " : "", clip_len(mode),
            mode.ptr, clip_tail(mode));
}

static struct slice join_condition(const struct plan_node *n)
{
    struct slice cond = node_field(n, "Join condition");
    if (cond.len)
        return slice_eq_cstr(slice_trim(cond), "None") ? slice_make(NULL, 0) : cond;
    if (plan_node_details_text(n).len || n->id >= 0)
        return slice_make(NULL, 0);  /* formatted mode: the details would have it */
    /* Simple mode: the text after the join type ("BuildRight, Inner, (a#1 < b#2)"). */
    struct slice type = node_join_type(n);
    if (!type.len)
        return slice_make(NULL, 0);
    size_t after = (size_t)(type.ptr - plan_node_text(n).ptr) + type.len;
    if (after + 2 <= plan_node_text(n).len && plan_node_text(n).ptr[after] == ',' &&
        plan_node_text(n).ptr[after + 1] == ' ')
        return slice_trim(
            slice_make(plan_node_text(n).ptr + after + 2, plan_node_text(n).len - after - 2));
    return slice_make(NULL, 0);
}

/* The join's name and type are read where a rule needs them (a message, a sort-merge join
 * with sizes): most joins of a plan without statistics need neither, and reading the type
 * from a formatted join's details block was the costliest part of the rule. */
static void rule_join(struct ctx *c, const struct plan_node *n, const struct catalog_entry *e)
{
    if (slice_find_in(plan_node_text(n), "skew=true", 0) >= 0) {
        struct slice name = short_name(n);
        add(c, RULE_SKEW_JOIN, n, "%.*s split skewed partitions", (int)name.len, name.ptr);
    }

    if (e->join == JOIN_BROADCAST_NESTED_LOOP || e->join == JOIN_CARTESIAN) {
        struct slice type = node_join_type(n), name = short_name(n);
        enum rule_id rule = e->join == JOIN_CARTESIAN ? RULE_CARTESIAN : RULE_NESTED_LOOP_JOIN;
        struct slice cond = join_condition(n);
        const struct plan_node *l = nth_real_child(n, 0), *r = nth_real_child(n, 1);
        bool tiny = (l && one_row_of(c, l)) || (r && one_row_of(c, r));
        char what[160];
        if (cond.len)
            snprintf(what, sizeof what, "condition %.*s%s has no equality", clip_len(cond),
                     cond.ptr, clip_tail(cond));
        else
            snprintf(what, sizeof what, "no join condition");
        add(c, rule, n, "%.*s%s%.*s: %s%s", (int)name.len, name.ptr, type.len ? " " : "",
            (int)type.len, type.ptr, what,
            tiny ? "; one side is a single row (a global aggregate), so it is cheap here" : "");
        if (tiny)
            soften_last(c, rule);
    }

    /* Join sides measured or estimated. */
    if (e->join == JOIN_SORT_MERGE) {
        for (int k = 0; k < 2; k++) {
            double bytes;
            bool runtime;
            if (!join_side_size(c, n, k, &bytes, &runtime))
                continue;
            enum build_side side = k == 0 ? BUILD_LEFT : BUILD_RIGHT;
            if (bytes < BROADCAST_THRESHOLD && join_side_broadcastable(node_join_type(n), side)) {
                char sz[32];
                add(c, RULE_SMJ_SMALL_SIDE, n,
                    "sort-merge join whose %s side is %s (%s), under the 10 MB broadcast threshold",
                    k == 0 ? "left" : "right", node_format_bytes(bytes, sz, sizeof sz),
                    runtime ? "measured at run time" : "estimated");
                break;
            }
        }
    }
    if (e->join == JOIN_BROADCAST_HASH || e->join == JOIN_BROADCAST_NESTED_LOOP) {
        enum build_side b = node_build_side(n);
        double bytes;
        bool runtime;
        if (b != BUILD_UNKNOWN && join_side_size(c, n, b == BUILD_LEFT ? 0 : 1, &bytes, &runtime) &&
            bytes >= LARGE_BROADCAST &&
            bytes < UNKNOWN_SIZE) {
            char sz[32];
            add(c, RULE_BROADCAST_LARGE, n, "the broadcast (%s) side is %s (%s)%s",
                b == BUILD_LEFT ? "left" : "right", node_format_bytes(bytes, sz, sizeof sz),
                runtime ? "measured at run time" : "estimated",
                bytes >= 1024.0 * MIB ? ": above spark.driver.maxResultSize (1g by default)" : "");
        }
    }
}

/* A filter's condition: "Condition : ..." (formatted), "Arguments: ..." (formatted RAPIDS),
 * else the node string after the name (simple mode). */
static struct slice filter_condition(const struct plan_node *n)
{
    struct slice cond = node_field(n, "Condition");
    if (!cond.len)
        cond = node_field(n, "Arguments");
    if (!cond.len && !n->n_details) {
        long sp = slice_find_in(plan_node_text(n), " ", 0);
        cond = sp >= 0 ? slice_trim(slice_make(plan_node_text(n).ptr + sp,
                                               plan_node_text(n).len - (size_t)sp))
                       : slice_make(NULL, 0);
    }
    return cond;
}

/* Only null checks ("isnotnull(a#1) AND isnotnull(b#2)"): the optimizer inferred them from
 * join keys; not worth a warning when they are not pushed. */
static bool only_null_checks(struct slice cond)
{
    size_t n_checks = 0;
    for (size_t from = 0;;) {  /* each round moves past one isnotnull( */
        long at = slice_find_in(cond, "isnotnull(", from);
        if (at < 0)
            break;
        n_checks++;
        from = (size_t)at + 1;
    }
    if (!n_checks)
        return false;
    /* Anything that compares or calls another function is a real predicate. */
    static const char *const real[] = {" = ", " > ", " < ", " >= ", " <= ", " IN ", " INSET ",
                                       " LIKE ", "StartsWith", "Contains", " <=> "};
    for (size_t i = 0; i < sizeof real / sizeof real[0]; i++)
        if (slice_find_in(cond, real[i], 0) >= 0)
            return false;
    return true;
}

#if defined(__x86_64__) && defined(__GNUC__)
#define MARKS_AVX2 1
static bool marks_avx2 = true; /* analyze_set_marks_avx2: tests try the SSE2 steps too */

/* holds()'s steps with AVX2: 32 starts a step, the needle's first, middle and last bytes
 * tested at each; from the last start back 32 for the starts a step would pass over. */
__attribute__((target("avx2"))) static bool holds_avx2(struct slice s, const char *needle,
                                                       size_t n)
{
    size_t last = s.len - n, mid = n / 2; /* the last start; s.len >= n + 31 */
    const __m256i b0 = _mm256_set1_epi8(needle[0]), bm = _mm256_set1_epi8(needle[mid]);
    const __m256i bl = _mm256_set1_epi8(needle[n - 1]);
    for (size_t i = 0;; i += 32) { /* bound: 32 starts a step, the last step at last - 31 */
        if (i > last - 31)
            i = last - 31;
        const char *q = s.ptr + i;
        __m256i m = _mm256_and_si256(
            _mm256_and_si256(_mm256_cmpeq_epi8(_mm256_loadu_si256((const __m256i *)q), b0),
                             _mm256_cmpeq_epi8(_mm256_loadu_si256((const __m256i *)(q + mid)), bm)),
            _mm256_cmpeq_epi8(_mm256_loadu_si256((const __m256i *)(q + n - 1)), bl));
        for (uint32_t bits = (uint32_t)_mm256_movemask_epi8(m); bits; bits &= bits - 1)
            if (memcmp(q + __builtin_ctz(bits), needle, n) == 0)
                return true;
        if (i == last - 31)
            return false;
    }
}
#endif

/* slice_find_in(s, needle, 0) >= 0 for a needle of n >= 3 bytes, cheaper on the few hundred
 * bytes of a node's text or details block: with AVX2, 32 starts a step pass three byte
 * tests before a start is compared whole (rule_scan asks each scan for two needles that
 * most scans lack). */
static bool holds(struct slice s, const char *needle, size_t n)
{
    if (s.len < n)
        return false;
#ifdef MARKS_AVX2
    if (s.len >= n + 31 && marks_avx2 && __builtin_cpu_supports("avx2"))
        return holds_avx2(s, needle, n);
#endif
    return slice_find_n(s, needle, n, 0) >= 0;
}

#define PF_KEY "PartitionFilters"
#define PF_KEY_LEN (sizeof PF_KEY - 1)

/* A scan's list field v: formatted mode leaves empty lists out of a file scan's details, so
 * there (a block that has a ReadSchema) a missing PushedFilters means "[]". */
static struct slice scan_list(const struct scan_fields *f, struct slice v)
{
    return !v.ptr && f->empty_lists_left_out ? slice_cstr("[]") : v;
}

/* The fields a scan's rule and a filter over it read, found once for both: the details
 * block split once for its four keys (node_field split it up to each key, and a filter
 * split it from the start again for PushedFilters), or a simple-mode line's ": " places
 * found once.  Each is the value node_field (partition_filters) gives. */
static const struct scan_fields *scan_fields_of(struct ctx *c, const struct plan_node *n)
{
    struct scan_fields *f = &c->scan_memo;
    if (f->node == n)
        return f;
    f->node = n;
    f->empty_lists_left_out = false;
    f->in_line = false;
    f->pushed_n = f->pf_n = f->schema_n = COUNT_NOT_KNOWN;
    if (!n->n_details && !plan_node_details_text(n).len) {
        /* A scan without a details block (simple mode) has its fields in its line, a few
         * hundred bytes that node_field would read through once for each of four keys: its
         * ": " places are found once instead (the same answers). */
        struct text_fields *tf = &f->line;
        text_fields_init(tf, plan_node_text(n));
        f->in_line = true;
        long unused;
        f->pushed = text_fields_get_counted(tf, "PushedFilters", sizeof "PushedFilters" - 1,
                                            &f->pushed_n, &unused);
        f->pf = text_fields_get_counted(tf, PF_KEY, PF_KEY_LEN, &f->pf_n, &unused);
        f->schema = text_fields_get_counted(tf, "ReadSchema", sizeof "ReadSchema" - 1, &unused,
                                            &f->schema_n);
        f->output = text_fields_get(tf, "Output");
        return f;
    }
    static const char *const keys[] = {"PushedFilters", PF_KEY, "ReadSchema", "Output"};
    static const size_t key_lens[] = {sizeof "PushedFilters" - 1, PF_KEY_LEN,
                                      sizeof "ReadSchema" - 1, sizeof "Output" - 1};
    struct slice v[4];
    unsigned in_block = node_detail_fields_n(n, 4, keys, key_lens, v);
    f->pushed = in_block & 1 ? v[0] : node_field_outside(n, keys[0]);
    /* node_field(n, "PartitionFilters").  In a formatted plan a scan has that field in its
     * block only when its table is partitioned; when the block has none, node_field goes on
     * to look for "PartitionFilters: " through the node's text and the whole block (the key
     * may sit inside another field's value, and is then found there): about 530
     * instructions a scan.  Neither search can find a key that is not in its text at all,
     * which holds() tells for less. */
    if (in_block & 2)
        f->pf = v[1];
    else if (!n->n_details || holds(plan_node_text(n), PF_KEY, PF_KEY_LEN) ||
             holds(plan_node_details_text(n), PF_KEY, PF_KEY_LEN))
        f->pf = node_field_outside(n, PF_KEY);
    else
        f->pf = slice_make(NULL, 0);
    f->schema = in_block & 4 ? v[2] : node_field_outside(n, keys[2]);
    f->output = in_block & 8 ? v[3] : node_field_outside(n, keys[3]);
    f->empty_lists_left_out = n->n_details && (in_block & 4);
    return f;
}

/* Can node_field(scan, "Data Cols") find a value?  Without one hive_relation_columns is -1.
 * A simple-mode line's fields are its ": " places (text_fields_get is node_field there);
 * elsewhere it may. */
static bool may_have_data_cols(const struct scan_fields *f)
{
    return !f->in_line || text_fields_get(&f->line, "Data Cols").len != 0;
}

/* node_list_count(v) (node_schema_field_count when schema) of a scan's value v, which may be
 * the one the scan's fields found (found), counted then (counted). */
static long scan_count(struct slice v, struct slice found, long counted, bool schema)
{
    if (counted != COUNT_NOT_KNOWN && v.ptr == found.ptr && v.len == found.len)
        return counted;
    return schema ? node_schema_field_count(v) : node_list_count(v);
}

static void rule_filter_over_scan(struct ctx *c, const struct plan_node *n)
{
    const struct plan_node *scan = input_of(c, n);
    if (!scan || role_of(c, scan) != CAT_SCAN)
        return;
    const struct scan_fields *sf = scan_fields_of(c, scan);
    struct slice pushed = scan_list(sf, sf->pushed);
    if (!pushed.ptr)
        return;
    if (!node_list_is_empty(pushed))
        return;
    struct slice cond = filter_condition(n);
    /* A condition entirely on partition columns is served by PartitionFilters. */
    struct slice pf = sf->pf;
    if (pf.len && !node_list_is_empty(pf)) {
        struct exprid_ref refs[32];
        size_t k = exprid_scan(cond, refs, 32);
        bool all_partition = k > 0 && k <= 32;
        for (size_t i = 0; all_partition && i < k; i++)
            all_partition = !refs[i].normalized ? exprid_mentions(pf, refs[i].id)
                                                : slice_find_in(pf, "#", 0) >= 0;
        if (all_partition)
            return;
    }
    struct slice table = node_table_name(scan);
    bool null_checks = only_null_checks(cond);
    const char *why = "";
    if (null_checks)
        why = " (only null checks: cheap)";
    else if (slice_find_in(cond, "Subquery", 0) >= 0)
        why = ": a subquery's result is not known when the scan is planned";
    else if (slice_find_in(cond, "pythonUDF", 0) >= 0)
        why = ": a UDF cannot be pushed into the reader";
    else if (slice_find_in(cond, "cast(", 0) >= 0)
        why = ": casting the column blocks pushdown; compare with a value of the column's type";
    else if (slice_find_in(cond, "(", 0) >= 0)
        why = ": a function applied to the column blocks pushdown";
    add(c, RULE_FILTER_NOT_PUSHED, n, "Filter %.*s%s over a scan%s%.*s with no PushedFilters%s",
        clip_len(cond), cond.ptr, clip_tail(cond), table.len ? " of " : "", (int)table.len,
        table.ptr, why);
    if (null_checks)
        soften_last(c, RULE_FILTER_NOT_PUSHED);
}

/* Column counts of tables, from logical relations and Hive relation text. */
struct table_cols {
    struct slice table;
    long columns;
};

struct table_index {
    struct table_cols *v;
    size_t n, cap;
};

static void table_index_add(struct ctx *c, struct table_index *t, struct slice table, long cols)
{
    if (!table.len || cols <= 0)
        return;
    if (t->n == t->cap) {
        size_t ncap = t->cap ? t->cap * 2 : 16;
        struct table_cols *nv = realloc(t->v, ncap * sizeof *nv);
        if (!nv) {
            c->oom = true;
            return;
        }
        t->v = nv;
        t->cap = ncap;
    }
    t->v[t->n++] = (struct table_cols){table, cols};
}

static int cmp_table_name(struct slice a, struct slice b)
{
    size_t n = a.len < b.len ? a.len : b.len;
    int r = memcmp(a.ptr, b.ptr, n);
    return r ? r : (a.len < b.len ? -1 : a.len > b.len);
}

static int cmp_table_cols(const void *x, const void *y)
{
    return cmp_table_name(((const struct table_cols *)x)->table, ((const struct table_cols *)y)->table);
}

/* Sorted by name, one entry per table holding its largest column count. */
static void table_index_finish(struct table_index *t)
{
    if (!t->n)
        return;
    qsort(t->v, t->n, sizeof *t->v, cmp_table_cols);
    size_t k = 0;
    for (size_t i = 1; i < t->n; i++) {
        if (cmp_table_name(t->v[i].table, t->v[k].table) == 0) {
            if (t->v[i].columns > t->v[k].columns)
                t->v[k].columns = t->v[i].columns;
        } else {
            t->v[++k] = t->v[i];
        }
    }
    t->n = k + 1;
}

static long table_index_get(const struct table_index *t, struct slice table)
{
    size_t lo = 0, hi = t->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = cmp_table_name(t->v[mid].table, table);
        if (c == 0)
            return t->v[mid].columns;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}

/* The output list right after a name in simple mode: "FileScan parquet t[a#1,b#2] ...". */
static struct slice list_after(struct slice text, struct slice word)
{
    if (!word.len || word.ptr < text.ptr || word.ptr + word.len > text.ptr + text.len)
        return slice_make(NULL, 0);
    size_t at = (size_t)(word.ptr - text.ptr) + word.len;
    while (at < text.len && text.ptr[at] == ' ')
        at++;
    if (at >= text.len || text.ptr[at] != '[')
        return slice_make(NULL, 0);
    return slice_make(text.ptr + at, text.len - at);
}

/* A scan's output list: its Output field (out: node_field(n, "Output")), or in simple mode the list after its table
 * (node_table_name: "FileScan parquet db.t[a#1]"), or after its name when it reads no table
 * ("Scan ExistingRDD[a#1]").  Found once per scan: its columns and its partition columns
 * both read it. */
static struct slice scan_output(const struct plan_node *n, struct slice table, struct slice text_op,
                                struct slice out)
{
    if (out.len)
        return out;
    return list_after(plan_node_text(n), table.len ? table : text_op);
}

/* "HiveTableRelation [`db`.`t`, serde, Data Cols: [a#1, b#2], Partition Cols: [p#3]]" */
static long hive_relation_columns(const struct plan_node *n)
{
    long d = -1, p = 0;
    struct slice data = node_field(n, "Data Cols");
    if (data.len)
        d = node_list_count(data);
    struct slice part = node_field(n, "Partition Cols");
    if (part.len && node_list_count(part) > 0)
        p = node_list_count(part);
    return d < 0 ? -1 : d + p;
}

/* Where the schema's top-level field after the one at `at` starts (its name's first byte),
 * or SIZE_MAX past the last: the field's type is skipped with its brackets ("decimal(7,2)",
 * "struct<a:int,b:int>"). */
static size_t next_schema_field(struct slice schema, size_t at)
{
    int depth = 0;
    for (size_t i = at; i < schema.len; i++) { /* bound: the schema */
        char ch = schema.ptr[i];
        if (ch == '<' || ch == '(' || ch == '[')
            depth++;
        else if (ch == '>' || ch == ')' || ch == ']') {
            if (depth-- == 0)
                return SIZE_MAX; /* the struct's own '>' */
        } else if (ch == ',' && depth == 0)
            return i + 1;
    }
    return SIZE_MAX;
}

/* Partition columns of a file scan: output columns that ReadSchema (the columns stored in the
 * files, schema_fields of them: -1 not a schema) does not list.  Writes their names, comma
 * separated, into buf; returns how many.  A column is listed when "<name:" or ",name:" is in
 * the schema.  The columns mostly come in the schema's order, so each is first compared with
 * the top-level field the last match left off at: a field there of that name is "<name:" or
 * ",name:" in the text, the same answer the two searches through the whole schema give, for
 * a few compares instead of two searches a column (a scan's dozen columns searched the
 * schema two dozen times). */
static size_t partition_columns(struct slice schema, long schema_fields, struct slice out, char *buf,
                                size_t cap)
{
    buf[0] = '\0';
    if (schema_fields < 0 || out.len < 2 || out.ptr[0] != '[')
        return 0;
    /* the first top-level field: just after "struct<" (past leading blanks) */
    size_t cursor = SIZE_MAX;
    for (size_t i = 0; i < schema.len; i++) /* bound: the leading blanks */
        if (schema.ptr[i] != ' ' && schema.ptr[i] != '\t') {
            if (schema.len - i > 7 && memcmp(schema.ptr + i, "struct<", 7) == 0)
                cursor = i + 7;
            break;
        }
    size_t found = 0, used = 0, start = 1;
    int depth = 0;
    /* Only brackets and commas act below: the other bytes are skipped. */
    struct structural_walk sw;
    structural_walk_init(&sw, out, 1);
    for (size_t i = structural_walk_next(&sw); i < out.len; i = structural_walk_next(&sw)) {
        char ch = out.ptr[i];
        if (ch == '(' || ch == '[')
            depth++;
        else if ((ch == ')' || ch == ']') && depth > 0)
            depth--;
        else if ((ch == ',' || ch == ']') && depth == 0) {
            struct slice el = slice_trim(slice_make(out.ptr + start, i - start));
            long hash = slice_find_in(el, "#", 0);
            struct slice name = hash > 0 ? slice_make(el.ptr, (size_t)hash) : el;
            char key[130];
            bool stored = true;
            size_t kl = name.len && name.len < 120 ? strnlen(name.ptr, name.len) : 0;
            if (kl && kl == name.len && cursor < schema.len && schema.len - cursor > kl &&
                schema.ptr[cursor + kl] == ':' && memcmp(schema.ptr + cursor, name.ptr, kl) == 0) {
                /* the field at the cursor: "<name:" or ",name:" is in the schema */
                cursor = next_schema_field(schema, cursor + kl + 1);
            } else if (name.len && name.len < 120) {
                /* "<name:" as snprintf("<%.*s:") wrote it (up to a NUL), without its cost
                 * on each column of each scan. */
                key[0] = '<';
                memcpy(key + 1, name.ptr, kl);
                key[1 + kl] = ':';
                key[2 + kl] = '\0';
                stored = slice_find_in(schema, key, 0) >= 0;
                key[0] = ',';
                stored = stored || slice_find_in(schema, key, 0) >= 0;
            }
            if (!stored) {
                int w = snprintf(buf + used, cap - used, "%s%.*s", found ? ", " : "", (int)name.len,
                                 name.ptr);
                if (w > 0 && (size_t)w < cap - used)
                    used += (size_t)w;
                found++;
            }
            start = i + 1;
            if (ch == ']')
                break;
        }
    }
    return found;
}

/* Keeps a scan for the summary (see struct ctx); false (and c->oom) when there is no room. */
static bool keep_scan(struct ctx *c, const struct scan_info *info)
{
    if (c->scans_down) {
        if (c->scans_top <= c->scans_floor) {
            c->oom = true;
            return false;
        }
        c->scans_base[--c->scans_top] = *info;
        return true;
    }
    struct summary *sum = c->sum;
    if (sum->n_scans == sum->cap_scans &&
        (c->scans_fixed ||
         !grow_array((void **)&sum->scans, &sum->cap_scans, sum->n_scans + 1, sizeof *info))) {
        c->oom = true;
        return false;
    }
    sum->scans[sum->n_scans++] = *info;
    return true;
}

/* Is catalog_operator_name(named) text_op, which is catalog_operator_name(text)?  Yes when
 * named is the text, or a part of it from its start that goes on past that name: the
 * function reads the bytes up to the byte after the name only, and those are the same
 * bytes.  (A node's name is its text, or the text's start: then one look finds both.) */
static bool same_operator_name(struct slice named, struct slice text, struct slice text_op)
{
    if (named.ptr != text.ptr || named.len > text.len)
        return false;
    if (named.len == text.len)
        return true;
    return text_op.ptr && text_op.ptr >= text.ptr &&
           text_op.ptr + text_op.len < named.ptr + named.len;
}

static void rule_scan(struct ctx *c, const struct plan_node *n, const struct table_index *tables)
{
    struct slice text_op; /* catalog_operator_name(plan_node_text(n)) */
    struct slice table = node_table_name_op(n, &text_op);
    const struct scan_fields *f = scan_fields_of(c, n);
    struct slice pushed = scan_list(f, f->pushed), pf = scan_list(f, f->pf);
    struct slice schema = f->schema, output = scan_output(n, table, text_op, f->output);
    long out = output.len ? node_list_count(output) : -1;
    struct slice named = plan_node_name(n).len ? plan_node_name(n) : plan_node_text(n);
    struct slice op = same_operator_name(named, plan_node_text(n), text_op)
                          ? text_op
                          : catalog_operator_name(named);
    long read_columns = scan_count(schema, f->schema, f->schema_n, true);
    long partition_filters = pf.ptr ? scan_count(pf, f->pf, f->pf_n, false) : -1;
    bool dynamic_pruning = pf.len && slice_find_in(pf, "dynamicpruning", 0) >= 0;
    long schema_fields = read_columns;
    if (read_columns < 0)
        read_columns = out;
    char part_cols[256];
    struct scan_info info = {
        .node = n,
        /* counts of list elements of a text under 4 GB: each element takes 2 bytes or more */
        .read_columns = (int32_t)read_columns,
        .pushed_filters = (int32_t)(pushed.ptr ? scan_count(pushed, f->pushed, f->pushed_n, false)
                                               : -1),
        .partition_filters = (int32_t)partition_filters,
        .op_at = op.len ? (uint32_t)(op.ptr - named.ptr) : 0,
        .op_len = (uint32_t)op.len,
        .table_at = table.len ? (uint32_t)(table.ptr - plan_node_text(n).ptr) : 0,
        .table_len = (uint32_t)table.len,
        .dynamic_pruning = dynamic_pruning,
        .partitioned = partition_columns(schema, schema_fields, output, part_cols, sizeof part_cols) > 0,
    };
    if (!keep_scan(c, &info))
        return;

    if (partition_filters > 0)
        add(c, RULE_PARTITION_FILTERS, n, "partition pruning%s%.*s: %.*s%s%s", table.len ? " on " : "",
            (int)table.len, table.ptr, clip_len(pf), pf.ptr, clip_tail(pf),
            dynamic_pruning ? " (dynamic partition pruning at run time)" : "");

    if (info.partitioned && partition_filters <= 0)
        add(c, RULE_ALL_PARTITIONS, n, "no PartitionFilters: every partition of %.*s%s is read "
            "(partitioned by %s)", (int)(table.len ? table.len : 9), table.len ? table.ptr : "the table",
            "", part_cols);

    long all = table.len ? table_index_get(tables, table) : -1;
    /* A Hive relation's column count is read only where it can be the scan's: SP022 wants
     * two columns or more, all read, and hive_relation_columns is -1 without a "Data Cols"
     * field (the search went through a simple-mode scan's whole line each time). */
    if (all < 0 && out >= 2 && may_have_data_cols(f) &&
        holds(plan_node_text(n), "HiveTableRelation", 17))
        all = hive_relation_columns(n);
    /* Information only: the query asked for every column (Spark prunes unused ones), which
     * is what a SELECT * is for; nothing here says the result needs fewer. */
    if (all >= 2 && out == all)
        add(c, RULE_READS_ALL_COLUMNS, n, "reads all %ld columns of %.*s", all,
            (int)(table.len ? table.len : 9), table.len ? table.ptr : "the table");
}

static void rule_python(struct ctx *c, const struct plan_node *n, const struct catalog_entry *e)
{
    c->sum->n_python++;
    bool row_at_a_time = strncmp(e->name, "BatchEvalPython", 15) == 0;
    struct slice args = node_field(n, "Arguments");
    if (!args.len) {
        long lb = slice_find_in(plan_node_text(n), "[", 0);
        if (lb >= 0)
            args = slice_make(plan_node_text(n).ptr + lb, plan_node_text(n).len - (size_t)lb);
    }
    struct slice name = short_name(n);
    add(c, row_at_a_time ? RULE_PYTHON_ROWS : RULE_PYTHON_ARROW, n,
        "%.*s%s%.*s%s: rows go to a Python worker %s and back; codegen stops here and filters "
        "on the result are not pushed down",
        (int)name.len, name.ptr, args.len ? " " : "", clip_len(args), args.ptr, clip_tail(args),
        row_at_a_time ? "one at a time" : "in Arrow batches");
}

/* AQE: draft plans, and what changed between the initial and final plans. */
struct plan_counts {
    size_t joins[JOIN_LOGICAL + 1];
    size_t exchanges;
};

static void count_subtree(struct ctx *c, const struct plan_node *label, struct plan_counts *pc)
{
    memset(pc, 0, sizeof *pc);
    const struct plan_section *s = label->section;
    for (uint32_t i = plan_node_preorder(label) + 1;
         i <= plan_node_preorder(label) + label->subtree_size && i < s->n_nodes; i++) {
        if (stop_at(c, i)) /* a plan's whole Final or Initial Plan: up to every node */
            return;
        const struct catalog_entry *e = node_entry(plan_section_node(s, i));
        if (!e)
            continue;
        if (e->role == CAT_JOIN)
            pc->joins[e->join]++;
        if (e->role == CAT_SHUFFLE || e->role == CAT_BROADCAST)
            pc->exchanges++;
    }
}

static void describe_joins(const struct plan_counts *pc, char *buf, size_t cap)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int j = JOIN_BROADCAST_HASH; j <= JOIN_CARTESIAN; j++) {
        if (!pc->joins[j])
            continue;
        int w = snprintf(buf + used, cap - used, "%s%zu %s", used ? ", " : "", pc->joins[j],
                         catalog_join_name((enum catalog_join)j));
        if (w < 0 || (size_t)w >= cap - used)
            break;
        used += (size_t)w;
    }
    if (!used)
        snprintf(buf, cap, "no joins");
}

static void rule_aqe(struct ctx *c, const struct plan_node *n, bool *draft_reported)
{
    bool draft = slice_find_in(plan_node_text(n), "isFinalPlan=false", 0) >= 0 ||
                 slice_find_in(plan_node_details_text(n), "isFinalPlan=false", 0) >= 0;
    if (draft && !*draft_reported) {
        *draft_reported = true;
        add(c, RULE_AQE_DRAFT, n, "isFinalPlan=false: this is not the plan that ran");
    }
    const struct plan_node *final = NULL, *initial = NULL;
    for (const struct plan_node *ch = plan_node_first_child(n); ch;
         ch = plan_node_next_sibling(ch)) {
        if (!node_is_label(ch))
            continue;
        if (node_is_initial_plan_label(ch))
            initial = ch;
        else if (!final)
            final = ch;
    }
    if (!final || !initial)
        return;
    struct plan_counts f, i;
    count_subtree(c, final, &f);
    count_subtree(c, initial, &i);
    if (c->oom)
        return;
    bool joins_differ = memcmp(f.joins, i.joins, sizeof f.joins) != 0;
    if (joins_differ) {
        char fb[200], ib[200];
        describe_joins(&f, fb, sizeof fb);
        describe_joins(&i, ib, sizeof ib);
        add(c, RULE_AQE_JOIN_CHANGED, n, "join strategies changed at run time: initial %s; "
            "now %s", ib, fb);
    }
    if (f.exchanges != i.exchanges)
        add(c, RULE_AQE_EXCHANGES_CHANGED, n, "exchanges: %zu in the initial plan, %zu now",
            i.exchanges, f.exchanges);
}

/* ---- statistics over any section with estimates -------------------------------------------- */

static bool absurd_size(const struct plan_node *n, double leaf_sum, double *size)
{
    struct plan_stats st;
    if (!node_stats(n, &st) || !st.has_size)
        return false;
    *size = st.size_bytes;
    const struct catalog_entry *e = node_entry(n);
    if (e && (e->role == CAT_QUERY_STAGE))
        return false;  /* runtime figures (ResultQueryStage's 8.0 EiB is a placeholder) */
    if (slice_find_in(plan_node_text(n), "isRuntime=true", 0) >= 0)
        return false;
    if (st.size_bytes >= UNKNOWN_SIZE)
        return true;
    return leaf_sum > 0 && st.size_bytes >= TIB && st.size_bytes >= 1000.0 * leaf_sum;
}

static void rules_statistics(struct ctx *c, const struct plan_section *s)
{
    if (c->no_statistics)
        return; /* no estimates anywhere: node_stats would say no for every node */
    /* Sum of the estimates of the section's leaves: the inputs. */
    double leaf_sum = 0;
    bool any_stats = false;
    for (uint32_t i = 0; i < s->n_nodes && !stop_at(c, i); i++) {
        const struct plan_node *n = plan_section_node(s, i);
        if (is_shadowed_initial(n)) {
            i += n->subtree_size;  /* what AQE did not run: SP041/SP042 compare it */
            continue;
        }
        struct plan_stats st;
        if (!node_stats(n, &st) || !st.has_size)
            continue;
        any_stats = true;
        if (!plan_node_first_child(n) && st.size_bytes < UNKNOWN_SIZE)
            leaf_sum += st.size_bytes;
    }
    if (!any_stats || c->oom)
        return;
    size_t not_reducing = 0;
    const struct plan_node *first_not_reducing = NULL;
    for (uint32_t i = 0; i < s->n_nodes && !stop_at(c, i); i++) {
        const struct plan_node *n = plan_section_node(s, i);
        if (is_shadowed_initial(n)) {
            i += n->subtree_size;
            continue;
        }
        double size;
        if (absurd_size(n, leaf_sum, &size)) {
            /* Report where it starts: no child is absurd too. */
            bool child_absurd = false;
            for (const struct plan_node *ch = plan_node_first_child(n); ch && !child_absurd;
                 ch = plan_node_next_sibling(ch)) {
                double cs;
                child_absurd = absurd_size(ch, leaf_sum, &cs);
            }
            if (!child_absurd) {
                char sz[32], in[32];
                struct slice name = short_name(n);
                if (size >= UNKNOWN_SIZE)
                    add(c, RULE_ABSURD_ESTIMATE, n, "%.*s estimated at %s: the size is unknown "
                        "(Long.MaxValue), so broadcast decisions cannot use it",
                        (int)name.len, name.ptr, node_format_bytes(size, sz, sizeof sz));
                else
                    add(c, RULE_ABSURD_ESTIMATE, n, "%.*s estimated at %s from inputs of %s",
                        (int)name.len, name.ptr, node_format_bytes(size, sz, sizeof sz),
                        node_format_bytes(leaf_sum, in, sizeof in));
            }
        }
        const struct catalog_entry *e = node_entry(n);
        if (e && e->role == CAT_FILTER && plan_node_first_child(n) && s->kind != SECTION_PHYSICAL) {
            struct plan_stats a, b;
            if (node_stats(n, &a) && node_stats(plan_node_first_child(n), &b) && a.has_size &&
                b.has_size && a.size_bytes == b.size_bytes &&
                (!a.has_rows || !b.has_rows || a.row_count == b.row_count)) {
                if (!first_not_reducing)
                    first_not_reducing = n;
                not_reducing++;
            }
        }
    }
    if (first_not_reducing)
        add(c, RULE_FILTER_NOT_REDUCING, first_not_reducing,
            "%zu filter%s in this plan keep%s the estimate of %s input unchanged", not_reducing,
            not_reducing == 1 ? "" : "s", not_reducing == 1 ? "s" : "",
            not_reducing == 1 ? "its" : "their");
}

/* ---- truncation ------------------------------------------------------------------------------ */

static void rule_truncated_fields(struct ctx *c, const struct plan_node *n)
{
    struct slice parts[2] = {plan_node_text(n), plan_node_details_text(n)};
    long total = 0;
    for (int k = 0; k < 2; k++) {
        for (size_t from = 0;;) {  /* each round moves past one marker */
            long at = slice_find_in(parts[k], " more field", from);
            if (at < 0)
                break;
            /* "... N more fields": N sits before the marker. */
            long d = at;
            while (d > 0 && parts[k].ptr[d - 1] >= '0' && parts[k].ptr[d - 1] <= '9')
                d--;
            if (d < at && d >= 4 && memcmp(parts[k].ptr + d - 4, "... ", 4) == 0)
                total += strtol(parts[k].ptr + d, NULL, 10);
            from = (size_t)at + 1;
        }
    }
    if (total > 0)
        add(c, RULE_TRUNCATED_FIELDS, n, "%ld field%s not shown (\"... more fields\"): raise "
            "spark.sql.debug.maxToStringFields", total, total == 1 ? "" : "s");
}

/* Every node of a section but those of an AQE Initial Plan that a final plan replaced. */
static void rules_truncated_fields(struct ctx *c, const struct plan_section *s)
{
    if (c->no_more_fields)
        return;
    for (uint32_t i = 0; i < s->n_nodes && !stop_at(c, i) && !c->oom; i++) {
        const struct plan_node *n = plan_section_node(s, i);
        if (is_shadowed_initial(n)) {
            i += n->subtree_size;
            continue;
        }
        rule_truncated_fields(c, n);
    }
}

/* slice_find_in over the whole text, a window of TEXT_CHUNK bytes at a time with a look at
 * the cancel flag between windows (a plan is up to hundreds of MB).  A window reaches
 * len(needle) - 1 bytes past its chunk, so a match across two chunks is found. */
static long find_in_text(struct ctx *c, struct slice t, const char *needle, size_t from)
{
    size_t extra = strlen(needle) - 1;
    while (from < t.len && !stopped(c)) {  /* each round moves TEXT_CHUNK bytes on */
        size_t end = t.len - from > TEXT_CHUNK + extra ? from + TEXT_CHUNK + extra : t.len;
        long at = slice_find_in(slice_make(t.ptr, end), needle, from);
        if (at >= 0 || end == t.len)
            return at;
        from += TEXT_CHUNK;
    }
    return -1;
}

/* What the analysis looks for in the whole text: the first two decide whether the rules
 * that look for them in each node run at all, the last two are the truncation rule's. */
enum { MARK_STATISTICS, MARK_MORE_FIELD, MARK_MORE_CHARACTERS, MARK_TRUNCATED, MARK_COUNT };
static const char *const text_marks[MARK_COUNT] = {"Statistics(", " more field",
                                                   " more characters", "Truncated plan of "};
#define MARK_MAX_LEN 18
_Static_assert(MARK_COUNT == sizeof ((struct ctx *)0)->first_mark / sizeof(long), "first_mark");

/* Is mark k at t.ptr[p]? */
static bool mark_at(struct slice t, size_t p, size_t k, size_t len)
{
    return p + len <= t.len && memcmp(t.ptr + p, text_marks[k], len) == 0;
}

/* The first place of every mark in t, in one pass: 32 starts a step are tested for the
 * marks' first two bytes ("St", " m", "Tr"), with a second load one byte on, and only
 * there are the marks compared whole.  Testing one leading byte ('S', 'T', 'm') took fewer
 * instructions, but the 'm' of plain text made a candidate every 50 bytes or so and a
 * mispredicted branch each: the pairs took 23 % (formatted) and 40 % (simple plan) less
 * time in a sampled profile.  Looks at the cancel flag every TEXT_CHUNK bytes; once
 * stopped, a mark not found yet is said to be at 0 (look from the start), so nothing is
 * skipped on a guess. */
/* Where a set bit of m (bit b: the start i + b) is a mark not found yet, notes it. */
static void marks_at(struct slice t, size_t i, uint64_t m, const size_t len[MARK_COUNT],
                     unsigned *left, long first[MARK_COUNT])
{
    for (; m; m &= m - 1) { /* bound: 64 starts */
        size_t p = i + (size_t)__builtin_ctzll(m);
        for (size_t k = 0; k < MARK_COUNT; k++)
            if ((*left >> k & 1) && mark_at(t, p, k, len[k])) {
                first[k] = (long)p;
                *left &= ~(1u << k);
            }
    }
}

#ifdef MARKS_AVX2
void analyze_set_marks_avx2(bool on)
{
    marks_avx2 = on;
}

/* The starts of the 64 at q where a mark's first two bytes are ("St", " m", "Tr"): bit k
 * for q[k].  Reads q[0 .. 64]. */
__attribute__((target("avx2"))) static inline uint64_t mark_pairs64(const char *q)
{
    const __m256i upper_s = _mm256_set1_epi8('S'), lower_t = _mm256_set1_epi8('t');
    const __m256i space = _mm256_set1_epi8(' '), lower_m = _mm256_set1_epi8('m');
    const __m256i upper_t = _mm256_set1_epi8('T'), lower_r = _mm256_set1_epi8('r');
    __m256i a0 = _mm256_loadu_si256((const __m256i *)q);
    __m256i b0 = _mm256_loadu_si256((const __m256i *)(q + 1));
    __m256i a1 = _mm256_loadu_si256((const __m256i *)(q + 32));
    __m256i b1 = _mm256_loadu_si256((const __m256i *)(q + 33));
    __m256i h0 = _mm256_or_si256(
        _mm256_or_si256(
            _mm256_and_si256(_mm256_cmpeq_epi8(a0, upper_s), _mm256_cmpeq_epi8(b0, lower_t)),
            _mm256_and_si256(_mm256_cmpeq_epi8(a0, space), _mm256_cmpeq_epi8(b0, lower_m))),
        _mm256_and_si256(_mm256_cmpeq_epi8(a0, upper_t), _mm256_cmpeq_epi8(b0, lower_r)));
    __m256i h1 = _mm256_or_si256(
        _mm256_or_si256(
            _mm256_and_si256(_mm256_cmpeq_epi8(a1, upper_s), _mm256_cmpeq_epi8(b1, lower_t)),
            _mm256_and_si256(_mm256_cmpeq_epi8(a1, space), _mm256_cmpeq_epi8(b1, lower_m))),
        _mm256_and_si256(_mm256_cmpeq_epi8(a1, upper_t), _mm256_cmpeq_epi8(b1, lower_r)));
    return (uint64_t)(uint32_t)_mm256_movemask_epi8(h0) |
           (uint64_t)(uint32_t)_mm256_movemask_epi8(h1) << 32;
}

/* find_marks's steps with AVX2 where the processor has it: 64 starts a step, the same two
 * bytes tested at each (the text pass of a million-operator plan is then a third cheaper),
 * two steps a round while 128 bytes are left (the loop's own tests were a fifth of the
 * pass).  Returns where it stopped: a multiple of 64, from where the 32-byte steps go on. */
__attribute__((target("avx2"))) static size_t find_marks_avx2(struct ctx *c, struct slice t,
                                                              const size_t len[MARK_COUNT],
                                                              unsigned *left,
                                                              long first[MARK_COUNT])
{
    _Static_assert(TEXT_CHUNK % 128 == 0, "the cancel flag is looked at on a round");
    size_t i = 0;
    unsigned l = *left; /* in a register: marks_at is the only writer */
    /* the loads reach q + 128: inside the text while a mark may still start in the round */
    for (; l && i + 128 + MARK_MAX_LEN <= t.len; i += 128) { /* bound: 128 bytes a round */
        if (i % TEXT_CHUNK == 0 && stopped(c))
            break;
        uint64_t m0 = mark_pairs64(t.ptr + i), m1 = mark_pairs64(t.ptr + i + 64);
        if (m0 | m1) {
            marks_at(t, i, m0, len, &l, first); /* the first 64 starts first */
            marks_at(t, i + 64, m1, len, &l, first);
        }
    }
    /* the loads reach q + 64: inside the text while a mark may still start in the step */
    for (; l && i + 64 + MARK_MAX_LEN <= t.len; i += 64) { /* bound: 64 bytes a step */
        if (i % TEXT_CHUNK == 0 && stopped(c))
            break;
        uint64_t m = mark_pairs64(t.ptr + i);
        if (m)
            marks_at(t, i, m, len, &l, first);
    }
    *left = l;
    return i;
}
#else
void analyze_set_marks_avx2(bool on)
{
    (void)on;
}
#endif

static void find_marks(struct ctx *c, struct slice t, long first[MARK_COUNT])
{
    size_t len[MARK_COUNT];
    unsigned left = 0; /* marks not found yet */
    for (size_t k = 0; k < MARK_COUNT; k++) {
        first[k] = -1;
        len[k] = strlen(text_marks[k]);
        left |= 1u << k;
    }
    size_t i = 0;
#ifdef MARKS_AVX2
    if (marks_avx2 && __builtin_cpu_supports("avx2"))
        i = find_marks_avx2(c, t, len, &left, first);
#endif
#ifdef __SSE2__
    _Static_assert(MARK_COUNT == 4, "find_marks knows the four marks' first two bytes");
    _Static_assert(TEXT_CHUNK % 32 == 0, "the cancel flag is looked at on a step");
    const __m128i upper_s = _mm_set1_epi8('S'), lower_t = _mm_set1_epi8('t');
    const __m128i space = _mm_set1_epi8(' '), lower_m = _mm_set1_epi8('m');
    const __m128i upper_t = _mm_set1_epi8('T'), lower_r = _mm_set1_epi8('r');
    /* the loads reach q + 32: inside the text while a mark may still start in the step */
    for (; left && i + 32 + MARK_MAX_LEN <= t.len; i += 32) { /* bound: 32 bytes a step */
        if (i % TEXT_CHUNK == 0 && stopped(c))
            break;
        const char *q = t.ptr + i;
        __m128i a0 = _mm_loadu_si128((const __m128i *)q);
        __m128i b0 = _mm_loadu_si128((const __m128i *)(q + 1));
        __m128i a1 = _mm_loadu_si128((const __m128i *)(q + 16));
        __m128i b1 = _mm_loadu_si128((const __m128i *)(q + 17));
        __m128i h0 = _mm_or_si128(
            _mm_or_si128(_mm_and_si128(_mm_cmpeq_epi8(a0, upper_s), _mm_cmpeq_epi8(b0, lower_t)),
                         _mm_and_si128(_mm_cmpeq_epi8(a0, space), _mm_cmpeq_epi8(b0, lower_m))),
            _mm_and_si128(_mm_cmpeq_epi8(a0, upper_t), _mm_cmpeq_epi8(b0, lower_r)));
        __m128i h1 = _mm_or_si128(
            _mm_or_si128(_mm_and_si128(_mm_cmpeq_epi8(a1, upper_s), _mm_cmpeq_epi8(b1, lower_t)),
                         _mm_and_si128(_mm_cmpeq_epi8(a1, space), _mm_cmpeq_epi8(b1, lower_m))),
            _mm_and_si128(_mm_cmpeq_epi8(a1, upper_t), _mm_cmpeq_epi8(b1, lower_r)));
        uint32_t m = (uint32_t)_mm_movemask_epi8(h0) | (uint32_t)_mm_movemask_epi8(h1) << 16;
        if (m)
            marks_at(t, i, m, len, &left, first);
    }
#endif
    for (; left && i < t.len; i++) { /* bound: the text; with SSE2 its last bytes only */
        if (i % TEXT_CHUNK == 0 && stopped(c))
            break;
        for (size_t k = 0; k < MARK_COUNT; k++)
            if ((left >> k & 1) && t.ptr[i] == text_marks[k][0] && mark_at(t, i, k, len[k])) {
                first[k] = (long)i;
                left &= ~(1u << k);
            }
    }
    if (c->oom)
        for (size_t k = 0; k < MARK_COUNT; k++)
            if (first[k] < 0)
                first[k] = 0;
}

static void rule_truncated_plan(struct ctx *c, const struct document *doc)
{
    struct slice t = slice_make(doc->src.text, doc->src.text_len);
    static const char *const markers[] = {" more characters", "Truncated plan of "};
    static const int mark_of[] = {MARK_MORE_CHARACTERS, MARK_TRUNCATED};
    for (size_t m = 0; m < 2; m++) {
        uint32_t line = 1;
        size_t counted = 0;
        if (c->first_mark[mark_of[m]] < 0)
            continue; /* not in the text (most plans): no pass of its own */
        for (size_t from = (size_t)c->first_mark[mark_of[m]];;) {  /* each round moves past one marker */
            long at = find_in_text(c, t, markers[m], from);
            if (at < 0)
                break;
            from = (size_t)at + 1;
            if (m == 0) {  /* "... N more characters" */
                long d = at;
                while (d > 0 && t.ptr[d - 1] >= '0' && t.ptr[d - 1] <= '9')
                    d--;
                if (d == at || d < 4 || memcmp(t.ptr + d - 4, "... ", 4) != 0)
                    continue;
            }
            /* Line number: count newlines since the last hit (linear overall), with a look
             * at the cancel flag every TEXT_CHUNK bytes. */
            for (size_t i = counted; i < (size_t)at; i++) {
                if (i % TEXT_CHUNK == 0 && stopped(c))
                    return;
                if (t.ptr[i] == '\n')
                    line++;
            }
            counted = (size_t)at;
            uint32_t orig = document_original_line(doc, line);
            const struct plan_node *n = document_node_at_line(doc, orig);
            add(c, RULE_TRUNCATED_PLAN, n, "the plan text was cut (\"%s\"): raise "
                "spark.sql.maxPlanStringLength", m == 0 ? "... more characters" : "Truncated plan of");
            if (c->last_kept)
                c->findings[c->n_findings - 1].line = orig;
        }
    }
}

/* ---- the driver ------------------------------------------------------------------------------ */

/* The counts of a section that runs, made by its rule pass (op_counter: the function the
 * explorer's header counts with, node by node), into the summary. */
static void count_section(struct ctx *c, struct op_counter *k)
{
    if (!op_counter_finish(k)) {
        c->oom = true;
        return;
    }
    const struct op_summary *os = &k->sum;
    struct summary *sum = c->sum;
    sum->n_physical_nodes += os->nodes;
    sum->n_shuffles += os->shuffles;
    sum->n_broadcasts += os->broadcasts;
    sum->n_reused_exchanges += os->reused;
    sum->n_codegen_stages += os->stages;
    for (size_t j = 0; j <= JOIN_LOGICAL; j++)
        sum->joins[j] += os->join_strategies[j];
}

/* The rules read the details blocks of scans, filters' scans, exchanges and joins, and in a
 * formatted plan the blocks lie after the whole tree, in operator-id order: the pass over
 * the tree jumps about in them, and every block it reads was a wait for memory (a fifth of
 * the pass's time on the million-operator plan, charged to the memchr that reads a block's
 * first line).  The first lines of the block of a node a few ahead are asked for now. */
#define PREFETCH_AHEAD 8u

PREFETCH_HELPER void prefetch_details(const struct plan_node *n)
{
    if (!n->n_details)
        return;
    struct slice d = plan_node_details_text(n);
    for (size_t at = 0; at < d.len && at < 256; at += 64) /* bound: 4 lines of 64 bytes */
        __builtin_prefetch(d.ptr + at);
}

/* The per-node rules over the nodes [from, to) of a section, in preorder, and the section's
 * counts of the same nodes into k: op_summary_compute over the section counts the nodes the
 * rules see (it too leaves out replaced Initial Plans, and a section's first node is never
 * one: that has a parent), so one pass reads each node for both. */
static void rule_nodes(struct ctx *c, const struct plan_section *s, uint32_t from, uint32_t to,
                       const struct table_index *tables, bool *draft_reported,
                       struct op_counter *k)
{
    for (uint32_t i = from; i < to && !stop_at(c, i) && !c->oom; i++) {
        const struct plan_node *n = plan_section_node(s, i);
        if (i + PREFETCH_AHEAD < to)
            prefetch_details(plan_section_node(s, i + PREFETCH_AHEAD));
        if (is_shadowed_initial(n)) {
            i += n->subtree_size;  /* skip the whole Initial Plan subtree */
            continue;
        }
        size_t shuffles = k->sum.shuffles, broadcasts = k->sum.broadcasts;
        const struct catalog_entry *e = op_counter_node_facts(k, n, facts_of(c, n)); /* node_entry(n) */
        if (node_is_label(n) || !e)
            continue;
        switch (e->role) {
        case CAT_SHUFFLE:
            /* The count has just told an executor-side broadcast from a shuffle (it counted
               the node as the one or the other) and the rule asks the same: not twice (a
               look through the node's text and details, and its parent's). */
            rule_exchange(c, n, k->sum.broadcasts != broadcasts ? 1
                                : k->sum.shuffles != shuffles   ? 0
                                                                : -1);
            break;
        case CAT_BROADCAST: rule_broadcast(c, n); break;
        case CAT_JOIN: rule_join(c, n, e); break;
        case CAT_FILTER: rule_filter_over_scan(c, n); break;
        case CAT_SCAN: rule_scan(c, n, tables); break;
        case CAT_PYTHON: rule_python(c, n, e); break;
        case CAT_AQE: rule_aqe(c, n, draft_reported); break;
        case CAT_CACHE:
            if (strcmp(e->name, "InMemoryTableScan") == 0) {
                c->sum->n_cache_scans++;
                rule_scan(c, n, tables);
                add(c, RULE_CACHE_USED, n, "reads a cached relation (InMemoryTableScan)");
            }
            break;
        case CAT_SHUFFLE_READ:
            if (slice_find_in(plan_node_text(n), "skewed", 0) >= 0 ||
                slice_find_in(plan_node_details_text(n), "skewed", 0) >= 0)
                add(c, RULE_SKEW_JOIN, n, "AQE split skewed shuffle partitions here");
            break;
        default: break;
        }
    }
}

/* What a pass over nodes [from, to) of the document collects (collect_tables). */
struct collected {
    struct table_index tables;
    size_t n_nodes, scan_like;
    bool in_text;
};

/* Logical relations and Hive relation nodes: how many columns each table has. */
/* In the same pass over every node: the nodes that are not labels, counted into the
 * summary, *scan_like: the nodes rule_scan may keep (every scan and cached-relation scan),
 * and *in_text: whether every node's text and details lie inside the document text
 * (then a needle the text lacks is in no node). */
static void collect_tables(struct ctx *c, const struct document *doc, size_t from, size_t to,
                           struct collected *got)
{
    const char *lo = doc->src.text, *hi = lo ? lo + doc->src.text_len : NULL;
    bool inside = lo != NULL;
    size_t n_nodes = 0;
    struct table_index *t = &got->tables;
    size_t *scan_like = &got->scan_like;
    for (size_t i = from; i < to && !stop_at(c, (uint32_t)i) && !c->oom; i++) {
        const struct plan_node *n = document_node(doc, i);
        if (i + PREFETCH_AHEAD < to) /* its name, read for its facts (word_slot_of) */
            __builtin_prefetch(plan_node_text(document_node(doc, i + PREFETCH_AHEAD)).ptr);
        n_nodes += !(n->flags & NODE_LABEL);
        struct slice text = plan_node_text(n);
        struct slice details = plan_node_details_text(n);
        if ((text.len && (text.ptr < lo || text.ptr + text.len > hi)) ||
            (details.len && (details.ptr < lo || details.ptr + details.len > hi)))
            inside = false;
        /* the node's facts, kept for the rules and the count (node_role: a label's none) */
        uint32_t f = n->flags & NODE_LABEL ? 0 : op_node_facts(n);
        size_t ix = (size_t)(n - c->nodes); /* plan_node_index(n) */
        if (f && ix < c->n_facts)
            c->facts[ix] = f;
        const struct catalog_entry *e = f ? op_facts_entry(f) : n->flags & NODE_LABEL ? NULL
                                                                                       : node_entry(n);
        enum catalog_role r = e ? e->role : CAT_OTHER;
        *scan_like += r == CAT_SCAN || r == CAT_CACHE;
        if (r == CAT_JOIN && !is_executed_kind(n->section->kind)) {
            struct plan_stats st;
            const struct plan_node *l = nth_real_child(n, 0), *rt = nth_real_child(n, 1);
            if (l && rt && node_stats(l, &st) && node_stats(rt, &st)) {
                if (c->n_logical_joins == c->logical_joins_cap) {
                    size_t ncap = c->logical_joins_cap ? c->logical_joins_cap * 2 : 16;
                    const struct plan_node **nv = realloc(c->logical_joins, ncap * sizeof *nv);
                    if (!nv) {
                        c->oom = true;
                        return;
                    }
                    c->logical_joins = nv;
                    c->logical_joins_cap = ncap;
                }
                c->logical_joins[c->n_logical_joins++] = n;
            }
            continue;
        }
        if (r != CAT_RELATION)
            continue;
        struct slice table = node_table_name(n);
        if (slice_starts_with(plan_node_text(n), "HiveTableRelation"))
            table_index_add(c, t, table, hive_relation_columns(n));
        else if (table.len) {
            long lb = slice_find_in(plan_node_text(n), "[", 0);
            if (lb >= 0)
                table_index_add(c, t, table,
                                node_list_count(slice_make(plan_node_text(n).ptr + lb,
                                                           plan_node_text(n).len - (size_t)lb)));
        }
    }
    got->n_nodes = n_nodes;
    got->in_text = inside;
}

/* ---- two cores ------------------------------------------------------------------------------ */

/* From this many nodes on, a document's text pass and a section's passes are shared with a
 * second thread: below it, starting one costs more than it saves. */
#define PARALLEL_MIN 8192u
static size_t parallel_min = PARALLEL_MIN;

void analyze_set_parallel_min(size_t nodes)
{
    parallel_min = nodes ? nodes : PARALLEL_MIN;
}

/* The second thread's share of one step.  Its ctx reads what the first thread's does (the
 * "one row" marks, the join index, the text marks) and adds findings and counts of its own,
 * appended after the step to the first thread's in the order one thread adds them. */
struct second {
    struct ctx c;
    struct summary sum;
    void (*run)(struct second *);
    pthread_t thread;
    bool started;
    /* a section's step: its nodes [from, to) */
    const struct plan_section *s;
    const struct table_index *tables;
    uint32_t from, to;
    bool draft_reported;
    struct op_counter counts;  /* the section's counts of its nodes */
    /* the document step: its part of the text, and of the nodes [node_from, node_to) */
    struct slice text;
    long first[MARK_COUNT];
    const struct document *doc;
    size_t node_from, node_to;
    struct collected got;
};

static void second_init(struct second *w, const struct ctx *c)
{
    memset(w, 0, sizeof *w);
    w->c = *c;
    w->c.findings = NULL;
    w->c.n_findings = w->c.cap = 0;
    w->c.arena = &c->a->side_arena;
    w->c.sum = &w->sum;
    w->c.dropped = 0;
    memset(w->c.per_rule, 0, sizeof w->c.per_rule);
    w->c.last_kept = false;
    w->c.scratch_cap = 0; /* one_row is the first thread's: never grown here */
    w->c.walk = NULL;
    w->c.walk_cap = 0;
}

static void *second_main(void *arg)
{
    struct second *w = arg;
    w->run(w);
    return NULL;
}

/* Starts run on a thread of its own; when none can be had, second_join runs it. */
static void second_start(struct second *w, void (*run)(struct second *))
{
    w->run = run;
    w->started = thread_start_quiet(&w->thread, second_main, w);
}

static void second_join(struct ctx *c, struct second *w)
{
    if (w->started)
        pthread_join(w->thread, NULL);
    else
        w->run(w);
    w->started = false;
    c->oom = c->oom || w->c.oom;
    c->cancelled = c->cancelled || w->c.cancelled;
}

static void prepare_second(struct second *w)
{
    find_marks(&w->c, w->text, w->first);
    collect_tables(&w->c, w->doc, w->node_from, w->node_to, &w->got);
}

static void rules_second(struct second *w)
{
    rule_nodes(&w->c, w->s, w->from, w->to, w->tables, &w->draft_reported, &w->counts);
}

/* The second thread's findings after the first's, kept or only counted as if one thread had
 * added them all: a rule's first MAX_PER_RULE are kept.  (It kept up to MAX_PER_RULE a rule
 * itself; those it only counted come after them, so they would be only counted here too.)
 * A plan's draft finding (SP040) is reported once: not again when the first half did. */
static void second_merge(struct ctx *c, struct second *w, bool *draft_reported)
{
    struct ctx *b = &w->c;
    size_t kept[RULE_COUNT] = {0};
    for (size_t i = 0; i < b->n_findings && !c->oom; i++) { /* bound: its findings */
        const struct finding *f = &b->findings[i];
        kept[f->rule]++;
        if (f->rule == RULE_AQE_DRAFT && *draft_reported)
            continue; /* never added when one thread runs */
        if (c->per_rule[f->rule]++ >= MAX_PER_RULE) {
            c->dropped++;
            continue;
        }
        struct finding *to = push_finding(c);
        if (to)
            *to = *f;
    }
    for (size_t r = 0; r < RULE_COUNT; r++) {
        size_t only_counted = b->per_rule[r] - kept[r];
        c->per_rule[r] += only_counted;
        c->dropped += only_counted;
    }
    *draft_reported = *draft_reported || w->draft_reported;
    struct summary *sum = c->sum;
    for (size_t k = 0; k < sizeof sum->shuffles / sizeof sum->shuffles[0]; k++)
        sum->shuffles[k] += w->sum.shuffles[k];
    sum->n_python += w->sum.n_python;
    sum->n_cache_scans += w->sum.n_cache_scans;
    if (w->sum.n_scans && !c->oom) {
        size_t n = sum->n_scans + w->sum.n_scans;
        if (!grow_array((void **)&sum->scans, &sum->cap_scans, n, sizeof *sum->scans))
            c->oom = true;
        else {
            memcpy(sum->scans + sum->n_scans, w->sum.scans, w->sum.n_scans * sizeof *sum->scans);
            sum->n_scans = n;
        }
    }
    free(b->findings);
    free(w->sum.scans);
    free(b->walk);
    b->findings = NULL;
    w->sum.scans = NULL;
    w->sum.n_scans = w->sum.cap_scans = 0;
    b->walk = NULL;
}

/* Where the second thread's share of a section's rules (and counts) starts: half way, moved
 * past any replaced Initial Plan holding that node (the rules skip those whole). */
static uint32_t rule_split(const struct plan_section *s)
{
    uint32_t m = s->n_nodes / 2;
    for (const struct plan_node *p = plan_section_node(s, m); p;
         p = plan_node_parent(p)) /* bound: the depth */
        if (is_shadowed_initial(p) && plan_node_preorder(p) + p->subtree_size + 1 > m)
            m = plan_node_preorder(p) + p->subtree_size + 1;
    return m < s->n_nodes ? m : s->n_nodes;
}

/* A section that runs: its counts and its per-node rules, in one pass.  From parallel_min
 * nodes on, a second thread runs it over the section's second half. */
static void analyze_section(struct ctx *c, const struct plan_section *s,
                            const struct table_index *tables, bool *draft_reported)
{
    struct op_counter counts = {0};
    if (!one_row_room(c, s))
        return;
    if (s->n_nodes < parallel_min) {
        rule_nodes(c, s, 0, s->n_nodes, tables, draft_reported, &counts);
        count_section(c, &counts);
        return;
    }
    struct second *w = malloc(sizeof *w);
    if (!w) {
        c->oom = true;
        return;
    }
    second_init(w, c);
    w->s = s;
    w->tables = tables;
    w->from = rule_split(s);
    w->to = s->n_nodes;
    /* The scans: this thread's from the end of the array up, the second's from the top of
     * its room down (the room holds every scan-like node left: both halves fit), then that
     * block turned round and moved down beside the first's.  No second array, and no copy
     * into new memory when the room is exactly the scans (as in a plan without AQE). */
    struct summary *sum = c->sum;
    size_t base = sum->n_scans;
    c->scans_fixed = true;
    w->c.scans_down = true;
    w->c.scans_base = sum->scans;
    w->c.scans_top = sum->cap_scans;
    w->c.scans_floor = base;
    second_start(w, rules_second);
    rule_nodes(c, s, 0, w->from, tables, draft_reported, &counts);
    second_join(c, w);
    c->scans_fixed = false;
    size_t top = w->c.scans_top, n2 = sum->cap_scans - top;
    if (sum->n_scans > top)
        c->oom = true; /* the halves met: cannot happen while the room is every scan-like node */
    if (!c->oom && n2) {
        for (size_t i = top, j = sum->cap_scans - 1; i < j; i++, j--) { /* bound: n2 / 2 */
            struct scan_info t = sum->scans[i];
            sum->scans[i] = sum->scans[j];
            sum->scans[j] = t;
        }
        if (top != sum->n_scans)
            memmove(sum->scans + sum->n_scans, sum->scans + top, n2 * sizeof *sum->scans);
        sum->n_scans += n2;
    }
    second_merge(c, w, draft_reported);
    op_counter_merge(&counts, &w->counts);
    count_section(c, &counts);
    free(w);
}

/* The scans' room (6 MB for a million-operator plan, written whole by the rule pass): from
 * 2 MB on, on a 2 MB boundary and a whole number of 2 MB, so that transparent huge pages
 * cover all of it (one fault each 2 MB; a block from malloc starts and ends inside a 2 MB
 * page, and those parts were 4 KB pages: about 900 of the analysis's 1,700 faults).  Still
 * malloc's block: realloc'd and freed as any other. */
#define SCANS_HUGE ((size_t)2 << 20)

static struct scan_info *scans_alloc(size_t bytes)
{
    if (bytes < SCANS_HUGE)
        return malloc(bytes);
    void *p;
    size_t whole = (bytes + SCANS_HUGE - 1) & ~(SCANS_HUGE - 1);
    if (posix_memalign(&p, SCANS_HUGE, whole) != 0)
        return NULL;
    freshmem_advise(p, whole);
    return p;
}

/* The nodes' facts, zeroed: from FACTS_MAPPED bytes on, fresh memory made present in one
 * call (huge pages where they are cheap); calloc's pages of a 4 MB array came as written,
 * 1,000 faults in the first pass over a million-operator plan. */
#define FACTS_MAPPED ((size_t)1 << 20)
static size_t facts_mapped_min = FACTS_MAPPED;

void analyze_set_facts_mapped_min(size_t bytes)
{
    facts_mapped_min = bytes ? bytes : FACTS_MAPPED;
}

static uint32_t *facts_alloc(size_t n, size_t *mapped)
{
    *mapped = 0;
    if (!n)
        return NULL;
    if (n * sizeof(uint32_t) < facts_mapped_min)
        return calloc(n, sizeof(uint32_t));
    return freshmem_map(n * sizeof(uint32_t), mapped);
}

static void facts_free(uint32_t *facts, size_t mapped)
{
    if (mapped)
        freshmem_unmap(facts, mapped);
    else
        free(facts);
}

/* The document's text marks and one pass over every node (tables and logical joins, the
 * node count, the scan-like nodes, whether the nodes lie in the text): from parallel_min
 * nodes on, the second half of each on a second thread (the node pass costs about what
 * the text pass does on the million-operator plans, so halves balance). */
static void prepare_document(struct ctx *c, const struct document *doc, struct table_index *tables)
{
    size_t len = doc->src.text ? doc->src.text_len : 0;
    bool two = doc->n_all_nodes >= parallel_min && len >= 16 * MARK_MAX_LEN;
    /* the nodes' facts (struct ctx): without memory for them, each is looked up as asked */
    c->n_facts = 0;
    c->facts = facts_alloc(doc->n_nodes_made, &c->facts_bytes);
    if (c->facts)
        c->n_facts = doc->n_nodes_made;
    c->nodes = (const struct plan_node *)(const void *)doc->nodes.base;
    size_t mid = two ? len / 2 : len, half = two ? doc->n_all_nodes / 2 : doc->n_all_nodes;
    struct second w;
    if (two) {
        second_init(&w, c);
        w.text = slice_make(doc->src.text + mid, len - mid);
        w.doc = doc;
        w.node_from = half;
        w.node_to = doc->n_all_nodes;
        second_start(&w, prepare_second);
    }
    struct collected got = {0};
    c->a->summary.n_plans = doc->n_plans;
    collect_tables(c, doc, 0, half, &got);
    /* a match starting before mid may end after it */
    find_marks(c, slice_make(doc->src.text, two ? mid + MARK_MAX_LEN : len), c->first_mark);
    *tables = got.tables;
    if (two) {
        second_join(c, &w);
        for (size_t k = 0; k < MARK_COUNT; k++)
            if (c->first_mark[k] < 0 && w.first[k] >= 0)
                c->first_mark[k] = (long)mid + w.first[k];
        /* the second half's after the first's: the logical joins stay in input order */
        got.n_nodes += w.got.n_nodes;
        got.scan_like += w.got.scan_like;
        got.in_text = got.in_text && w.got.in_text;
        for (size_t i = 0; i < w.got.tables.n && !c->oom; i++) /* bound: its tables */
            table_index_add(c, tables, w.got.tables.v[i].table, w.got.tables.v[i].columns);
        for (size_t i = 0; i < w.c.n_logical_joins && !c->oom; i++) { /* bound: its joins */
            if (c->n_logical_joins == c->logical_joins_cap) {
                size_t ncap = c->logical_joins_cap ? c->logical_joins_cap * 2 : 16;
                const struct plan_node **nv = realloc(c->logical_joins, ncap * sizeof *nv);
                if (!nv) {
                    c->oom = true;
                    break;
                }
                c->logical_joins = nv;
                c->logical_joins_cap = ncap;
            }
            c->logical_joins[c->n_logical_joins++] = w.c.logical_joins[i];
        }
        free(w.got.tables.v);
        free(w.c.logical_joins);
    }
    c->a->summary.n_nodes = got.n_nodes;
    /* Room for every scan the rules may keep, asked for once: its pages are written as the
     * scans are kept, and a section's two threads share it (analyze_section). */
    struct summary *sum = &c->a->summary;
    if (got.scan_like && !c->oom) {
        sum->scans = scans_alloc(got.scan_like * sizeof *sum->scans);
        if (!sum->scans)
            c->oom = true;
        else
            sum->cap_scans = got.scan_like;
    }
    table_index_finish(tables);
    index_join_ids(c);
    if (!got.in_text)
        return;
    c->no_statistics = c->first_mark[MARK_STATISTICS] < 0 && !stopped(c);
    c->no_more_fields = c->first_mark[MARK_MORE_FIELD] < 0 && !stopped(c);
}

static int cmp_findings(const void *x, const void *y)
{
    const struct finding *a = x, *b = y;
    if (a->line != b->line)
        return a->line < b->line ? -1 : 1;
    if (a->rule != b->rule)
        return a->rule < b->rule ? -1 : 1;
    return 0;
}

/* Are the findings in cmp_findings's order already?  The rule pass adds them in preorder,
 * which is the order of the lines, so most plans' are: the sort (a merge sort, which keeps
 * findings that compare equal in the order they came) would leave them as they are, and
 * cost about 3.9 M instructions on a 100,000-operator plan's 17,000 findings. */
static bool findings_in_order(const struct finding *f, size_t n)
{
    for (size_t i = 1; i < n; i++) /* bound: the findings */
        if (cmp_findings(&f[i - 1], &f[i]) > 0)
            return false;
    return true;
}

static int cmp_by_node(const void *x, const void *y)
{
    const struct finding *a = *(const struct finding *const *)x;
    const struct finding *b = *(const struct finding *const *)y;
    if (a->node != b->node)
        return (uintptr_t)a->node < (uintptr_t)b->node ? -1 : 1;
    return a < b ? -1 : a > b;
}

enum sp_status analyze_document(const struct document *doc, struct analysis **out,
                                struct diag *err)
{
    return analyze_document_cancellable(doc, NULL, out, err);
}

static enum sp_status analyze_run(const struct document *doc, const atomic_int *cancel,
                                  bool messages, struct analysis **out, struct diag *err)
{
    *out = NULL;
    struct analysis *a = calloc(1, sizeof *a);
    if (!a) {
        diag_set(err, 0, "out of memory");
        return SP_ERR_NOMEM;
    }
    arena_init(&a->arena);
    arena_init(&a->side_arena);
    a->doc = doc;
    struct ctx c = {.a = a, .cancel = cancel, .arena = &a->arena, .sum = &a->summary,
                    .messages = messages};
    struct table_index tables = {0};
    prepare_document(&c, doc, &tables);
    bool has_exec = document_has_exec(doc);
    for (const struct plan *p = doc->first_plan; p && !c.oom; p = p->next) {
        bool draft_reported = false;
        struct plan_counted pc;
        plan_counted_init(&pc, p, has_exec);
        for (const struct plan_section *s = p->first_section; s && !c.oom; s = s->next) {
            if (section_counts(&pc, s))
                analyze_section(&c, s, &tables, &draft_reported);
            if (!section_read(&pc, s))
                continue;
            if (s->kind != SECTION_CODEGEN)
                rules_statistics(&c, s);
            rules_truncated_fields(&c, s);
        }
    }
    if (!c.oom)
        rule_truncated_plan(&c, doc);
    free(tables.v);
    free((void *)c.one_row);
    free(c.walk);
    free(c.logical_joins);
    free(c.join_ids);
    facts_free(c.facts, c.facts_bytes);
    a->findings = c.findings;
    a->n_findings = c.n_findings;
    a->summary.n_findings_dropped = c.dropped;

    if (!c.oom && a->n_findings && !findings_in_order(a->findings, a->n_findings))
        qsort(a->findings, a->n_findings, sizeof *a->findings, cmp_findings);
    if (!c.oom && a->n_findings && messages) { /* the explorer's look-up by node */
        a->by_node = malloc(a->n_findings * sizeof *a->by_node);
        if (!a->by_node)
            c.oom = true;
        else {
            for (size_t i = 0; i < a->n_findings; i++)
                a->by_node[i] = &a->findings[i];
            qsort(a->by_node, a->n_findings, sizeof *a->by_node, cmp_by_node);
        }
    }
    if (c.oom) {
        analysis_free(a);
        if (c.cancelled) {
            diag_set(err, 0, "analysis cancelled");
            return SP_ERR_CANCELLED;
        }
        diag_set(err, 0, "out of memory");
        return SP_ERR_NOMEM;
    }
    /* Shuffles the catalogue does not know (counted by their name) have no kind here. */
    size_t by_kind = 0;
    for (size_t k = 0; k < sizeof a->summary.shuffles / sizeof a->summary.shuffles[0]; k++)
        by_kind += a->summary.shuffles[k];
    if (by_kind < a->summary.n_shuffles)
        a->summary.shuffles[PART_UNKNOWN] += a->summary.n_shuffles - by_kind;
    a->summary.n_findings = a->n_findings;
    for (size_t i = 0; i < a->n_findings; i++) {
        if (a->findings[i].severity == SEVERITY_WARNING)
            a->summary.n_warnings++;
        else
            a->summary.n_info++;
    }
    *out = a;
    return SP_OK;
}

enum sp_status analyze_document_cancellable(const struct document *doc, const atomic_int *cancel,
                                            struct analysis **out, struct diag *err)
{
    return analyze_run(doc, cancel, true, out, err);
}

enum sp_status analyze_document_counts(const struct document *doc, struct analysis **out,
                                       struct diag *err)
{
    return analyze_run(doc, NULL, false, out, err);
}

void analysis_free(struct analysis *a)
{
    if (!a)
        return;
    free(a->findings);
    free(a->by_node);
    free(a->summary.scans);
    arena_free(&a->arena);
    arena_free(&a->side_arena);
    free(a);
}

struct finding *const *analysis_node_findings(const struct analysis *a,
                                              const struct plan_node *n, size_t *count)
{
    *count = 0;
    if (!a || !n || !a->by_node)
        return NULL;
    size_t lo = 0, hi = a->n_findings;
    while (lo < hi) {  /* first entry whose node is >= n */
        size_t mid = lo + (hi - lo) / 2;
        if ((uintptr_t)a->by_node[mid]->node < (uintptr_t)n)
            lo = mid + 1;
        else
            hi = mid;
    }
    size_t end = lo;
    while (end < a->n_findings && a->by_node[end]->node == n)
        end++;
    *count = end - lo;
    return *count ? &a->by_node[lo] : NULL;
}

int analysis_node_severity(const struct analysis *a, const struct plan_node *n)
{
    size_t k;
    struct finding *const *f = analysis_node_findings(a, n, &k);
    int worst = -1;
    for (size_t i = 0; i < k; i++)
        if ((int)f[i]->severity > worst)
            worst = (int)f[i]->severity;
    return worst;
}

long analysis_next_finding(const struct analysis *a, uint32_t line, bool forward)
{
    if (!a || !a->n_findings)
        return -1;
    if (forward) {
        for (size_t i = 0; i < a->n_findings; i++)
            if (a->findings[i].line > line)
                return (long)i;
        return 0;
    }
    for (size_t i = a->n_findings; i-- > 0;)
        if (a->findings[i].line < line)
            return (long)i;
    return (long)a->n_findings - 1;
}
