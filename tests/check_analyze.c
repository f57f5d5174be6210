/* The plan linter: each rule fires on a small plan that has the problem and stays quiet on
 * one that does not; on the corpus, the TPC-DS plans' ordinary shuffles raise no warning and
 * every nested loop join, cartesian product, Python evaluation and truncation is found. */
#include "testutil.h"

#include <ftw.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sparkplan/analyze.h"
#include "sparkplan/catalog.h"
#include "sparkplan/insight.h"
#include "sparkplan/namekey.h"
#include "sparkplan/nodeinfo.h"
#include "sparkplan/opclass.h"
#include "sparkplan/rows.h"
#include "sparkplan/sample.h"

struct linted {
    struct document *doc;
    struct analysis *a;
};

static struct linted lint(const char *text)
{
    struct linted l;
    l.doc = tu_parse(text);
    struct diag err = {0};
    ck_assert_int_eq(analyze_document(l.doc, &l.a, &err), SP_OK);
    return l;
}

static void done(struct linted *l)
{
    analysis_free(l->a);
    document_free(l->doc);
}

/* Number of findings of a rule, and of them how many are warnings. */
static size_t count(const struct linted *l, enum rule_id rule, size_t *warnings)
{
    size_t n = 0, w = 0;
    for (size_t i = 0; i < l->a->n_findings; i++) {
        if (l->a->findings[i].rule != rule)
            continue;
        n++;
        w += l->a->findings[i].severity == SEVERITY_WARNING;
    }
    if (warnings)
        *warnings = w;
    return n;
}

static const struct finding *first_of(const struct linted *l, enum rule_id rule)
{
    for (size_t i = 0; i < l->a->n_findings; i++)
        if (l->a->findings[i].rule == rule)
            return &l->a->findings[i];
    return NULL;
}

static bool message_has(const struct linted *l, enum rule_id rule, const char *needle)
{
    for (size_t i = 0; i < l->a->n_findings; i++)
        if (l->a->findings[i].rule == rule && strstr(l->a->findings[i].message, needle))
            return true;
    return false;
}

/* ---- shuffles --------------------------------------------------------------------------- */

static const char window_without_partition[] =
    "== Physical Plan ==\n"
    "Window [rank(amount#11) windowspecdefinition(amount#11 DESC NULLS LAST, specifiedwindowframe(RowFrame, unboundedpreceding$(), currentrow$())) AS rnk#20], [amount#11 DESC NULLS LAST]\n"
    "+- *(2) Sort [amount#11 DESC NULLS LAST], false, 0\n"
    "   +- Exchange SinglePartition, ENSURE_REQUIREMENTS, [plan_id=40]\n"
    "      +- *(1) ColumnarToRow\n"
    "         +- FileScan parquet spark_catalog.default.orders[order_id#10L,amount#11] Batched: true, DataFilters: [], Format: Parquet, Location: InMemoryFileIndex(1 paths)[file:/w/orders], PartitionFilters: [], PushedFilters: [], ReadSchema: struct<order_id:bigint,amount:double>\n";

static const char global_aggregate[] =
    "== Physical Plan ==\n"
    "*(2) HashAggregate(keys=[], functions=[sum(amount#11)])\n"
    "+- Exchange SinglePartition, ENSURE_REQUIREMENTS, [plan_id=30]\n"
    "   +- *(1) HashAggregate(keys=[], functions=[partial_sum(amount#11)])\n"
    "      +- *(1) ColumnarToRow\n"
    "         +- FileScan parquet spark_catalog.default.orders[amount#11] Batched: true, DataFilters: [], Format: Parquet, Location: InMemoryFileIndex(1 paths)[file:/w/orders], PartitionFilters: [], PushedFilters: [], ReadSchema: struct<amount:double>\n";

START_TEST(every_exchange_is_counted_and_named_by_its_key)
{
    struct linted l = lint(
        "== Physical Plan ==\n"
        "*(3) HashAggregate(keys=[customer_id#10L], functions=[sum(amount#11)])\n"
        "+- Exchange hashpartitioning(customer_id#10L, 200), ENSURE_REQUIREMENTS, [plan_id=52]\n"
        "   +- *(2) HashAggregate(keys=[customer_id#10L], functions=[partial_sum(amount#11)])\n"
        "      +- Exchange RoundRobinPartitioning(8), REPARTITION_BY_NUM, [plan_id=48]\n"
        "         +- *(1) ColumnarToRow\n"
        "            +- FileScan parquet spark_catalog.default.orders[customer_id#10L,amount#11] Batched: true, DataFilters: [], Format: Parquet, Location: InMemoryFileIndex(1 paths)[file:/w/orders], PartitionFilters: [], PushedFilters: [], ReadSchema: struct<customer_id:bigint,amount:double>\n");
    ck_assert_uint_eq(count(&l, RULE_SHUFFLE, NULL), 2);
    ck_assert(message_has(&l, RULE_SHUFFLE, "hash of customer_id#10L"));
    ck_assert(message_has(&l, RULE_SHUFFLE, "needed by HashAggregate on line 2"));
    ck_assert(message_has(&l, RULE_SHUFFLE, "REPARTITION_BY_NUM"));
    ck_assert_uint_eq(l.a->summary.n_shuffles, 2);
    ck_assert_uint_eq(l.a->summary.shuffles[PART_HASH], 1);
    ck_assert_uint_eq(l.a->summary.shuffles[PART_ROUND_ROBIN], 1);
    ck_assert_uint_eq(l.a->summary.n_codegen_stages, 3);
    ck_assert_uint_eq(l.a->summary.n_warnings, 0);
    ck_assert_uint_eq(first_of(&l, RULE_SHUFFLE)->line, 3);
    done(&l);
}
END_TEST

START_TEST(single_partition_warns_for_a_window_without_partition_by_only)
{
    struct linted l = lint(window_without_partition);
    size_t w;
    ck_assert_uint_eq(count(&l, RULE_SINGLE_PARTITION, &w), 1);
    ck_assert_uint_eq(w, 1);
    ck_assert(message_has(&l, RULE_SINGLE_PARTITION, "window without partitionBy"));
    ck_assert_uint_eq(first_of(&l, RULE_SINGLE_PARTITION)->line, 4);
    done(&l);

    /* A global aggregate also ends in one partition, but each task sends one row. */
    l = lint(global_aggregate);
    ck_assert_uint_eq(count(&l, RULE_SINGLE_PARTITION, NULL), 0);
    ck_assert(message_has(&l, RULE_SHUFFLE, "single partition"));
    ck_assert_uint_eq(l.a->summary.shuffles[PART_SINGLE], 1);
    done(&l);
}
END_TEST

START_TEST(broadcast_exchanges_are_counted_and_reuse_is_not_a_shuffle)
{
    struct linted l = lint(
        "== Physical Plan ==\n"
        "*(2) BroadcastHashJoin [customer_id#10L], [customer_id#13L], Inner, BuildRight, false\n"
        ":- *(2) ColumnarToRow\n"
        ":  +- FileScan parquet spark_catalog.default.orders[customer_id#10L,amount#11] Batched: true, DataFilters: [isnotnull(customer_id#10L)], Format: Parquet, Location: InMemoryFileIndex(1 paths)[file:/w/orders], PartitionFilters: [], PushedFilters: [IsNotNull(customer_id)], ReadSchema: struct<customer_id:bigint,amount:double>\n"
        "+- BroadcastExchange HashedRelationBroadcastMode(List(input[0, bigint, false]),false), [plan_id=61]\n"
        "   +- *(1) ColumnarToRow\n"
        "      +- FileScan parquet spark_catalog.default.customers[customer_id#13L] Batched: true, DataFilters: [isnotnull(customer_id#13L)], Format: Parquet, Location: InMemoryFileIndex(1 paths)[file:/w/customers], PartitionFilters: [], PushedFilters: [IsNotNull(customer_id)], ReadSchema: struct<customer_id:bigint>\n");
    ck_assert_uint_eq(count(&l, RULE_BROADCAST, NULL), 1);
    ck_assert(message_has(&l, RULE_BROADCAST, "BroadcastHashJoin on line 2"));
    ck_assert_uint_eq(l.a->summary.n_broadcasts, 1);
    ck_assert_uint_eq(l.a->summary.n_shuffles, 0);
    ck_assert_uint_eq(l.a->summary.joins[JOIN_BROADCAST_HASH], 1);
    ck_assert_uint_eq(l.a->summary.n_warnings, 0);
    done(&l);
}
END_TEST

/* ---- joins -------------------------------------------------------------------------------- */

START_TEST(nested_loop_join_without_condition_warns_unless_one_side_is_one_row)
{
    struct linted l = lint(
        "== Physical Plan ==\n"
        "BroadcastNestedLoopJoin BuildRight, Inner\n"
        ":- *(1) ColumnarToRow\n"
        ":  +- FileScan parquet spark_catalog.default.orders[order_id#10L] Batched: true, DataFilters: [], Format: Parquet, Location: InMemoryFileIndex(1 paths)[file:/w/orders], PartitionFilters: [], PushedFilters: [], ReadSchema: struct<order_id:bigint>\n"
        "+- BroadcastExchange IdentityBroadcastMode, [plan_id=20]\n"
        "   +- *(2) ColumnarToRow\n"
        "      +- FileScan parquet spark_catalog.default.stores[store_id#12L] Batched: true, DataFilters: [], Format: Parquet, Location: InMemoryFileIndex(1 paths)[file:/w/stores], PartitionFilters: [], PushedFilters: [], ReadSchema: struct<store_id:bigint>\n");
    size_t w;
    ck_assert_uint_eq(count(&l, RULE_NESTED_LOOP_JOIN, &w), 1);
    ck_assert_uint_eq(w, 1);
    ck_assert(message_has(&l, RULE_NESTED_LOOP_JOIN, "no join condition"));
    done(&l);

    /* A non-equi condition is named. */
    l = lint(
        "== Physical Plan ==\n"
        "BroadcastNestedLoopJoin BuildRight, Inner, (amount#11 > limit#12)\n"
        ":- LocalTableScan [amount#11]\n"
        "+- BroadcastExchange IdentityBroadcastMode, [plan_id=20]\n"
        "   +- LocalTableScan [limit#12]\n");
    ck_assert(message_has(&l, RULE_NESTED_LOOP_JOIN, "(amount#11 > limit#12) has no equality"));
    done(&l);

    /* Cross join with a single-row global aggregate: found, but only as information. */
    l = lint(
        "== Physical Plan ==\n"
        "BroadcastNestedLoopJoin BuildRight, Inner\n"
        ":- LocalTableScan [amount#11]\n"
        "+- BroadcastExchange IdentityBroadcastMode, [plan_id=20]\n"
        "   +- *(2) HashAggregate(keys=[], functions=[avg(amount#14)])\n"
        "      +- Exchange SinglePartition, ENSURE_REQUIREMENTS, [plan_id=18]\n"
        "         +- *(1) HashAggregate(keys=[], functions=[partial_avg(amount#14)])\n"
        "            +- LocalTableScan [amount#14]\n");
    ck_assert_uint_eq(count(&l, RULE_NESTED_LOOP_JOIN, &w), 1);
    ck_assert_uint_eq(w, 0);
    ck_assert(message_has(&l, RULE_NESTED_LOOP_JOIN, "single row"));
    done(&l);
}
END_TEST

START_TEST(cartesian_product_is_found)
{
    struct linted l = lint(
        "== Physical Plan ==\n"
        "CartesianProduct\n"
        ":- LocalTableScan [a#1]\n"
        "+- LocalTableScan [b#2]\n");
    size_t w;
    ck_assert_uint_eq(count(&l, RULE_CARTESIAN, &w), 1);
    ck_assert_uint_eq(w, 1);
    ck_assert_uint_eq(l.a->summary.joins[JOIN_CARTESIAN], 1);
    done(&l);
}
END_TEST

START_TEST(sort_merge_join_with_a_small_side_is_flagged_from_statistics)
{
    /* Cost mode: the optimizer estimated the customers side at 107 KiB. */
    const struct sample_file *s = sample_find("join-cost.txt");
    ck_assert_ptr_nonnull(s);
    struct linted l = lint(s->data);
    size_t w;
    ck_assert_uint_eq(count(&l, RULE_SMJ_SMALL_SIDE, &w), 1);
    ck_assert_uint_eq(w, 1);
    ck_assert(message_has(&l, RULE_SMJ_SMALL_SIDE, "right side is 107.4 KiB (estimated)"));
    done(&l);

    /* AQE final plan: sizes measured on the query stages. */
    l = lint(
        "== Physical Plan ==\n"
        "AdaptiveSparkPlan isFinalPlan=true\n"
        "+- == Final Plan ==\n"
        "   *(3) SortMergeJoin [k#1L], [k#2L], LeftOuter\n"
        "   :- *(1) Sort [k#1L ASC NULLS FIRST], false, 0\n"
        "   :  +- AQEShuffleRead coalesced\n"
        "   :     +- ShuffleQueryStage 0, Statistics(sizeInBytes=3.0 GiB, rowCount=1.00E+8)\n"
        "   :        +- Exchange hashpartitioning(k#1L, 200), ENSURE_REQUIREMENTS, [plan_id=10]\n"
        "   :           +- LocalTableScan [k#1L]\n"
        "   +- *(2) Sort [k#2L ASC NULLS FIRST], false, 0\n"
        "      +- AQEShuffleRead coalesced\n"
        "         +- ShuffleQueryStage 1, Statistics(sizeInBytes=2.0 MiB, rowCount=1.00E+4)\n"
        "            +- Exchange hashpartitioning(k#2L, 200), ENSURE_REQUIREMENTS, [plan_id=11]\n"
        "               +- LocalTableScan [k#2L]\n");
    ck_assert_uint_eq(count(&l, RULE_SMJ_SMALL_SIDE, NULL), 1);
    ck_assert(message_has(&l, RULE_SMJ_SMALL_SIDE, "right side is 2.0 MiB (measured at run time)"));
    done(&l);

    /* A full outer join cannot broadcast either side: nothing to say. */
    l = lint(
        "== Physical Plan ==\n"
        "AdaptiveSparkPlan isFinalPlan=true\n"
        "+- == Final Plan ==\n"
        "   *(3) SortMergeJoin [k#1L], [k#2L], FullOuter\n"
        "   :- *(1) Sort [k#1L ASC NULLS FIRST], false, 0\n"
        "   :  +- ShuffleQueryStage 0, Statistics(sizeInBytes=1.0 MiB, rowCount=10)\n"
        "   :     +- Exchange hashpartitioning(k#1L, 200), ENSURE_REQUIREMENTS, [plan_id=10]\n"
        "   :        +- LocalTableScan [k#1L]\n"
        "   +- *(2) Sort [k#2L ASC NULLS FIRST], false, 0\n"
        "      +- ShuffleQueryStage 1, Statistics(sizeInBytes=2.0 MiB, rowCount=1.00E+4)\n"
        "         +- Exchange hashpartitioning(k#2L, 200), ENSURE_REQUIREMENTS, [plan_id=11]\n"
        "            +- LocalTableScan [k#2L]\n");
    ck_assert_uint_eq(count(&l, RULE_SMJ_SMALL_SIDE, NULL), 0);
    done(&l);
}
END_TEST

START_TEST(large_broadcast_and_skew_are_reported)
{
    struct linted l = lint(
        "== Physical Plan ==\n"
        "AdaptiveSparkPlan isFinalPlan=true\n"
        "+- == Final Plan ==\n"
        "   *(2) BroadcastHashJoin [k#1L], [k#2L], Inner, BuildRight, false\n"
        "   :- LocalTableScan [k#1L]\n"
        "   +- BroadcastQueryStage 0, Statistics(sizeInBytes=1.5 GiB, rowCount=3.00E+7)\n"
        "      +- BroadcastExchange HashedRelationBroadcastMode(List(input[0, bigint, false]),false), [plan_id=5]\n"
        "         +- LocalTableScan [k#2L]\n");
    size_t w;
    ck_assert_uint_eq(count(&l, RULE_BROADCAST_LARGE, &w), 1);
    ck_assert_uint_eq(w, 1);
    ck_assert(message_has(&l, RULE_BROADCAST_LARGE, "1.5 GiB"));
    ck_assert(message_has(&l, RULE_BROADCAST_LARGE, "maxResultSize"));
    done(&l);

    l = lint(
        "== Physical Plan ==\n"
        "SortMergeJoin(skew=true) [k#1L], [k#2L], Inner\n"
        ":- LocalTableScan [k#1L]\n"
        "+- LocalTableScan [k#2L]\n");
    ck_assert_uint_eq(count(&l, RULE_SKEW_JOIN, NULL), 1);
    ck_assert_uint_eq(l.a->summary.joins[JOIN_SORT_MERGE], 1);
    done(&l);
}
END_TEST

/* ---- scans -------------------------------------------------------------------------------- */

START_TEST(filter_over_a_scan_without_pushed_filters_warns)
{
    struct linted l = lint(
        "== Physical Plan ==\n"
        "*(1) Filter (length(trim(name#3)) > 0)\n"
        "+- *(1) ColumnarToRow\n"
        "   +- FileScan parquet spark_catalog.default.customers[name#3] Batched: true, DataFilters: [(length(trim(name#3)) > 0)], Format: Parquet, Location: InMemoryFileIndex(1 paths)[file:/w/customers], PartitionFilters: [], PushedFilters: [], ReadSchema: struct<name:string>\n");
    size_t w;
    ck_assert_uint_eq(count(&l, RULE_FILTER_NOT_PUSHED, &w), 1);
    ck_assert_uint_eq(w, 1);
    ck_assert(message_has(&l, RULE_FILTER_NOT_PUSHED, "spark_catalog.default.customers"));
    ck_assert_uint_eq(l.a->summary.n_scans, 1);
    ck_assert_int_eq(l.a->summary.scans[0].pushed_filters, 0);
    ck_assert_int_eq(l.a->summary.scans[0].read_columns, 1);
    /* What --summary names it by, read back from the node's text. */
    ck_assert(slice_eq_cstr(scan_info_op(&l.a->summary.scans[0]), "FileScan"));
    ck_assert(slice_eq_cstr(scan_info_table(&l.a->summary.scans[0]), "spark_catalog.default.customers"));
    ck_assert_uint_eq(l.a->summary.scans[0].node->line, 4);
    done(&l);

    /* Pushed: quiet. */
    l = lint(
        "== Physical Plan ==\n"
        "*(1) Filter (isnotnull(country#3) AND (country#3 = DE))\n"
        "+- *(1) ColumnarToRow\n"
        "   +- FileScan parquet spark_catalog.default.customers[country#3] Batched: true, DataFilters: [isnotnull(country#3), (country#3 = DE)], Format: Parquet, Location: InMemoryFileIndex(1 paths)[file:/w/customers], PartitionFilters: [], PushedFilters: [IsNotNull(country), EqualTo(country,DE)], ReadSchema: struct<country:string>\n");
    ck_assert_uint_eq(count(&l, RULE_FILTER_NOT_PUSHED, NULL), 0);
    ck_assert_int_eq(l.a->summary.scans[0].pushed_filters, 2);
    done(&l);
}
END_TEST

START_TEST(partition_filters_are_reported_as_good_news)
{
    struct linted l = lint(
        "== Physical Plan ==\n"
        "*(1) ColumnarToRow\n"
        "+- FileScan parquet spark_catalog.default.sales[amount#1,day#2] Batched: true, DataFilters: [], Format: Parquet, Location: InMemoryFileIndex(1 paths)[file:/w/sales], PartitionFilters: [isnotnull(day#2), (day#2 = 2024-01-01)], PushedFilters: [], ReadSchema: struct<amount:double>\n");
    size_t w;
    ck_assert_uint_eq(count(&l, RULE_PARTITION_FILTERS, &w), 1);
    ck_assert_uint_eq(w, 0);
    ck_assert(message_has(&l, RULE_PARTITION_FILTERS, "(day#2 = 2024-01-01)"));
    ck_assert_int_eq(l.a->summary.scans[0].partition_filters, 2);
    done(&l);

    /* A filter only on the partition column is served by PartitionFilters: no SP020. */
    l = lint(
        "== Physical Plan ==\n"
        "*(1) Filter (day#2 = 2024-01-01)\n"
        "+- *(1) ColumnarToRow\n"
        "   +- FileScan parquet spark_catalog.default.sales[amount#1,day#2] Batched: true, DataFilters: [], Format: Parquet, Location: InMemoryFileIndex(1 paths)[file:/w/sales], PartitionFilters: [isnotnull(day#2), (day#2 = 2024-01-01)], PushedFilters: [], ReadSchema: struct<amount:double>\n");
    ck_assert_uint_eq(count(&l, RULE_FILTER_NOT_PUSHED, NULL), 0);
    done(&l);
}
END_TEST

/* QA #7: Spark prunes the columns a query does not use, so a scan reading them all is what
 * the query asked for (a SELECT *): information, never a reason for --lint to fail. */
START_TEST(reading_every_column_is_information_only)
{
    struct linted l = lint(
        "== Analyzed Logical Plan ==\n"
        "a: int, b: int, c: int, d: int, e: int, f: int, g: int, h: int\n"
        "Project [a#1, b#2, c#3, d#4, e#5, f#6, g#7, h#8]\n"
        "+- Relation spark_catalog.default.wide[a#1,b#2,c#3,d#4,e#5,f#6,g#7,h#8] parquet\n"
        "\n"
        "== Physical Plan ==\n"
        "*(1) ColumnarToRow\n"
        "+- FileScan parquet spark_catalog.default.wide[a#1,b#2,c#3,d#4,e#5,f#6,g#7,h#8] Batched: true, DataFilters: [], Format: Parquet, Location: InMemoryFileIndex(1 paths)[file:/w/wide], PartitionFilters: [], PushedFilters: [], ReadSchema: struct<a:int,b:int,c:int,d:int,e:int,f:int,g:int,h:int>\n");
    size_t w;
    ck_assert_uint_eq(count(&l, RULE_READS_ALL_COLUMNS, &w), 1);
    ck_assert_uint_eq(w, 0);
    ck_assert_uint_eq(l.a->summary.n_warnings, 0);
    ck_assert(message_has(&l, RULE_READS_ALL_COLUMNS, "all 8 columns"));
    done(&l);

    l = lint(
        "== Analyzed Logical Plan ==\n"
        "a: int\n"
        "Project [a#1]\n"
        "+- Relation spark_catalog.default.wide[a#1,b#2,c#3,d#4,e#5,f#6,g#7,h#8] parquet\n"
        "\n"
        "== Physical Plan ==\n"
        "*(1) ColumnarToRow\n"
        "+- FileScan parquet spark_catalog.default.wide[a#1] Batched: true, DataFilters: [], Format: Parquet, Location: InMemoryFileIndex(1 paths)[file:/w/wide], PartitionFilters: [], PushedFilters: [], ReadSchema: struct<a:int>\n");
    ck_assert_uint_eq(count(&l, RULE_READS_ALL_COLUMNS, NULL), 0);
    done(&l);
}
END_TEST

/* A Hive scan's column count comes from its relation's Data Cols and Partition Cols: read
 * where the scan reads two columns or more and its line has a Data Cols field (two and
 * three read of two and three; three of a table of four; no Data Cols: unknown). */
START_TEST(a_hive_scan_reading_every_column_is_found_from_its_relation)
{
    struct linted l = lint(
        "== Physical Plan ==\n"
        "Union\n"
        ":- Scan hive db.t [a#1, b#2, p#3], HiveTableRelation [`db`.`t`, org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe, Data Cols: [a#1, b#2], Partition Cols: [p#3]]\n"
        ":- Scan hive db.u [a#4, b#5, p#7], HiveTableRelation [`db`.`u`, org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe, Data Cols: [a#4, b#5, c#6], Partition Cols: [p#7]]\n"
        ":- Scan hive db.v [a#8, b#9], HiveTableRelation [`db`.`v`, org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe]\n"
        "+- Scan hive db.w [a#10, b#11], HiveTableRelation [`db`.`w`, org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe, Data Cols: [a#10, b#11], Partition Cols: []]\n");
    ck_assert_uint_eq(count(&l, RULE_READS_ALL_COLUMNS, NULL), 2);
    ck_assert(message_has(&l, RULE_READS_ALL_COLUMNS, "all 3 columns of db.t"));
    ck_assert(message_has(&l, RULE_READS_ALL_COLUMNS, "all 2 columns of db.w"));
    done(&l);
}
END_TEST

/* ---- Python, AQE, cache --------------------------------------------------------------------- */

START_TEST(python_udfs_are_found_and_row_at_a_time_ones_warn)
{
    struct linted l = lint(
        "== Physical Plan ==\n"
        "*(2) Project [name#1]\n"
        "+- *(2) Filter (pythonUDF0#9 = true)\n"
        "   +- BatchEvalPython [is_vip(name#1)#8], [pythonUDF0#9]\n"
        "      +- *(1) ColumnarToRow\n"
        "         +- FileScan parquet spark_catalog.default.customers[name#1] Batched: true, DataFilters: [], Format: Parquet, Location: InMemoryFileIndex(1 paths)[file:/w/c], PartitionFilters: [], PushedFilters: [], ReadSchema: struct<name:string>\n");
    size_t w;
    ck_assert_uint_eq(count(&l, RULE_PYTHON_ROWS, &w), 1);
    ck_assert_uint_eq(w, 1);
    ck_assert(message_has(&l, RULE_PYTHON_ROWS, "is_vip"));
    ck_assert_uint_eq(count(&l, RULE_FILTER_NOT_PUSHED, NULL), 0);  /* not directly on the scan */
    ck_assert_uint_eq(l.a->summary.n_python, 1);
    done(&l);

    l = lint(
        "== Physical Plan ==\n"
        "*(2) Project [pythonUDF0#11L AS add1(id)#2L]\n"
        "+- ArrowEvalPython [add1(id#0L)#2L], [pythonUDF0#11L], 200\n"
        "   +- *(1) Range (0, 10, step=1, splits=8)\n");
    ck_assert_uint_eq(count(&l, RULE_PYTHON_ARROW, &w), 1);
    ck_assert_uint_eq(w, 0);
    done(&l);
}
END_TEST

static const char aqe_changed[] =
    "== Physical Plan ==\n"
    "AdaptiveSparkPlan isFinalPlan=true\n"
    "+- == Final Plan ==\n"
    "   *(3) BroadcastHashJoin [k#1L], [k#2L], Inner, BuildRight, false\n"
    "   :- *(3) LocalTableScan [k#1L]\n"
    "   +- BroadcastQueryStage 1, Statistics(sizeInBytes=1024.0 B, rowCount=10)\n"
    "      +- BroadcastExchange HashedRelationBroadcastMode(List(input[0, bigint, false]),false), [plan_id=9]\n"
    "         +- AQEShuffleRead local\n"
    "            +- ShuffleQueryStage 0, Statistics(sizeInBytes=1024.0 B, rowCount=10)\n"
    "               +- Exchange hashpartitioning(k#2L, 200), ENSURE_REQUIREMENTS, [plan_id=5]\n"
    "                  +- LocalTableScan [k#2L]\n"
    "+- == Initial Plan ==\n"
    "   SortMergeJoin [k#1L], [k#2L], Inner\n"
    "   :- Sort [k#1L ASC NULLS FIRST], false, 0\n"
    "   :  +- Exchange hashpartitioning(k#1L, 200), ENSURE_REQUIREMENTS, [plan_id=4]\n"
    "   :     +- LocalTableScan [k#1L]\n"
    "   +- Sort [k#2L ASC NULLS FIRST], false, 0\n"
    "      +- Exchange hashpartitioning(k#2L, 200), ENSURE_REQUIREMENTS, [plan_id=5]\n"
    "         +- LocalTableScan [k#2L]\n";

START_TEST(aqe_draft_and_what_aqe_changed_are_reported)
{
    struct linted l = lint(
        "== Physical Plan ==\n"
        "AdaptiveSparkPlan isFinalPlan=false\n"
        "+- SortMergeJoin [k#1L], [k#2L], Inner\n"
        "   :- Sort [k#1L ASC NULLS FIRST], false, 0\n"
        "   :  +- Exchange hashpartitioning(k#1L, 200), ENSURE_REQUIREMENTS, [plan_id=4]\n"
        "   :     +- LocalTableScan [k#1L]\n"
        "   +- Sort [k#2L ASC NULLS FIRST], false, 0\n"
        "      +- Exchange hashpartitioning(k#2L, 200), ENSURE_REQUIREMENTS, [plan_id=5]\n"
        "         +- LocalTableScan [k#2L]\n");
    size_t w;
    ck_assert_uint_eq(count(&l, RULE_AQE_DRAFT, &w), 1);
    ck_assert_uint_eq(w, 0);
    ck_assert_uint_eq(count(&l, RULE_AQE_JOIN_CHANGED, NULL), 0);
    done(&l);

    l = lint(aqe_changed);
    ck_assert_uint_eq(count(&l, RULE_AQE_DRAFT, NULL), 0);
    ck_assert(message_has(&l, RULE_AQE_JOIN_CHANGED, "initial 1 sort-merge; now 1 broadcast hash"));
    ck_assert_uint_eq(count(&l, RULE_AQE_EXCHANGES_CHANGED, NULL), 0);  /* 2 and 2 */
    /* The initial plan is not counted: one shuffle and one broadcast ran. */
    ck_assert_uint_eq(l.a->summary.n_shuffles, 1);
    ck_assert_uint_eq(l.a->summary.n_broadcasts, 1);
    ck_assert_uint_eq(l.a->summary.joins[JOIN_SORT_MERGE], 0);
    ck_assert_uint_eq(l.a->summary.joins[JOIN_BROADCAST_HASH], 1);
    done(&l);
}
END_TEST

START_TEST(cache_use_is_reported)
{
    struct linted l = lint(
        "== Physical Plan ==\n"
        "InMemoryTableScan [id#0L]\n"
        "   +- InMemoryRelation [id#0L], StorageLevel(disk, memory, deserialized, 1 replicas)\n"
        "         +- *(1) Range (0, 1000, step=1, splits=8)\n");
    ck_assert_uint_eq(count(&l, RULE_CACHE_USED, NULL), 1);
    ck_assert_uint_eq(l.a->summary.n_cache_scans, 1);
    done(&l);
}
END_TEST

/* ---- statistics and truncation -------------------------------------------------------------- */

START_TEST(absurd_estimates_and_filters_that_do_not_reduce_are_reported)
{
    struct linted l = lint(
        "== Optimized Logical Plan ==\n"
        "Join Inner, Statistics(sizeInBytes=2.5 TiB)\n"
        ":- Filter (amount#1 > 100.0), Statistics(sizeInBytes=1.2 MiB)\n"
        ":  +- Relation spark_catalog.default.orders[amount#1] parquet, Statistics(sizeInBytes=1.2 MiB)\n"
        "+- Relation spark_catalog.default.stores[store#2] parquet, Statistics(sizeInBytes=2.0 MiB)\n"
        "\n"
        "== Physical Plan ==\n"
        "CartesianProduct\n"
        ":- LocalTableScan [amount#1]\n"
        "+- LocalTableScan [store#2]\n");
    size_t w;
    ck_assert_uint_eq(count(&l, RULE_ABSURD_ESTIMATE, &w), 1);
    ck_assert_uint_eq(w, 1);
    ck_assert(message_has(&l, RULE_ABSURD_ESTIMATE, "2.5 TiB from inputs of 3.2 MiB"));
    ck_assert_uint_eq(first_of(&l, RULE_ABSURD_ESTIMATE)->line, 2);
    ck_assert_uint_eq(count(&l, RULE_FILTER_NOT_REDUCING, NULL), 1);
    ck_assert_uint_eq(first_of(&l, RULE_FILTER_NOT_REDUCING)->line, 3);
    done(&l);

    l = lint(
        "== Optimized Logical Plan ==\n"
        "Project [id#1], Statistics(sizeInBytes=8.0 EiB)\n"
        "+- LogicalRDD [id#1], false, Statistics(sizeInBytes=8.0 EiB)\n"
        "\n"
        "== Physical Plan ==\n"
        "*(1) Scan ExistingRDD[id#1]\n");
    ck_assert_uint_eq(count(&l, RULE_ABSURD_ESTIMATE, NULL), 1);  /* where it starts only */
    ck_assert_uint_eq(first_of(&l, RULE_ABSURD_ESTIMATE)->line, 3);
    ck_assert(message_has(&l, RULE_ABSURD_ESTIMATE, "unknown"));
    done(&l);
}
END_TEST

START_TEST(truncated_lists_and_plans_are_reported_with_the_setting)
{
    struct linted l = lint(
        "== Physical Plan ==\n"
        "*(1) Project [c1#1, c2#2, ... 30 more fields]\n"
        "+- *(1) LocalTableScan [c1#1, c2#2, ... 30 more fields]\n");
    size_t w;
    ck_assert_uint_eq(count(&l, RULE_TRUNCATED_FIELDS, &w), 2);
    ck_assert_uint_eq(w, 2);
    ck_assert(message_has(&l, RULE_TRUNCATED_FIELDS, "30 fields"));
    ck_assert(message_has(&l, RULE_TRUNCATED_FIELDS, "spark.sql.debug.maxToStringFields"));
    done(&l);

    l = lint(
        "== Physical Plan ==\n"
        "*(1) Project [c1#1, c2#2]\n"
        "+- *(1) LocalTableScan [c1#1, c... 5310 more characters");
    ck_assert_uint_eq(count(&l, RULE_TRUNCATED_PLAN, &w), 1);
    ck_assert_uint_eq(w, 1);
    ck_assert_uint_eq(first_of(&l, RULE_TRUNCATED_PLAN)->line, 3);
    done(&l);
}
END_TEST

START_TEST(executor_side_broadcasts_are_told_from_shuffles_once)
{
    /* Photon's executor-side broadcast is a shuffle exchange by name: the rule pass's count
       tells it from a shuffle, and the exchange rule takes that answer (also when the
       origin is on the query stage above the exchange). */
    const char *text =
        "== Physical Plan ==\n"
        "BroadcastHashJoin [a#1], [b#2], Inner, BuildRight\n"
        ":- Exchange hashpartitioning(a#1, 200), ENSURE_REQUIREMENTS, [id=#1]\n"
        ":  +- LocalTableScan [a#1]\n"
        "+- BroadcastHashJoin [b#2], [c#3], Inner, BuildRight\n"
        "   :- Exchange SinglePartition, EXECUTOR_BROADCAST, [id=#2]\n"
        "   :  +- LocalTableScan [b#2]\n"
        "   +- ShuffleQueryStage 3, EXECUTOR_BROADCAST\n"
        "      +- Exchange SinglePartition\n"
        "         +- LocalTableScan [c#3]\n";
    struct linted l = lint(text);
    ck_assert_uint_eq(count(&l, RULE_BROADCAST, NULL), 2);
    ck_assert(message_has(&l, RULE_BROADCAST, "executor-side broadcast (EXECUTOR_BROADCAST)"));
    ck_assert_uint_eq(count(&l, RULE_SHUFFLE, NULL), 1);
    ck_assert_uint_eq(l.a->summary.n_broadcasts, 2);
    ck_assert_uint_eq(l.a->summary.n_shuffles, 1);
    done(&l);
    struct document *doc = tu_parse(text);
    struct analysis *a;
    struct diag err = {0};
    ck_assert_int_eq(analyze_document_counts(doc, &a, &err), SP_OK);
    ck_assert_uint_eq(a->summary.n_broadcasts, 2);
    ck_assert_uint_eq(a->summary.n_shuffles, 1);
    ck_assert_uint_eq(a->summary.shuffles[PART_HASH], 1);
    analysis_free(a);
    document_free(doc);
}
END_TEST

START_TEST(a_partition_filters_key_inside_another_field_is_found_as_before)
{
    /* A formatted scan whose block has no PartitionFilters field: the field is still looked
       for as "PartitionFilters: " through the node's text and the whole block, so a key
       inside another field's value counts (here 1 filter), and a block without the key
       reads as "[]" (0).  The key at every place of a 32-start step and of the last,
       overlapping one, with AVX2 and without, and words that are not the key. */
    for (unsigned run = 0; run < 2 * 2 * 80 * 4; run++) {
        unsigned pad = run % 80, kind = run / 80 % 4;
        bool last = run / (80 * 4) % 2; /* the value in the block's last line */
        analyze_set_marks_avx2(run < 2 * 80 * 4);
        static const char *const where[] = {
            "PartitionFilters: [isnotnull(p#2)]", /* in the Location value: found */
            "PartitionFilter: [isnotnull(p#2)]",  /* not the key */
            "PartitionFiltersX: [isnotnull(p#2)]",/* the key, not followed by ": " */
            "xPartitionFilters: [isnotnull(p#2)]",/* no word boundary before it */
        };
        char text[2048];
        snprintf(text, sizeof text,
                 "== Physical Plan ==\n"
                 "* ColumnarToRow (2)\n"
                 "+- Scan parquet db.t (1)\n"
                 "\n\n"
                 "(1) Scan parquet db.t\n"
                 "Output [1]: [a#1]\n"
                 "Batched: true\n"
                 "%s"
                 "Location: InMemoryFileIndex [file:/w/%.*s %s]\n"
                 "%s"
                 "\n"
                 "(2) ColumnarToRow [codegen id : 1]\n"
                 "Input [1]: [a#1]\n",
                 last ? "ReadSchema: struct<a:int>\n" : "",
                 (int)pad, "tttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttt",
                 where[kind], last ? "" : "ReadSchema: struct<a:int>\n");
        struct linted l = lint(text);
        ck_assert_uint_eq(l.a->summary.n_scans, 1);
        ck_assert_msg(l.a->summary.scans[0].partition_filters == (kind == 0 ? 1 : 0),
                      "pad %u kind %u last %d: %d", pad, kind, last, l.a->summary.scans[0].partition_filters);
        ck_assert_uint_eq(count(&l, RULE_PARTITION_FILTERS, NULL), kind == 0);
        done(&l);
    }
    /* and in the node's own text (a formatted node string never has one: a hand-made tree) */
    const char *text =
        "== Physical Plan ==\n"
        "* ColumnarToRow (2)\n"
        "+- Scan parquet db.t PartitionFilters: [isnotnull(p#2), (p#2 = 1)] (1)\n"
        "\n\n"
        "(1) Scan parquet db.t\n"
        "Output [1]: [a#1]\n"
        "Batched: true\n"
        "Location: InMemoryFileIndex [file:/w/t]\n"
        "ReadSchema: struct<a:int>\n"
        "\n"
        "(2) ColumnarToRow [codegen id : 1]\n"
        "Input [1]: [a#1]\n";
    struct linted l = lint(text);
    ck_assert_uint_eq(l.a->summary.n_scans, 1);
    ck_assert_int_eq(l.a->summary.scans[0].partition_filters, 2);
    done(&l);
    analyze_set_marks_avx2(true);
}
END_TEST

START_TEST(marks_deep_in_a_long_text_are_found_wherever_they_fall)
{
    /* The whole-text look for "... N more characters", "... N more fields" and
     * "Statistics(" reads 64 bytes a step (AVX2) or 32 (SSE2): marks at every place in a
     * step, across two steps and in the last bytes, after a few kilobytes of plan; on one
     * thread and on two (the text cut in two between them), with each step width. */
    for (unsigned run = 0; run < 4 * 66 * 50; run++) {
        unsigned pad = run % 66, tail = run / 66 % 50;
        analyze_set_parallel_min(run / (66 * 50) % 2 ? 2 : 0);
        analyze_set_marks_avx2(run < 2 * 66 * 50);
        char text[8192];
        size_t used = (size_t)snprintf(text, sizeof text, "== Physical Plan ==\n*(1) Project [c%.*s#0]\n",
                                       (int)pad, "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx");
        for (unsigned i = 1; i < 60; i++)
            used += (size_t)snprintf(text + used, sizeof text - used, "%*s+- *(1) Project [c%u#%u]\n",
                                     (int)(i - 1) * 3, "", i, i);
        used += (size_t)snprintf(text + used, sizeof text - used,
                                 "%*s+- *(1) LocalTableScan [c1#1, ... 4 more fields]\n", 59 * 3, "");
        /* and the last mark moved over the place where the 32-byte steps give way to bytes */
        snprintf(text + used, sizeof text - used, "%*s+- *(1) Project [c... 77 more characters %.*s",
                 60 * 3, "", (int)tail, "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx");
        struct linted l = lint(text);
        ck_assert_msg(count(&l, RULE_TRUNCATED_PLAN, NULL) == 1, "pad %u tail %u", pad, tail);
        ck_assert_uint_eq(first_of(&l, RULE_TRUNCATED_PLAN)->line, 63);
        ck_assert_msg(count(&l, RULE_TRUNCATED_FIELDS, NULL) == 1, "pad %u tail %u", pad, tail);
        done(&l);
    }
    /* The look tests two bytes at each start ("Tr" here): the mark at every place of a
     * 64-byte step, with texts that look like it but are not ("Tree", "T r", "truncated"). */
    for (unsigned run = 0; run < 4 * 72; run++) {
        unsigned pad = run % 72;
        analyze_set_parallel_min(run / 72 % 2 ? 2 : 0);
        analyze_set_marks_avx2(run < 2 * 72);
        char text[16384];
        size_t used = (size_t)snprintf(text, sizeof text, "== Physical Plan ==\n*(1) Project [c%.*s#0]\n",
                                       (int)pad, "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx");
        for (unsigned i = 1; i < 60; i++)
            used += (size_t)snprintf(text + used, sizeof text - used,
                                     "%*s+- *(1) Project [Tree%u#%u, T r#1, truncated#2, Stat#3]\n",
                                     (int)(i - 1) * 3, "", i, i);
        used += (size_t)snprintf(text + used, sizeof text - used, "%*s+- *(1) LocalTableScan [c1#1]\n"
                                 "Truncated plan of 100 nodes\n", 59 * 3, "");
        ck_assert_uint_lt(used, sizeof text - 1);
        struct linted l = lint(text);
        ck_assert_msg(count(&l, RULE_TRUNCATED_PLAN, NULL) == 1, "pad %u: %zu", pad, count(&l, RULE_TRUNCATED_PLAN, NULL));
        done(&l);
    }
    analyze_set_parallel_min(0);
    analyze_set_marks_avx2(true);
}
END_TEST

/* The AVX2 look reads two 64-byte steps a round: two truncation marks 40 bytes apart at
 * every place of a 256-byte stretch (both in one half, one in each half, in two rounds),
 * with a few hundred bytes after them (rounds, then steps, then bytes): both found, the
 * first one first (a later one taken for the first leaves the earlier one out). */
START_TEST(marks_in_either_half_of_a_round_are_found_in_order)
{
    for (unsigned run = 0; run < 2 * 256; run++) {
        unsigned pad = run % 256;
        analyze_set_marks_avx2(run < 256);
        char text[4096], fill[257];
        memset(fill, 'y', pad);
        fill[pad] = '\0';
        size_t used = (size_t)snprintf(text, sizeof text,
                                       "== Physical Plan ==\n*(1) Project [c#0]\n+- LocalTableScan [c%s#1]\n",
                                       fill);
        used += (size_t)snprintf(text + used, sizeof text - used,
                                 "Truncated plan of 1 nodes\n0123456789012\nTruncated plan of 2 nodes\n");
        for (unsigned i = 0; i < 8; i++)
            used += (size_t)snprintf(text + used, sizeof text - used, "%s\n",
                                     "the rest of the text, long enough for the steps");
        ck_assert_uint_lt(used, sizeof text - 1);
        struct linted l = lint(text);
        ck_assert_msg(count(&l, RULE_TRUNCATED_PLAN, NULL) == 2, "pad %u avx2 %d: %zu", pad,
                      run < 256, count(&l, RULE_TRUNCATED_PLAN, NULL));
        done(&l);
    }
    analyze_set_marks_avx2(true);
}
END_TEST

START_TEST(lists_and_schemas_are_counted_to_their_closing_bracket)
{
    static const struct {
        const char *list;
        long n;
    } lists[] = {
        {"[a#1, b#2, c#3]", 3},
        {"[]", 0},
        {"[a#1, f(b#2, c#3), map<int,string>, {x, y}]", 4},
        {"[a#1, b#2, ... 30 more fields]", 32},
        {"[a#1, [b#2, c#3]] trailing, text", 2},
        {"[a#1, b#2", 2},        /* cut: what is there */
        {"[a#1, b#2,", 2},
        {"(a#1)", -1},
    };
    for (size_t i = 0; i < sizeof lists / sizeof lists[0]; i++)
        ck_assert_msg(node_list_count(slice_cstr(lists[i].list)) == lists[i].n, "%s: %ld, not %ld",
                      lists[i].list, node_list_count(slice_cstr(lists[i].list)), lists[i].n);
    static const struct {
        const char *schema;
        long n;
    } schemas[] = {
        {"struct<a:int,b:string,c:decimal(7,2)>", 3},
        {"struct<>", 0},
        {"struct<a:array<struct<x:int,y:int>>,b:map<string,int>>", 2},
        {"struct<a:int,b:string,...>", 3},  /* closed: "..." counts as a field */
        {"struct<a:int,b:str", -1},
        {"struct<", -1},
        {"struct<a:int> extra", 1},
    };
    for (size_t i = 0; i < sizeof schemas / sizeof schemas[0]; i++)
        ck_assert_msg(node_schema_field_count(slice_cstr(schemas[i].schema)) == schemas[i].n,
                      "%s: %ld, not %ld", schemas[i].schema,
                      node_schema_field_count(slice_cstr(schemas[i].schema)), schemas[i].n);
}
END_TEST

/* ---- one finding per node of the plan that runs ------------------------------------------- */

/* A notebook cell printing explain() then explain("codegen") of the same query (the shape of
 * QA's sp022-select-star.txt): the subtree repeats the physical plan line for line. */
static const char physical_then_codegen[] =
    "== Analyzed Logical Plan ==\n"
    "a: int, b: string, c: int, d: int\n"
    "Filter (cast(b#2 as int) > 3)\n"
    "+- Relation spark_catalog.default.t[a#1,b#2,c#3,d#4] parquet\n"
    "\n"
    "== Physical Plan ==\n"
    "*(1) Filter (cast(b#2 as int) > 3)\n"
    "+- *(1) ColumnarToRow\n"
    "   +- FileScan parquet spark_catalog.default.t[a#1,b#2,c#3,d#4] Batched: true, DataFilters: [(cast(b#2 as int) > 3)], Format: Parquet, Location: InMemoryFileIndex(1 paths)[file:/w/t], PartitionFilters: [], PushedFilters: [], ReadSchema: struct<a:int,b:string,c:int,d:int>\n"
    "\n"
    "Found 1 WholeStageCodegen subtrees.\n"
    "== Subtree 1 / 1 (maxMethodCodeSize:282; maxConstantPoolSize:158(0.24% used); numInnerClasses:0) ==\n"
    "*(1) Filter (cast(b#2 as int) > 3)\n"
    "+- *(1) ColumnarToRow\n"
    "   +- FileScan parquet spark_catalog.default.t[a#1,b#2,c#3,d#4] Batched: true, DataFilters: [(cast(b#2 as int) > 3)], Format: Parquet, Location: InMemoryFileIndex(1 paths)[file:/w/t], PartitionFilters: [], PushedFilters: [], ReadSchema: struct<a:int,b:string,c:int,d:int>\n"
    "\n"
    "Generated code:\n"
    "/* 001 */ public Object generate(Object[] references) {\n"
    "/* 002 */   return new GeneratedIteratorForCodegenStage1(references);\n"
    "/* 003 */ }\n";

START_TEST(codegen_subtrees_repeating_a_physical_plan_are_not_linted_again)
{
    struct linted l = lint(physical_then_codegen);
    ck_assert_uint_ge(l.doc->n_plans, 1);
    size_t w;
    ck_assert_uint_eq(count(&l, RULE_READS_ALL_COLUMNS, NULL), 1);
    ck_assert_uint_eq(count(&l, RULE_FILTER_NOT_PUSHED, &w), 1);
    ck_assert_uint_eq(w, 1);
    ck_assert_uint_eq(first_of(&l, RULE_FILTER_NOT_PUSHED)->line, 7);
    ck_assert_uint_eq(l.a->summary.n_scans, 1);
    ck_assert_uint_eq(l.a->summary.n_codegen_stages, 1);
    done(&l);

    /* The codegen output alone is the only plan there is: it is linted. */
    const char *subtree = strstr(physical_then_codegen, "Found 1");
    l = lint(subtree);
    ck_assert_uint_eq(count(&l, RULE_FILTER_NOT_PUSHED, NULL), 1);
    done(&l);
}
END_TEST

START_TEST(an_initial_plan_replaced_by_aqe_raises_no_finding_of_its_own)
{
    struct linted l = lint(
        "== Physical Plan ==\n"
        "AdaptiveSparkPlan isFinalPlan=true\n"
        "+- == Final Plan ==\n"
        "   *(1) Project [c1#1, c2#2, ... 30 more fields]\n"
        "   +- *(1) Filter (cast(c2#2 as int) > 3)\n"
        "      +- *(1) ColumnarToRow\n"
        "         +- FileScan parquet spark_catalog.default.t[c1#1,c2#2,... 30 more fields] Batched: true, DataFilters: [], Format: Parquet, Location: InMemoryFileIndex(1 paths)[file:/w/t], PartitionFilters: [], PushedFilters: [], ReadSchema: struct<c1:int,c2:string>\n"
        "+- == Initial Plan ==\n"
        "   Project [c1#1, c2#2, ... 30 more fields]\n"
        "   +- Filter (cast(c2#2 as int) > 3)\n"
        "      +- FileScan parquet spark_catalog.default.t[c1#1,c2#2,... 30 more fields] Batched: true, DataFilters: [], Format: Parquet, Location: InMemoryFileIndex(1 paths)[file:/w/t], PartitionFilters: [], PushedFilters: [], ReadSchema: struct<c1:int,c2:string>\n");
    ck_assert_uint_eq(count(&l, RULE_TRUNCATED_FIELDS, NULL), 2);  /* Project and scan, final */
    ck_assert_uint_eq(count(&l, RULE_FILTER_NOT_PUSHED, NULL), 1);
    for (size_t i = 0; i < l.a->n_findings; i++)
        ck_assert_uint_lt(l.a->findings[i].line, 8);
    done(&l);
}
END_TEST

START_TEST(findings_are_ordered_by_line_and_found_by_node)
{
    struct linted l = lint(window_without_partition);
    for (size_t i = 1; i < l.a->n_findings; i++)
        ck_assert_uint_le(l.a->findings[i - 1].line, l.a->findings[i].line);
    const struct finding *f = first_of(&l, RULE_SINGLE_PARTITION);
    size_t k;
    struct finding *const *on = analysis_node_findings(l.a, f->node, &k);
    ck_assert_uint_eq(k, 2);  /* SP001 and SP002 on the Exchange */
    ck_assert_ptr_eq(on[0]->node, f->node);
    ck_assert_int_eq(analysis_node_severity(l.a, f->node), SEVERITY_WARNING);
    ck_assert_int_eq(analysis_node_severity(l.a, tu_root(l.doc)), -1);
    long next = analysis_next_finding(l.a, 1, true);
    ck_assert_int_ge(next, 0);
    ck_assert_uint_eq(l.a->findings[next].line, 4);
    ck_assert_int_eq(analysis_next_finding(l.a, 4, true), 0);  /* wraps */
    done(&l);
}
END_TEST

/* Past the cap a finding is only counted: a null-check filter counted there does not lower
 * the severity of the last kept finding of its rule, a real predicate's warning. */
START_TEST(a_finding_past_the_cap_leaves_the_kept_ones_as_they_are)
{
    static const char real[] =
        "   :- Filter (a#1 > 3)\n"
        "   :  +- FileScan parquet db.t[a#1] Batched: true, DataFilters: [], Format: Parquet, PartitionFilters: [], PushedFilters: [], ReadSchema: struct<a:int>\n";
    static const char null_check[] =
        "   :- Filter isnotnull(a#1)\n"
        "   :  +- FileScan parquet db.t[a#1] Batched: true, DataFilters: [], Format: Parquet, PartitionFilters: [], PushedFilters: [], ReadSchema: struct<a:int>\n";
    size_t cap = 64 + 5000 * sizeof real + 10 * sizeof null_check, len = 0;
    char *text = malloc(cap);
    ck_assert_ptr_nonnull(text);
    len = (size_t)snprintf(text, cap, "== Physical Plan ==\nUnion\n");
    for (size_t i = 0; i < 5010; i++) {
        const char *b = i < 5000 ? real : null_check;
        memcpy(text + len, b, strlen(b));
        len += strlen(b);
    }
    text[len] = '\0';
    struct linted l = lint(text);
    size_t w;
    ck_assert_uint_eq(count(&l, RULE_FILTER_NOT_PUSHED, &w), 5000);
    ck_assert_uint_eq(w, 5000);
    ck_assert_uint_eq(l.a->summary.n_findings_dropped, 10);
    done(&l);
    free(text);
}
END_TEST

/* ---- two threads ------------------------------------------------------------------------- */

static bool same_text(struct slice a, struct slice b)
{
    return a.len == b.len && (a.len == 0 || memcmp(a.ptr, b.ptr, a.len) == 0);
}

/* Everything an analysis holds that a reader sees: the findings in order (rule, severity,
 * line, node, message) and every count of the summary, scans included. */
static void expect_same_analysis(const struct analysis *x, const struct analysis *y, const char *what)
{
    ck_assert_msg(x->n_findings == y->n_findings, "%s: %zu findings against %zu", what,
                  x->n_findings, y->n_findings);
    for (size_t i = 0; i < x->n_findings; i++) {
        const struct finding *f = &x->findings[i], *g = &y->findings[i];
        ck_assert_msg(f->rule == g->rule && f->severity == g->severity && f->line == g->line &&
                          f->node == g->node && strcmp(f->message, g->message) == 0,
                      "%s: finding %zu differs: %s / %s", what, i, f->message, g->message);
    }
    const struct summary *a = &x->summary, *b = &y->summary;
    ck_assert_msg(a->n_findings_dropped == b->n_findings_dropped && a->n_warnings == b->n_warnings &&
                      a->n_info == b->n_info && a->n_nodes == b->n_nodes &&
                      a->n_physical_nodes == b->n_physical_nodes && a->n_python == b->n_python &&
                      a->n_cache_scans == b->n_cache_scans && a->n_scans == b->n_scans &&
                      a->n_shuffles == b->n_shuffles && a->n_broadcasts == b->n_broadcasts &&
                      a->n_reused_exchanges == b->n_reused_exchanges &&
                      a->n_codegen_stages == b->n_codegen_stages &&
                      memcmp(a->shuffles, b->shuffles, sizeof a->shuffles) == 0 &&
                      memcmp(a->joins, b->joins, sizeof a->joins) == 0,
                  "%s: the summary counts differ", what);
    for (size_t i = 0; i < a->n_scans; i++) {
        const struct scan_info *s = &a->scans[i], *t = &b->scans[i];
        ck_assert_msg(s->node == t->node && s->read_columns == t->read_columns &&
                          same_text(scan_info_op(s), scan_info_op(t)) &&
                          same_text(scan_info_table(s), scan_info_table(t)) &&
                          s->pushed_filters == t->pushed_filters &&
                          s->partition_filters == t->partition_filters &&
                          s->dynamic_pruning == t->dynamic_pruning && s->partitioned == t->partitioned,
                      "%s: scan %zu differs", what, i);
    }
}

/* The document analysed by one thread, then with every section of 2 nodes or more shared
 * between two and, with mapped_facts, the nodes' facts in mapped memory (a big plan's way;
 * 2 MB made present an analysis, too dear for each of the corpus's 1,400 plans): the same
 * analysis. */
static void expect_two_threads_agree(const struct document *doc, const char *what,
                                     bool mapped_facts)
{
    struct diag err = {0};
    struct analysis *one, *two;
    analyze_set_parallel_min(SIZE_MAX);
    ck_assert_int_eq(analyze_document(doc, &one, &err), SP_OK);
    analyze_set_parallel_min(2);
    analyze_set_facts_mapped_min(mapped_facts ? 1 : 0);
    ck_assert_int_eq(analyze_document(doc, &two, &err), SP_OK);
    analyze_set_facts_mapped_min(0);
    analyze_set_parallel_min(0);
    expect_same_analysis(one, two, what);
    analysis_free(one);
    ck_assert_int_eq(analyze_document_counts(doc, &one, &err), SP_OK);
    ck_assert_uint_eq(one->n_findings, two->n_findings);
    ck_assert_uint_eq(one->summary.n_warnings, two->summary.n_warnings);
    ck_assert_uint_eq(one->summary.n_scans, two->summary.n_scans);
    for (size_t i = 0; i < one->n_findings; i++) {
        ck_assert_int_eq(one->findings[i].rule, two->findings[i].rule);
        ck_assert_int_eq(one->findings[i].severity, two->findings[i].severity);
        ck_assert_str_eq(one->findings[i].message, ""); /* --summary words none */
    }
    analysis_free(one);
    analysis_free(two);
}

/* A plan of `blocks` query blocks under one Union, in simple mode, with what each rule the
 * two threads share looks for: a draft AQE plan in every block (reported once a plan),
 * single-partition shuffles, broadcasts, filters over scans that push nothing (only null
 * checks: softened), partitioned scans read whole, nested loop joins of a single row. */
static char *many_findings_plan(size_t blocks)
{
    static const char block[] =
        "   :- AdaptiveSparkPlan isFinalPlan=false\n"
        "   :  +- BroadcastNestedLoopJoin BuildRight, Inner\n"
        "   :     :- Exchange SinglePartition, ENSURE_REQUIREMENTS, [plan_id=1]\n"
        "   :     :  +- Filter isnotnull(a#1)\n"
        "   :     :     +- FileScan parquet db.t[a#1,p#2] Batched: true, DataFilters: [], Format: Parquet, PartitionFilters: [], PushedFilters: [], ReadSchema: struct<a:int>\n"
        "   :     +- BroadcastExchange IdentityBroadcastMode, [plan_id=2]\n"
        "   :        +- HashAggregate(keys=[], functions=[count(1)])\n"
        "   :           +- LocalTableScan <empty>, [b#3]\n";
    size_t cap = 64 + blocks * sizeof block;
    char *text = malloc(cap);
    ck_assert_ptr_nonnull(text);
    size_t len = (size_t)snprintf(text, cap, "== Physical Plan ==\nUnion\n");
    for (size_t i = 0; i < blocks; i++) {
        memcpy(text + len, block, sizeof block - 1);
        len += sizeof block - 1;
    }
    text[len] = '\0';
    return text;
}

/* ---- the summary's scan lines on two threads ------------------------------------------------ */

static char *summary_text(const struct document *doc, const struct analysis *a, size_t *len)
{
    FILE *f = tmpfile();
    ck_assert_ptr_nonnull(f);
    struct diag err = {0};
    ck_assert_int_eq(insight_print_summary(f, doc, a, &err), SP_OK);
    return tu_stream_text(f, len);
}

struct summary_of {
    const struct document *doc;
    const struct analysis *a;
};

static char *summary_render(void *ctx, size_t *len)
{
    const struct summary_of *w = ctx;
    return summary_text(w->doc, w->a, len);
}

/* --summary's text of doc with its scan lines made on one thread, then on two in chunks of
 * chunk lines: the same bytes. */
static void expect_summary_two_threads_same(const struct document *doc, size_t chunk,
                                            const char *what)
{
    struct analysis *a;
    struct diag err = {0};
    ck_assert_int_eq(analyze_document_counts(doc, &a, &err), SP_OK);
    struct summary_of w = {doc, a};
    char label[512];
    snprintf(label, sizeof label, "the summary of %s", what);
    tu_expect_two_threads_same(insight_set_scans_parallel, summary_render, &w, chunk, label);
    analysis_free(a);
}

/* 20,000 scans, a few with a table name that is not printable ASCII (their lines take the
 * one-thread way in the middle of a chunk), in chunks of 1, 3, 1,000 and the default. */
START_TEST(summary_scan_lines_on_two_threads_are_the_one_thread_lines)
{
    size_t len;
    char *text = tu_union_plan(30000, false, "", &len);
    static const unsigned odd[] = {5, 2000, 2002, 4097, 29999};
    for (size_t k = 0; k < sizeof odd / sizeof odd[0]; k++) {
        char line[64];
        snprintf(line, sizeof line, "- Scan parquet t%u (", odd[k]);
        char *at = strstr(text, line);
        ck_assert_ptr_nonnull(at);
        at[strlen("- Scan parquet ")] = '\x7f';
    }
    struct document *doc = tu_parse(text);
    static const size_t chunks[] = {1, 3, 1000, 0};
    for (size_t k = 0; k < sizeof chunks / sizeof chunks[0]; k++)
        expect_summary_two_threads_same(doc, chunks[k], "30,000 operators");
    struct analysis *a;
    struct diag err = {0};
    ck_assert_int_eq(analyze_document_counts(doc, &a, &err), SP_OK);
    ck_assert_uint_eq(a->summary.n_scans, 20000);
    char *sum = summary_text(doc, a, &len);
    ck_assert_ptr_nonnull(strstr(sum, ": Scan parquet ^?2000, 1 column read\n"));
    free(sum);
    analysis_free(a);
    document_free(doc);
    free(text);
    for (size_t i = 0; i < n_sample_files; i++) {
        doc = tu_parse(sample_files[i].data);
        expect_summary_two_threads_same(doc, 1, sample_files[i].name);
        expect_summary_two_threads_same(doc, 2, sample_files[i].name);
        document_free(doc);
    }
}
END_TEST

START_TEST(two_threads_find_what_one_finds_in_the_same_order)
{
    /* Past the cap of 5,000 kept findings a rule, in each half of the two threads too. */
    char *text = many_findings_plan(12000);
    struct document *doc = tu_parse(text);
    struct diag err = {0};
    struct analysis *a;
    ck_assert_int_eq(analyze_document(doc, &a, &err), SP_OK);
    size_t draft = 0, shuffles = 0, softened = 0;
    for (size_t i = 0; i < a->n_findings; i++) {
        draft += a->findings[i].rule == RULE_AQE_DRAFT;
        shuffles += a->findings[i].rule == RULE_SHUFFLE;
        softened += a->findings[i].rule == RULE_FILTER_NOT_PUSHED &&
                    a->findings[i].severity == SEVERITY_INFO;
    }
    ck_assert_uint_eq(draft, 1);
    ck_assert_uint_eq(shuffles, 5000);
    ck_assert_uint_eq(softened, 5000);
    ck_assert_uint_eq(a->summary.n_findings_dropped, 6 * 7000); /* six rules, 12,000 each */
    ck_assert_uint_eq(a->summary.n_scans, 2 * 12000);
    analysis_free(a);
    expect_two_threads_agree(doc, "12,000 blocks", true);
    document_free(doc);
    free(text);

    for (size_t i = 0; i < n_sample_files; i++) {
        doc = tu_parse(sample_files[i].data);
        expect_two_threads_agree(doc, sample_files[i].name, true);
        document_free(doc);
    }
}
END_TEST

/* The summary counts its nodes in the rule pass (op_counter), split between two threads:
 * the counts of op_summary_compute, the explorer's header, over the sections it counts. */
static bool counted_kind(enum section_kind k)
{
    return k == SECTION_PHYSICAL || k == SECTION_SUBQUERY;
}

static void expect_header_counts(const struct document *doc, const struct analysis *a,
                                 const char *what)
{
    struct op_summary want = {0};
    bool any = false;
    for (const struct plan *p = doc->first_plan; p; p = p->next)
        for (const struct plan_section *s = p->first_section; s; s = s->next) {
            if (!counted_kind(s->kind))
                continue;
            struct op_summary os;
            ck_assert(op_summary_compute(&os, s, 0, s->n_nodes));
            want.nodes += os.nodes, want.shuffles += os.shuffles;
            want.broadcasts += os.broadcasts, want.reused += os.reused, want.stages += os.stages;
            for (size_t j = 0; j <= JOIN_LOGICAL; j++)
                want.join_strategies[j] += os.join_strategies[j];
            any = true;
        }
    if (!any)
        return; /* no physical plan: the summary counts what stands in for it */
    const struct summary *sum = &a->summary;
    ck_assert_msg(sum->n_physical_nodes == want.nodes && sum->n_shuffles == want.shuffles &&
                      sum->n_broadcasts == want.broadcasts &&
                      sum->n_reused_exchanges == want.reused &&
                      sum->n_codegen_stages == want.stages,
                  "%s: nodes %zu/%u shuffles %zu/%u broadcasts %zu/%u reused %zu/%u stages %zu/%u",
                  what, sum->n_physical_nodes, want.nodes, sum->n_shuffles, want.shuffles,
                  sum->n_broadcasts, want.broadcasts, sum->n_reused_exchanges, want.reused,
                  sum->n_codegen_stages, want.stages);
    for (size_t j = 0; j <= JOIN_LOGICAL; j++)
        ck_assert_msg(sum->joins[j] == want.join_strategies[j], "%s: joins of strategy %zu", what, j);
}

START_TEST(counters_split_anywhere_and_merged_count_what_the_header_counts)
{
    /* Stage ids past the bitmap (hostile input) go to the list; ids repeat across the
     * split (a stage's operators on both sides). */
    static const char *const plans[] = {
        "== Physical Plan ==\n"
        "*(3) Project [a#1]\n"
        "+- *(3) BroadcastHashJoin [a#1], [b#2], Inner, BuildRight, false\n"
        "   :- *(3) Filter isnotnull(a#1)\n"
        "   :  +- *(3) ColumnarToRow\n"
        "   :     +- FileScan parquet db.t[a#1] Batched: true, DataFilters: [], Format: Parquet, PartitionFilters: [], PushedFilters: [], ReadSchema: struct<a:int>\n"
        "   +- BroadcastExchange HashedRelationBroadcastMode(List(input[0, int, true]),false), [plan_id=7]\n"
        "      +- *(2000000) HashAggregate(keys=[b#2], functions=[])\n"
        "         +- Exchange hashpartitioning(b#2, 200), ENSURE_REQUIREMENTS, [plan_id=5]\n"
        "            +- *(1) HashAggregate(keys=[b#2], functions=[])\n"
        "               +- *(2000000) SortMergeJoin [b#2], [c#3], Inner\n"
        "                  :- *(1) Sort [b#2 ASC NULLS FIRST], false, 0\n"
        "                  :  +- ReusedExchange [b#2], Exchange hashpartitioning(b#2, 200)\n"
        "                  +- *(0) Project [c#3]\n"
        "                     +- *(0) LocalTableScan [c#3]\n",
        /* names the catalogue does not know, one past the caches' 80 bytes, a plugin join */
        "== Physical Plan ==\n"
        "MysteryOperator [a#1]\n"
        "+- CometHashJoin [a#1], [b#2], Inner, BuildRight\n"
        "   :- FileScan parquet spark_catalog.a_database_with_a_rather_long_name.and_a_table_whose_name_is_longer_still[a#1] Batched: true, DataFilters: [], Format: Parquet, PartitionFilters: [], PushedFilters: [], ReadSchema: struct<a:int>\n"
        "   +- GpuBroadcastExchange HashedRelationBroadcastMode(List(input[0, int, true]),false), [plan_id=3]\n"
        "      +- UnknownThing\n",
    };
    const size_t nplans = sizeof plans / sizeof plans[0];
    for (size_t p = 0; p < nplans + n_sample_files; p++) {
        const char *text = p < nplans ? plans[p] : sample_files[p - nplans].data;
        struct document *doc = tu_parse(text);
        for (const struct plan *pl = doc->first_plan; pl; pl = pl->next)
            for (const struct plan_section *s = pl->first_section; s; s = s->next) {
                struct op_summary want;
                ck_assert(op_summary_compute(&want, s, 0, s->n_nodes));
                for (uint32_t cut = 0; cut <= s->n_nodes; cut++) {
                    struct op_counter one = {0}, two = {0};
                    for (uint32_t i = 0; i < s->n_nodes; i++) {
                        const struct plan_node *n = plan_section_node(s, i);
                        if (node_is_shadowed_initial(n)) {
                            i += n->subtree_size;
                            continue;
                        }
                        /* it returns node_entry(n), looked up with the count */
                        ck_assert_ptr_eq(op_counter_node(i < cut ? &one : &two, n), node_entry(n));
                    }
                    op_counter_merge(&two, &one); /* either way round */
                    ck_assert(op_counter_finish(&two));
                    ck_assert_uint_eq(two.sum.nodes, want.nodes);
                    ck_assert_uint_eq(two.sum.shuffles, want.shuffles);
                    ck_assert_uint_eq(two.sum.broadcasts, want.broadcasts);
                    ck_assert_uint_eq(two.sum.reused, want.reused);
                    ck_assert_uint_eq(two.sum.stages, want.stages);
                    ck_assert_mem_eq(two.sum.join_strategies, want.join_strategies,
                                     sizeof want.join_strategies);
                }
            }
        struct analysis *a;
        struct diag err = {0};
        analyze_set_parallel_min(2);
        ck_assert_int_eq(analyze_document_counts(doc, &a, &err), SP_OK);
        analyze_set_parallel_min(0);
        expect_header_counts(doc, a, p < nplans ? "hand-made plan" : sample_files[p - nplans].name);
        analysis_free(a);
        document_free(doc);
    }
}
END_TEST

static void two_threads_agree(const char *path, struct document *doc)
{
    struct diag err = {0};
    expect_two_threads_agree(doc, path, false);
    expect_summary_two_threads_same(doc, 2, path);
    struct analysis *a;
    analyze_set_parallel_min(2);
    ck_assert_int_eq(analyze_document_counts(doc, &a, &err), SP_OK);
    analyze_set_parallel_min(0);
    expect_header_counts(doc, a, path);
    analysis_free(a);
    /* the count's look-up gives what node_entry gives, node by node */
    for (const struct plan *p = doc->first_plan; p; p = p->next)
        for (const struct plan_section *s = p->first_section; s; s = s->next) {
            struct op_counter k = {0};
            for (uint32_t i = 0; i < s->n_nodes; i++) {
                const struct plan_node *n = plan_section_node(s, i);
                ck_assert_msg(op_counter_node(&k, n) == node_entry(n), "%s: node on line %u",
                              path, n->line);
            }
            op_counter_free(&k);
        }
}

START_TEST(two_threads_find_what_one_finds_on_the_corpus)
{
    size_t n;
    if (tu_each_corpus_plan("two_threads_find_what_one_finds_on_the_corpus", two_threads_agree,
                            &n))
        ck_assert_uint_gt(n, 100);
}
END_TEST

/* ---- the corpus --------------------------------------------------------------------------- */

static struct linted lint_file(const char *path, bool *ok)
{
    struct linted l = {0};
    struct diag err = {0};
    *ok = load_path(path, &l.doc, &err) == SP_OK && analyze_document(l.doc, &l.a, &err) == SP_OK;
    return l;
}

/* TPC-DS plans whose warnings an experienced engineer would also raise: q49 ranks over a
 * window without partitionBy (its filter is an OR, so no WindowGroupLimit), q44 does too
 * before Spark 3.5 added WindowGroupLimit, v2.7 q22 cross-joins the warehouse table, q8 and
 * q83 filter on a function of a column, which the Parquet reader cannot take. */
static bool warning_expected(const char *path)
{
    static const char *const genuine[] = {
        "/q49.explain.txt", "spark3.1-tpcds-v1_4/q44.explain.txt",
        "spark3.2-tpcds-v1_4/q44.explain.txt", "spark3.4-snapshot-tpcds-v1_4/q44.explain.txt",
        "v2_7/q22.explain.txt", "v2_7-sf100/q22.explain.txt",
        /* filters the reader cannot take: substr(ca_zip) and cast(d_date as string) */
        "spark-tpcds-v1_4/q8.explain.txt", "/q83.explain.txt",
    };
    for (size_t i = 0; i < sizeof genuine / sizeof genuine[0]; i++) {
        size_t pl = strlen(path), gl = strlen(genuine[i]);
        if (pl >= gl && strcmp(path + pl - gl, genuine[i]) == 0)
            return true;
    }
    return false;
}

static size_t n_tpcds_files;
static char unexpected[2048];

static int visit_tpcds(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)st;
    (void)ftw;
    size_t pl = strlen(path);
    if (type != FTW_F || pl < 12 || strcmp(path + pl - 12, ".explain.txt") != 0 ||
        (!strstr(path, "spark-tpcds") && !strstr(path, "spark-tpch") && !strstr(path, "tpcds-v")))
        return 0;
    if (getenv("SPARKPLAN_SANITIZED") && n_tpcds_files % 4 != 0) {
        n_tpcds_files++;  /* a quarter of them under the sanitizers */
        return 0;
    }
    n_tpcds_files++;
    bool ok;
    struct linted l = lint_file(path, &ok);
    if (ok) {
        bool has = l.a->summary.n_warnings > 0;
        if (has != warning_expected(path)) {
            size_t u = strlen(unexpected);
            snprintf(unexpected + u, sizeof unexpected - u, "%s%s (%zu warnings)", u ? ", " : "",
                     path, l.a->summary.n_warnings);
        }
    }
    if (l.a)
        analysis_free(l.a);
    if (l.doc)
        document_free(l.doc);
    return 0;
}

START_TEST(tpcds_ordinary_shuffles_raise_no_warning)
{
    const char *dir = tu_corpus_dir();
    if (!dir)
        return;
    n_tpcds_files = 0;
    unexpected[0] = '\0';
    ck_assert_int_eq(nftw(dir, visit_tpcds, 16, FTW_PHYS), 0);
    ck_assert_uint_gt(n_tpcds_files, 250);
    ck_assert_msg(unexpected[0] == '\0', "warnings differ from the expected ones: %s", unexpected);
}
END_TEST

/* Every nested loop join, cartesian product and Python evaluation of the plan that runs has a
 * finding on its node, and every "... N more fields" node too. */
static size_t n_expected, n_missing;
static char missing_where[1024];

static bool has_rule(const struct analysis *a, const struct plan_node *n, enum rule_id r1,
                     enum rule_id r2)
{
    size_t k;
    struct finding *const *f = analysis_node_findings(a, n, &k);
    for (size_t i = 0; i < k; i++)
        if (f[i]->rule == r1 || f[i]->rule == r2)
            return true;
    return false;
}

static void expect(const struct analysis *a, const struct plan_node *n, enum rule_id r1,
                   enum rule_id r2, const char *path)
{
    n_expected++;
    if (has_rule(a, n, r1, r2))
        return;
    n_missing++;
    size_t u = strlen(missing_where);
    snprintf(missing_where + u, sizeof missing_where - u, "%s%s:%u", u ? ", " : "", path, n->line);
}

static int visit_all(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)ftw;
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    if (type != FTW_F || strcmp(base, "INDEX.tsv") == 0 || strcmp(base, "SOURCES.md") == 0)
        return 0;
    if (getenv("SPARKPLAN_SANITIZED") && st->st_size > 200000)
        return 0;
    bool ok;
    struct linted l = lint_file(path, &ok);
    for (size_t i = 0; ok && i < l.doc->n_all_nodes; i++) {
        const struct plan_node *n = document_node(l.doc, i);
        if (slice_find_in(plan_node_text(n), "... ", 0) >= 0 &&
            slice_find_in(plan_node_text(n), " more field", 0) >= 0)
            expect(l.a, n, RULE_TRUNCATED_FIELDS, RULE_TRUNCATED_FIELDS, path);
        enum section_kind k = n->section->kind;
        if (k != SECTION_PHYSICAL && k != SECTION_SUBQUERY)
            continue;
        bool in_initial = false;  /* AQE initial plans shadowed by a final plan are not linted */
        for (const struct plan_node *p = plan_node_parent(n); p && !in_initial;
             p = plan_node_parent(p))
            in_initial = node_is_initial_plan_label(p) && plan_node_parent(p) &&
                         plan_node_first_child(plan_node_parent(p)) != p;
        if (in_initial)
            continue;
        const struct catalog_entry *e = node_entry(n);
        if (!e)
            continue;
        if (e->join == JOIN_BROADCAST_NESTED_LOOP)
            expect(l.a, n, RULE_NESTED_LOOP_JOIN, RULE_NESTED_LOOP_JOIN, path);
        else if (e->join == JOIN_CARTESIAN)
            expect(l.a, n, RULE_CARTESIAN, RULE_CARTESIAN, path);
        else if (e->role == CAT_PYTHON)
            expect(l.a, n, RULE_PYTHON_ROWS, RULE_PYTHON_ARROW, path);
    }
    if (l.a)
        analysis_free(l.a);
    if (l.doc)
        document_free(l.doc);
    return 0;
}

START_TEST(every_nested_loop_cartesian_python_and_truncation_in_the_corpus_is_found)
{
    const char *dir = tu_corpus_dir();
    if (!dir)
        return;
    n_expected = n_missing = 0;
    missing_where[0] = '\0';
    ck_assert_int_eq(nftw(dir, visit_all, 16, FTW_PHYS), 0);
    if (!getenv("SPARKPLAN_SANITIZED"))
        ck_assert_uint_ge(n_expected, 100);
    ck_assert_msg(n_missing == 0, "%zu of %zu not found: %s", n_missing, n_expected, missing_where);
}
END_TEST

/* 200,000 nested operators built in the model: every pass is iterative. */
/* ---- the summary, one function for --summary and the explorer's header --------------------- */

/* The header line of an explorer tab: the rows of the tab, scope NULL (the whole section) or
 * a label's subtree, through the call the explorer makes when a tab opens. */
static void tab_summary(struct plan_section *s, struct plan_node *scope, struct op_summary *sum,
                        char *line, size_t cap)
{
    struct rows r;
    ck_assert(rows_init(&r, s, scope));
    ck_assert(rows_build_indexes(&r, sum));
    op_summary_format(sum, 0, line, cap);
    rows_free(&r);
}

static struct plan_node *label_with(struct plan_section *s, const char *word)
{
    for (uint32_t i = 0; i < s->n_nodes; i++)
        if ((plan_section_node(s, i)->flags & NODE_LABEL) &&
            slice_find(plan_node_text(plan_section_node(s, i)), word) >= 0)
            return plan_section_node(s, i);
    ck_abort_msg("no %s label", word);
    return NULL;
}

/* QA #1: on an AQE plan the header added the Final and the Initial plans together (4
 * shuffles, SortMergeJoin x2 here) and counted "== Final Plan ==" as a node, while --summary
 * said 2 and 1.  Both now come from op_summary_compute, scoped to the plan that runs. */
START_TEST(header_and_summary_count_the_plan_that_runs_with_one_function)
{
    const struct sample_file *f = sample_find("join-aqe-final.txt");
    struct linted l = lint(f->data);
    struct plan_section *s = l.doc->first_plan->first_section;
    const struct summary *sum = &l.a->summary;
    ck_assert_uint_eq(sum->n_physical_nodes, 17);  /* AdaptiveSparkPlan + the 16 of the Final Plan */
    ck_assert_uint_eq(sum->n_shuffles, 2);
    ck_assert_uint_eq(sum->shuffles[PART_HASH], 2);
    ck_assert_uint_eq(sum->joins[JOIN_SORT_MERGE], 1);
    ck_assert_uint_eq(sum->n_codegen_stages, 5);

    /* The Physical tab: the same numbers. */
    struct op_summary os;
    char line[256];
    tab_summary(s, NULL, &os, line, sizeof line);
    ck_assert_str_eq(line, "17 nodes | 2 shuffles | 0 broadcasts | 5 codegen stages | "
                           "joins: SortMergeJoinx1");
    ck_assert_uint_eq(os.nodes, sum->n_physical_nodes);
    ck_assert_uint_eq(os.shuffles, sum->n_shuffles);
    ck_assert_uint_eq(os.stages, sum->n_codegen_stages);
    ck_assert_uint_eq(sum->n_nodes, 27);  /* 29 lines of the tree, less the 2 labels */

    /* The Final tab: its label is a heading, not a node. */
    tab_summary(s, label_with(s, "Final"), &os, line, sizeof line);
    ck_assert_str_eq(line, "16 nodes | 2 shuffles | 0 broadcasts | 5 codegen stages | "
                           "joins: SortMergeJoinx1");
    /* The Initial tab counts what AQE first planned: the tab is that plan. */
    tab_summary(s, label_with(s, "Initial"), &os, line, sizeof line);
    ck_assert_str_eq(line, "10 nodes | 2 shuffles | 0 broadcasts | 0 codegen stages | "
                           "joins: SortMergeJoinx1");
    done(&l);

    /* A Photon shuffle source reads a shuffle: the header no longer counts it as one. */
    l = lint("== Physical Plan ==\n"
             "AdaptiveSparkPlan isFinalPlan=true\n"
             "+- == Final Plan ==\n"
             "   PhotonResultStage\n"
             "   +- PhotonShuffleExchangeSource\n"
             "      +- PhotonShuffleMapStage ENSURE_REQUIREMENTS, [id=#40]\n"
             "         +- PhotonShuffleExchangeSink hashpartitioning(a#1, 200)\n"
             "            +- PhotonScan parquet db.t[a#1] DataFilters: [], DictionaryFilters: [], Format: parquet, Location: InMemoryFileIndex(1 paths)[s3://b/t], PartitionFilters: [], ReadSchema: struct<a:int>\n");
    s = l.doc->first_plan->first_section;
    tab_summary(s, NULL, &os, line, sizeof line);
    ck_assert_uint_eq(os.shuffles, 1);
    ck_assert_uint_eq(l.a->summary.n_shuffles, 1);
    done(&l);
}
END_TEST

START_TEST(a_deep_chain_is_analysed_without_recursion)
{
    uint32_t depth = getenv("SPARKPLAN_SANITIZED") ? 50000 : 200000;
    char *bytes = malloc(1);
    bytes[0] = 0;
    struct document *doc = document_new("chain", bytes, 0);
    struct plan *pl = document_add_plan(doc, 1);
    struct plan_section *sec = plan_add_section(pl, SECTION_PHYSICAL, slice_cstr("== Physical Plan =="), 1);
    struct plan_node *prev = NULL;
    for (uint32_t i = 0; i < depth; i++) {
        struct plan_node *nd = plan_node_new(sec);
        nd->line = i + 2;
        const char *text = i % 1000 == 999 ? "Exchange SinglePartition, ENSURE_REQUIREMENTS, [plan_id=1]"
                           : i % 3 == 0    ? "ColumnarToRow"
                                           : "Filter (a#1 > 0)";
        plan_node_set_text(nd, slice_cstr(text)), plan_node_set_name(nd, plan_node_text(nd));
        if (prev)
            plan_node_append_child(prev, nd);
        else
            plan_section_append_root(sec, nd);
        prev = nd;
    }
    ck_assert(document_finish(doc));
    struct analysis *a = NULL;
    struct diag err = {0};
    ck_assert_int_eq(analyze_document(doc, &a, &err), SP_OK);
    ck_assert_uint_eq(a->summary.n_shuffles, depth / 1000);
    ck_assert_uint_eq(a->summary.n_physical_nodes, depth);
    analysis_free(a);
    document_free(doc);
}
END_TEST

/* ---- on a thread, and cancelled ---------------------------------------------------------- */

struct analysis_job {
    const struct document *doc;
    const atomic_int *cancel;
    struct analysis *a;
    enum sp_status status;
};

static void *analyse_on_thread(void *arg)
{
    struct analysis_job *j = arg;
    struct diag err = {0};
    j->status = analyze_document_cancellable(j->doc, j->cancel, &j->a, &err);
    return NULL;
}

static bool same_findings(const struct analysis *x, const struct analysis *y)
{
    if (x->n_findings != y->n_findings || x->summary.n_shuffles != y->summary.n_shuffles)
        return false;
    for (size_t i = 0; i < x->n_findings; i++)
        if (x->findings[i].node != y->findings[i].node || x->findings[i].rule != y->findings[i].rule ||
            strcmp(x->findings[i].message, y->findings[i].message) != 0)
            return false;
    return true;
}

/* The explorer analyses on a thread of its own while its main thread reads the same
 * document (and looks operators up in the catalogue, as drawing does): the findings are
 * the ones of a plain run; a set cancel flag stops the analysis with nothing to show (the
 * sanitizer pass checks that nothing is left allocated). */
START_TEST(an_analysis_on_a_thread_finds_the_same_and_stops_when_cancelled)
{
    unsigned n = getenv("SPARKPLAN_SANITIZED") ? 6000 : 30000;
    size_t len;
    char *text = tu_union_plan(n, false, "", &len);
    struct document *doc = tu_parse(text);
    struct analysis *plain = NULL;
    struct diag err = {0};
    ck_assert_int_eq(analyze_document(doc, &plain, &err), SP_OK);
    ck_assert_uint_eq(plain->summary.n_shuffles, n / 3);
    ck_assert_uint_gt(plain->n_findings, 0);

    atomic_int cancel = 0;
    struct analysis_job job = {doc, &cancel, NULL, SP_ERR_IO};
    pthread_t th;
    ck_assert_int_eq(pthread_create(&th, NULL, analyse_on_thread, &job), 0);
    size_t exchanges = 0;
    for (size_t i = 0; i < doc->n_all_nodes; i++) /* meanwhile, what drawing does */
        exchanges += node_role(document_node(doc, i)) == CAT_SHUFFLE;
    pthread_join(th, NULL);
    ck_assert_uint_eq(exchanges, n / 3);
    ck_assert_int_eq(job.status, SP_OK);
    ck_assert_msg(same_findings(plain, job.a), "the threaded analysis found something else");
    analysis_free(job.a);

    atomic_store(&cancel, 1);
    struct analysis *stopped = (struct analysis *)1;
    ck_assert_int_eq(analyze_document_cancellable(doc, &cancel, &stopped, &err), SP_ERR_CANCELLED);
    ck_assert_ptr_null(stopped);
    ck_assert_str_eq(err.message, "analysis cancelled");

    analysis_free(plain);
    document_free(doc);
    free(text);
}
END_TEST

/* Quitting the explorer while it analyses a big plan sets the cancel flag; the summary
 * counts of a section (one pass over all of its nodes) used to run to the end whatever the
 * flag said, and `q` waited for them.  With the flag set the pass stops before counting a
 * node; without it, it counts what op_summary_compute counts. */
static void assert_summary_is(const struct op_summary *got, const struct op_summary *want)
{
    ck_assert_uint_eq(got->nodes, want->nodes);
    ck_assert_uint_eq(got->shuffles, want->shuffles);
    ck_assert_uint_eq(got->broadcasts, want->broadcasts);
    ck_assert_uint_eq(got->reused, want->reused);
    ck_assert_uint_eq(got->stages, want->stages);
    ck_assert_uint_eq(got->n_join_kinds, want->n_join_kinds);
}

START_TEST(the_summary_pass_of_a_big_plan_stops_when_cancelled)
{
    unsigned n = getenv("SPARKPLAN_SANITIZED") ? 30000 : 200000;
    size_t len;
    char *text = tu_union_plan(n, false, "", &len);
    struct document *doc = tu_parse(text);
    const struct plan_section *s = doc->first_plan->first_section;
    ck_assert_uint_gt(s->n_nodes, 4 * OP_SUMMARY_CANCEL_EVERY);

    struct op_summary whole, sum;
    ck_assert(op_summary_compute(&whole, s, 0, s->n_nodes));
    ck_assert_uint_eq(whole.nodes, n + 1);
    ck_assert_uint_eq(whole.shuffles, n / 3);

    atomic_int cancel = 1;
    memset(&sum, 0xA5, sizeof sum);
    ck_assert_int_eq(op_summary_compute_cancellable(&sum, s, 0, s->n_nodes, &cancel),
                     SP_ERR_CANCELLED);
    ck_assert_uint_eq(sum.nodes, 0);
    ck_assert_uint_eq(sum.shuffles, 0);

    atomic_store(&cancel, 0);
    ck_assert_int_eq(op_summary_compute_cancellable(&sum, s, 0, s->n_nodes, &cancel), SP_OK);
    assert_summary_is(&sum, &whole);
    ck_assert_int_eq(op_summary_compute_cancellable(&sum, s, 0, s->n_nodes, NULL), SP_OK);
    assert_summary_is(&sum, &whole);

    document_free(doc);
    free(text);
}
END_TEST

/* The partitioning an Exchange names, in any case and with a prefix glued to it; the
 * first name in the text wins, and a word merely holding "partition" is not a name. */
START_TEST(exchange_partitionings_are_read_in_any_case_with_a_glued_prefix)
{
    struct document *doc = tu_parse(
        "== Physical Plan ==\n"
        "Union\n"
        ":- Exchange hashpartitioning(partition_id#1, 200), ENSURE_REQUIREMENTS, [plan_id=1]\n"
        ":  +- LocalTableScan [partition_id#1]\n"
        ":- GpuColumnarExchange gpuhashpartitioning(k#2, 10), ENSURE_REQUIREMENTS\n"
        ":  +- LocalTableScan [k#2]\n"
        ":- Exchange RoundRobinPartitioning(10), REPARTITION_BY_NUM, [plan_id=3]\n"
        ":  +- LocalTableScan [a#3]\n"
        ":- Exchange rangepartitioning(a#4 ASC NULLS FIRST, 200), ENSURE_REQUIREMENTS\n"
        ":  +- LocalTableScan [a#4]\n"
        ":- Exchange SinglePartition, ENSURE_REQUIREMENTS, [plan_id=5]\n"
        ":  +- LocalTableScan [a#5]\n"
        ":- Exchange KeyGroupedPartitioning(b#6, 4), ENSURE_REQUIREMENTS\n"
        ":  +- LocalTableScan [b#6]\n"
        "+- Exchange repartition_hint#7 Partitioned, UnknownPartitioning(0)\n"
        "   +- LocalTableScan [repartition_hint#7]\n");
    static const struct {
        const char *partitioning;
        enum partitioning_kind kind;
    } want[] = {
        {"hashpartitioning(partition_id#1, 200)", PART_HASH},
        {"gpuhashpartitioning(k#2, 10)", PART_HASH},
        {"RoundRobinPartitioning(10)", PART_ROUND_ROBIN},
        {"rangepartitioning(a#4 ASC NULLS FIRST, 200)", PART_RANGE},
        {"SinglePartition", PART_SINGLE},
        {"KeyGroupedPartitioning(b#6, 4)", PART_OTHER},
        {"UnknownPartitioning(0)", PART_OTHER},
    };
    size_t k = 0;
    const struct plan_section *sec = doc->first_plan->first_section;
    for (uint32_t i = 0; i < sec->n_nodes; i++) {
        const struct plan_node *n = plan_section_node(sec, i);
        if (!tu_slice_is(plan_node_name(n), "Exchange") &&
            !tu_slice_is(plan_node_name(n), "GpuColumnarExchange"))
            continue;
        ck_assert_uint_lt(k, sizeof want / sizeof want[0]);
        enum partitioning_kind kind = PART_UNKNOWN;
        struct slice p = node_partitioning(n, &kind);
        ck_assert_msg(tu_slice_is(p, want[k].partitioning), "exchange %zu: '%.*s'", k, (int)p.len,
                      p.ptr ? p.ptr : "");
        ck_assert_int_eq(kind, want[k].kind);
        k++;
    }
    ck_assert_uint_eq(k, sizeof want / sizeof want[0]);
    document_free(doc);
}
END_TEST

/* A scan's line is read for its fields through the places of its ": " (text_fields): the
 * same field node_field finds for every key, with the key inside another field's value
 * first, without a word boundary, without its ": ", at every place of a 16-byte step and in
 * the bytes after the last one, and with more places than text_fields keeps. */
START_TEST(a_scan_line_s_fields_are_found_as_node_field_finds_them)
{
    static const char *const keys[] = {"PushedFilters", "PartitionFilters", "ReadSchema",
                                       "Output", "DataFilters", "Format", "Location", "x"};
    for (unsigned run = 0; run < 40 * 3; run++) {
        unsigned pad = run % 40, shape = run / 40;
        char text[4096];
        size_t k = (size_t)snprintf(text, sizeof text,
            "== Physical Plan ==\n"
            "FileScan parquet db.t[a#1] %.*s Batched: true, xPushedFilters: [no], "
            "DataFilters: [PushedFilters: [in]], PushedFiltersY: [no], PartitionFilters:[no], "
            "Format: Parquet, ",
            (int)pad, "tttttttttttttttttttttttttttttttttttttttt");
        if (shape == 1) /* more ": " places than the room: searched as node_field does */
            for (unsigned i = 0; i < 60; i++)
                k += (size_t)snprintf(text + k, sizeof text - k, "F%u: %u, ", i, i);
        snprintf(text + k, sizeof text - k, "%s",
                 shape == 2 ? "x: 1, PushedFilters: [IsNotNull(a)], ReadSchema: struct<a:int>\n"
                            : "PushedFilters: [IsNotNull(a)], ReadSchema: struct<a:int>, Output: [a#1]\n");
        struct document *doc = tu_parse(text);
        const struct plan_node *n = plan_section_node(doc->first_plan->first_section, 0);
        ck_assert_uint_eq(n->n_details, 0);
        struct text_fields tf;
        text_fields_init(&tf, plan_node_text(n));
        for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
            struct slice want = node_field(n, keys[i]), got = text_fields_get(&tf, keys[i]);
            ck_assert_msg(got.ptr == want.ptr && got.len == want.len,
                          "pad %u shape %u %s: '%.*s' for '%.*s'", pad, shape, keys[i],
                          (int)got.len, got.ptr ? got.ptr : "", (int)want.len,
                          want.ptr ? want.ptr : "");
        }
        /* the key inside DataFilters comes first: node_field has always answered that */
        ck_assert(tu_slice_is(text_fields_get(&tf, "PushedFilters"), "[in]"));
        document_free(doc);
    }
    /* a last field at every place of a step, its value up to the end or empty */
    for (unsigned pad = 0; pad < 40; pad++) {
        char text[128];
        int len = snprintf(text, sizeof text, "%.*sa: b, Key: v", (int)pad,
                           "tttttttttttttttttttttttttttttttttttttttt");
        struct text_fields tf;
        text_fields_init(&tf, slice_make(text, (size_t)len));
        ck_assert_msg(tu_slice_is(text_fields_get(&tf, "Key"), "v"), "pad %u", pad);
        text_fields_init(&tf, slice_make(text, (size_t)len - 1)); /* "...Key: " */
        struct slice v = text_fields_get(&tf, "Key");
        ck_assert_msg(v.ptr == text + len - 1 && v.len == 0, "pad %u", pad);
        ck_assert_ptr_null(text_fields_get(&tf, "ey").ptr); /* no word boundary */
    }
}
END_TEST

/* The look for "partition" tests 16 starts a step for its first and last letters: a name
 * at every place of a step and of the starts left after the last step, after words that
 * hold the letters or the word but are no name, in the node's text and in a details block. */
START_TEST(exchange_partitionings_are_found_wherever_they_fall)
{
    static const struct {
        const char *name, *want;
    } names[] = {
        {"hashpartitioning(a#1, 200), ENSURE_REQUIREMENTS", "hashpartitioning(a#1, 200)"},
        {"SinglePartition", "SinglePartition"},
        {"RoundRobinPartitioning(8)", "RoundRobinPartitioning(8)"},
    };
    for (unsigned run = 0; run < 3 * 40 * 2; run++) {
        unsigned pad = run % 40, k = run / 40 % 3;
        bool formatted = run / 120;
        char text[1024];
        if (formatted)
            snprintf(text, sizeof text,
                     "== Physical Plan ==\n"
                     "Exchange (2)\n"
                     "+- LocalTableScan (1)\n\n\n"
                     "(1) LocalTableScan\n"
                     "Output [1]: [p#1]\n\n"
                     "(2) Exchange\n"
                     "Input [1]: [p#1]\n"
                     "Arguments: %.*s partition_id#1 Partitioned pan %s\n",
                     (int)pad, "pppppppppppppppppppppppppppppppppppppppp", names[k].name);
        else
            snprintf(text, sizeof text,
                     "== Physical Plan ==\n"
                     "Exchange %.*s partition_id#1 Partitioned pan %s\n"
                     "+- LocalTableScan [p#1]\n",
                     (int)pad, "pppppppppppppppppppppppppppppppppppppppp", names[k].name);
        struct document *doc = tu_parse(text);
        const struct plan_section *sec = doc->first_plan->first_section;
        const struct plan_node *n = plan_section_node(sec, 0);
        enum partitioning_kind kind = PART_UNKNOWN;
        struct slice p = node_partitioning(n, &kind);
        ck_assert_msg(tu_slice_is(p, names[k].want), "pad %u name %u formatted %d: '%.*s'", pad, k,
                      formatted, (int)p.len, p.ptr ? p.ptr : "");
        document_free(doc);
    }
}
END_TEST

/* A formatted plan with n subqueries, each one Scan: the lint and the summary read every
 * section once, so 60,000 of them take a second, not the minutes a pass over every section
 * for each section took (the tcase's timeout fails a quadratic pass). */
static char *many_subqueries(unsigned n, size_t *len)
{
    size_t cap = 256 + (size_t)n * 160, k = 0;
    char *t = malloc(cap);
    ck_assert_ptr_nonnull(t);
    k += (size_t)snprintf(t + k, cap - k,
                          "== Physical Plan ==\n* Project (2)\n+- Scan parquet t (1)\n\n\n"
                          "(1) Scan parquet t\nOutput [1]: [a#1]\n\n"
                          "(2) Project [codegen id : 1]\nOutput [1]: [a#1]\n\n"
                          "===== Subqueries =====\n\n");
    for (unsigned i = 0; i < n; i++)
        k += (size_t)snprintf(t + k, cap - k,
                              "Subquery:%u Hosting operator id = 2 Hosting Expression = "
                              "Subquery scalar-subquery#%u\nScan parquet s%u (%u)\n\n\n",
                              i + 1, i + 10, i, i + 3);
    *len = k;
    return t;
}

START_TEST(lint_and_summary_stay_linear_in_the_number_of_subqueries)
{
    size_t len;
    char *text = many_subqueries(60000, &len);
    struct document *doc = NULL;
    ck_assert_int_eq(tu_try_parse(text, len, &doc), SP_OK);
    size_t sections = 0;
    for (const struct plan_section *s = doc->first_plan->first_section; s; s = s->next)
        sections++;
    ck_assert_uint_eq(sections, 60001);
    struct analysis *a = NULL;
    struct diag err = {0};
    ck_assert_int_eq(analyze_document(doc, &a, &err), SP_OK);
    ck_assert_uint_eq(a->summary.n_nodes, 60002);
    analysis_free(a);
    document_free(doc);
    free(text);
}
END_TEST

START_TEST(a_needle_is_found_at_every_offset_as_a_plain_search_finds_it)
{
    /* The node-text search tests 16 starts a step on the needle's two ends: a match at each
     * offset of the step, across a step's end, near the hay's end, and look-alikes. */
    char hay[200];
    for (size_t i = 0; i < sizeof hay; i++)
        hay[i] = " ab"[(i * 5 + i / 7) % 3];
    static const char *const needles[] = {"a", "b ", " more field", "ab a", "aa", " ", "zz", "b"};
    for (size_t k = 0; k < sizeof needles / sizeof needles[0]; k++) {
        size_t n = strlen(needles[k]);
        for (size_t at = 0; at + n <= sizeof hay; at += 3) {
            char h[200];
            memcpy(h, hay, sizeof h);
            memcpy(h + at, needles[k], n);
            for (size_t len = at + n; len <= sizeof h; len += 37) {
                for (size_t from = 0; from < 40 && from <= len; from += 13) {
                    long want = -1;
                    for (size_t i = from; i + n <= len && want < 0; i++)
                        if (memcmp(h + i, needles[k], n) == 0)
                            want = (long)i;
                    long got = slice_find_in(slice_make(h, len), needles[k], from);
                    ck_assert_msg(got == want, "\"%s\" at %zu in %zu from %zu: %ld, not %ld",
                                  needles[k], at, len, from, got, want);
                }
            }
        }
    }
}
END_TEST

/* The name caches' short keys (namekey_short: two overlapping 4-byte loads from 4 bytes on)
 * make the byte loop's word, whatever lies around the key, and namekey_same tells keys that
 * differ in any one byte. */
START_TEST(short_name_keys_make_the_byte_loops_word_and_differ_by_any_byte)
{
    char buf[32];
    for (size_t i = 0; i < sizeof buf; i++)
        buf[i] = (char)(0xA5 ^ (i * 37)); /* bytes around the key that are not the key's */
    for (size_t n = 0; n < 8; n++) {
        const char *p = buf + 12;
        uint64_t loop = 0;
        for (size_t i = 0; i < n; i++)
            loop |= (uint64_t)(unsigned char)p[i] << (8 * i);
        ck_assert_uint_eq(namekey_short(p, n), loop);
        char a[8], b[8];
        memcpy(a, p, n);
        memcpy(b, p, n);
        ck_assert(namekey_same(a, b, n));
        ck_assert_uint_eq(namekey_hash(slice_make(a, n)), namekey_hash(slice_make(b, n)));
        for (size_t i = 0; i < n; i++) {
            memcpy(b, p, n);
            b[i] ^= 0x20;
            ck_assert(!namekey_same(a, b, n));
        }
    }
}
END_TEST

/* op_counter counts joins by strategy only: their names (op_summary's joins, read for the
 * explorer's header line) cost a look at each join's text the summary never shows. */
START_TEST(the_counter_counts_joins_by_strategy_without_their_names)
{
    struct document *doc = tu_parse("== Physical Plan ==\n"
                                    "*(3) SortMergeJoin [a#1], [b#2], Inner\n"
                                    ":- *(1) Sort [a#1 ASC NULLS FIRST], false, 0\n"
                                    ":  +- Exchange hashpartitioning(a#1, 200)\n"
                                    ":     +- *(1) Scan ExistingRDD[a#1]\n"
                                    "+- *(2) Sort [b#2 ASC NULLS FIRST], false, 0\n"
                                    "   +- Exchange hashpartitioning(b#2, 200)\n"
                                    "      +- *(2) Scan ExistingRDD[b#2]\n");
    const struct plan_section *s = doc->first_plan->first_section;
    struct op_summary want;
    ck_assert(op_summary_compute(&want, s, 0, s->n_nodes));
    ck_assert_uint_eq(want.n_join_kinds, 1);
    struct op_counter k = {0};
    for (uint32_t i = 0; i < s->n_nodes; i++)
        op_counter_node(&k, plan_section_node(s, i));
    ck_assert(op_counter_finish(&k));
    ck_assert_uint_eq(k.sum.join_strategies[JOIN_SORT_MERGE], 1);
    ck_assert_mem_eq(k.sum.join_strategies, want.join_strategies, sizeof want.join_strategies);
    ck_assert_uint_eq(k.sum.n_join_kinds, 0);
    ck_assert_uint_eq(k.sum.nodes, want.nodes);
    document_free(doc);
}
END_TEST

/* A details field's value as node_field gives it: most need nothing done (strip_count_prefix
 * answers those inline); a blank or a ':' in front, or a "[N]:" count, are still taken off. */
START_TEST(details_values_keep_their_stripping_where_they_need_it)
{
    struct document *doc = tu_parse("== Physical Plan ==\n"
                                    "* ColumnarToRow (2)\n"
                                    "+- Scan parquet db.t (1)\n"
                                    "\n\n"
                                    "(1) Scan parquet db.t\n"
                                    "Output [2]: [a#1, b#2]\n"
                                    "Batched: true\n"
                                    "Spaced:   [x]\n"
                                    "Tabbed: \t[y]\n"
                                    "Colon: : [z]\n"
                                    "Counted: [3]: [w]\n"
                                    "Bracket: [4x]\n"
                                    "ReadSchema: struct<a:int,b:int>\n"
                                    "\n"
                                    "(2) ColumnarToRow [codegen id : 1]\n"
                                    "Input [2]: [a#1, b#2]\n");
    const struct plan_section *s = doc->first_plan->first_section;
    const struct plan_node *scan = NULL;
    for (uint32_t i = 0; i < s->n_nodes; i++)
        if (plan_section_node(s, i)->n_details && plan_section_node(s, i)->id == 1)
            scan = plan_section_node(s, i);
    ck_assert_ptr_nonnull(scan);
    static const char *const want[][2] = {
        {"Output", "[a#1, b#2]"}, {"Batched", "true"}, {"Spaced", "[x]"}, {"Tabbed", "[y]"},
        {"Colon", "[z]"}, {"Counted", "[w]"}, {"Bracket", "[4x]"},
        {"ReadSchema", "struct<a:int,b:int>"},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        struct slice v = node_field(scan, want[i][0]);
        ck_assert_msg(slice_eq_cstr(v, want[i][1]), "%s: \"%.*s\"", want[i][0], (int)v.len, v.ptr);
    }
    document_free(doc);
}
END_TEST

/* node_table_name's word ends at a blank, [ ( or , wherever it falls: 16 bytes a step or in
 * the last 15 bytes of the text, and at the text's end when there is no such byte. */
START_TEST(table_names_end_at_every_stop_byte_wherever_it_falls)
{
    static const char *const after[] = {"[a#1] Batched: true, Format: Parquet, ReadSchema: struct<a:int>",
                                        " Batched: true, Format: Parquet, ReadSchema: struct<a:int>",
                                        "(a#1) Batched: true, Format: Parquet, ReadSchema: struct<a:int>",
                                        ",a#1 Batched: true, Format: Parquet, ReadSchema: struct<a:int>",
                                        "[a]", " x", "(a)", ",a", ""};
    for (size_t k = 0; k < sizeof after / sizeof after[0]; k++)
        for (size_t len = 1; len <= 40; len++) {
            char name[64], text[512];
            for (size_t j = 0; j < len; j++)
                name[j] = (char)('a' + (char)(j % 26));
            name[len] = '\0';
            snprintf(text, sizeof text,
                     "== Physical Plan ==\n*(1) Project [a#1]\n+- FileScan parquet db.%s%s\n", name,
                     after[k]);
            struct document *doc = tu_parse(text);
            const struct plan_section *s = doc->first_plan->first_section;
            const struct plan_node *scan = NULL;
            for (uint32_t i = 0; i < s->n_nodes; i++)
                if (slice_starts_with(plan_node_text(plan_section_node(s, i)), "FileScan"))
                    scan = plan_section_node(s, i);
            ck_assert_ptr_nonnull(scan);
            struct slice t = node_table_name(scan);
            ck_assert_msg(t.len == len + 3 && memcmp(t.ptr, "db.", 3) == 0 &&
                              memcmp(t.ptr + 3, name, len) == 0,
                          "after \"%s\", %zu bytes: \"%.*s\"", after[k], len, (int)t.len, t.ptr);
            document_free(doc);
        }
}
END_TEST

/* ---- one look for what several rules read (the sumcut round) ---------------------------- */

static bool same_slice(struct slice a, struct slice b)
{
    return a.len == b.len && (a.len == 0 ? (a.ptr == NULL) == (b.ptr == NULL) : a.ptr == b.ptr);
}

/* What the analysis now finds once, node by node, against the functions it stood for:
 * node_detail_fields against node_detail_field key by key, node_field_outside against
 * node_field for a key the block lacks, node_table_name_op's operator against
 * catalog_operator_name of the text, node_partitioning_kind against node_partitioning;
 * and each summary scan's operator against catalog_operator_name of the scan's name. */
/* plan_node_detail_values against plan_details_next, the field reader it stands for: for
 * the node's own keys (the last one first, so a walk that stops early is seen), the same
 * keys twice, and a key the block lacks: the first field of each key, its value as long as
 * the reader makes it (a value printed over several lines runs on). */
static void expect_detail_values_agree(const char *what, const struct plan_node *n)
{
    enum { MAX = 9 };
    const char *keys[MAX];
    size_t klen[MAX], k = 0;
    char names[MAX][64];
    struct plan_details it;
    struct plan_detail d;
    plan_details_init(&it, n);
    while (plan_details_next(&it, &d) && k < MAX - 1)
        if (d.key.len < sizeof names[0]) {
            memcpy(names[k], d.key.ptr, d.key.len);
            names[k][d.key.len] = '\0';
            keys[k] = names[k];
            klen[k] = d.key.len;
            k++;
        }
    for (size_t a = 0, b = k ? k - 1 : 0; a < b; a++, b--) { /* the last key first */
        const char *t = keys[a];
        keys[a] = keys[b];
        keys[b] = t;
        size_t tl = klen[a];
        klen[a] = klen[b];
        klen[b] = tl;
    }
    keys[k] = "NoSuchKey";
    klen[k] = 9;
    k++;
    for (int twice = 0; twice < 2; twice++) {
        size_t nk = twice ? (k > 1 ? 2 : 1) : k;
        const char *kk[MAX];
        size_t kl[MAX];
        for (size_t j = 0; j < nk; j++) {
            kk[j] = keys[twice ? 0 : j]; /* twice: the first key two times */
            kl[j] = klen[twice ? 0 : j];
        }
        struct slice got[MAX], want[MAX];
        unsigned found = plan_node_detail_values(n, nk, kk, kl, got), expect = 0;
        for (size_t j = 0; j < nk; j++)
            want[j] = slice_make(NULL, 0);
        plan_details_init(&it, n);
        while (plan_details_next(&it, &d))
            for (size_t j = 0; j < nk; j++)
                if (!(expect >> j & 1) && d.key.len == kl[j] && memcmp(d.key.ptr, kk[j], kl[j]) == 0) {
                    want[j] = d.value;
                    expect |= 1u << j;
                    break;
                }
        ck_assert_msg(found == expect, "%s: line %u: keys found %x, the reader's %x", what,
                      n->line, found, expect);
        for (size_t j = 0; j < nk; j++)
            ck_assert_msg(same_slice(got[j], want[j]), "%s: line %u: %s is \"%.*s\", not \"%.*s\"",
                          what, n->line, kk[j], (int)got[j].len, got[j].ptr ? got[j].ptr : "",
                          (int)want[j].len, want[j].ptr ? want[j].ptr : "");
    }
}

/* text_fields_get_counted against text_fields_get_n, node_list_count and
 * node_schema_field_count, the three looks it stands for, for the keys a scan's line has.
 * Returns how many counts it gave (not COUNT_NOT_KNOWN). */
static size_t expect_counted_fields_agree(const char *what, struct slice text)
{
    static const char *const keys[] = {"PushedFilters", "PartitionFilters", "ReadSchema",
                                       "DataFilters", "Output", "Location", "Format"};
    struct text_fields tf;
    text_fields_init(&tf, text);
    size_t known = 0;
    for (size_t j = 0; j < sizeof keys / sizeof keys[0]; j++) {
        long lc, sc;
        struct slice v = text_fields_get_counted(&tf, keys[j], strlen(keys[j]), &lc, &sc);
        struct slice want = text_fields_get(&tf, keys[j]);
        ck_assert_msg(same_slice(v, want), "%s: %s", what, keys[j]);
        ck_assert_msg((lc == COUNT_NOT_KNOWN) == (sc == COUNT_NOT_KNOWN), "%s: %s", what, keys[j]);
        if (lc == COUNT_NOT_KNOWN)
            continue;
        known++;
        ck_assert_msg(lc == node_list_count(v) && sc == node_schema_field_count(v),
                      "%s: %s \"%.*s\": counted %ld and %ld, not %ld and %ld", what, keys[j],
                      (int)v.len, v.ptr, lc, sc, node_list_count(v), node_schema_field_count(v));
    }
    return known;
}

START_TEST(a_value_counted_as_it_is_found_is_what_the_counts_say)
{
    static const char *const lines[] = {
        "FileScan parquet t[a#1,b#2] Batched: true, DataFilters: [isnotnull(a#1)], Format: "
        "Parquet, PartitionFilters: [], PushedFilters: [IsNotNull(a), In(b, [1,2,3])], "
        "ReadSchema: struct<a:int,b:map<string,array<int>>,c:decimal(7,2)>",
        "FileScan csv t[a#1] PushedFilters: [{x, y}, EqualTo(a,1), ... 4 more fields], "
        "ReadSchema: struct<>",
        "FileScan orc t[a#1] PushedFilters: [ , a, ], ReadSchema: struct<a:int)",
        "FileScan orc t[a#1] PushedFilters:  [a, b], ReadSchema: struct<a:int,b:int",
        "FileScan orc t[a#1] PartitionFilters: [isnotnull(p#3), (p#3 = 1)], PushedFilters: [a, (b",
        "FileScan json t[a#1] PushedFilters: None, ReadSchema: struct<a:struct<x:int,y:int>,b:int>",
    };
    size_t known = 0;
    for (size_t k = 0; k < sizeof lines / sizeof lines[0]; k++)
        known += expect_counted_fields_agree(lines[k], slice_cstr(lines[k]));
    ck_assert_uint_ge(known, 10); /* the walk's counts, not only the looks they stand for */
}
END_TEST

static void expect_one_look_agrees(const char *what, struct document *doc)
{
    static const char *const keys[] = {"PushedFilters", "PartitionFilters", "ReadSchema",
                                       "Output", "Location"};
    for (size_t i = 0; i < doc->n_all_nodes; i++) {
        const struct plan_node *n = document_node(doc, i);
        if (n->n_details)
            expect_detail_values_agree(what, n);
        else
            expect_counted_fields_agree(what, plan_node_text(n));
        struct slice v[5];
        unsigned got = node_detail_fields(n, 5, keys, v);
        for (size_t j = 0; j < 5; j++) {
            struct slice one = node_detail_field(n, keys[j]);
            ck_assert_msg(same_slice(v[j], one) && (got >> j & 1) == (one.ptr != NULL),
                          "%s: line %u, %s", what, n->line, keys[j]);
            if (!(got >> j & 1))
                ck_assert_msg(same_slice(node_field_outside(n, keys[j]), node_field(n, keys[j])),
                              "%s: line %u, %s outside the block", what, n->line, keys[j]);
        }
        struct slice op;
        struct slice table = node_table_name_op(n, &op);
        ck_assert_msg(same_slice(table, node_table_name(n)) &&
                          same_slice(op, catalog_operator_name(plan_node_text(n))),
                      "%s: line %u, table and operator", what, n->line);
        enum partitioning_kind k = PART_UNKNOWN;
        node_partitioning(n, &k);
        ck_assert_msg(node_partitioning_kind(n) == k, "%s: line %u, partitioning", what, n->line);
    }
    struct analysis *a;
    struct diag err = {0};
    ck_assert_int_eq(analyze_document_counts(doc, &a, &err), SP_OK);
    for (size_t i = 0; i < a->summary.n_scans; i++) {
        const struct scan_info *sc = &a->summary.scans[i];
        struct slice named = plan_node_name(sc->node).len ? plan_node_name(sc->node)
                                                          : plan_node_text(sc->node);
        struct slice want = catalog_operator_name(named), op = scan_info_op(sc);
        ck_assert_msg(op.len == want.len && (!op.len || op.ptr == want.ptr),
                      "%s: scan on line %u: \"%.*s\" for \"%.*s\"", what, sc->node->line,
                      (int)op.len, op.ptr, (int)want.len, want.ptr);
    }
    analysis_free(a);
}

static void one_look_agrees(const char *path, struct document *doc)
{
    expect_one_look_agrees(path, doc);
}

START_TEST(what_is_found_once_is_what_each_look_found_on_the_corpus)
{
    size_t n;
    if (tu_each_corpus_plan("what_is_found_once_is_what_each_look_found_on_the_corpus",
                            one_look_agrees, &n))
        ck_assert_uint_gt(n, 100);
}
END_TEST

/* A formatted scan's fields found with one split of its block: a key given twice is its
 * first field, a key only inside another field's value is found there (outside the block's
 * fields), a missing list reads "[]" when the block has a ReadSchema and is unknown when it
 * has none; the filter over the scan reads the same fields (the same counts and finding). */
START_TEST(a_scan_s_fields_split_once_are_node_field_s)
{
    static const struct {
        const char *block;
        int pushed, partition; /* the summary's counts, -1 unknown */
        size_t filter_warns;
    } cases[] = {
        {"PushedFilters: [IsNotNull(a)]\nPushedFilters: [EqualTo(a,1), IsNotNull(a)]\n"
         "ReadSchema: struct<a:int>\n", 1, 0, 0},
        {"PushedFilters: []\nPushedFilters: [IsNotNull(a)]\nReadSchema: struct<a:int>\n", 0, 0, 1},
        {"Location: InMemoryFileIndex PushedFilters: [IsNotNull(a), IsNotNull(b)]\n"
         "ReadSchema: struct<a:int>\n", 2, 0, 0},
        {"ReadSchema: struct<a:int>\n", 0, 0, 1},
        {"Batched: true\n", -1, -1, 0},
        {"PartitionFilters: [isnotnull(p#2)]\nPartitionFilters: []\nReadSchema: struct<a:int>\n",
         0, 1, 1},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char text[2048];
        snprintf(text, sizeof text,
                 "== Physical Plan ==\n"
                 "* Filter (3)\n"
                 "+- * ColumnarToRow (2)\n"
                 "   +- Scan parquet db.t (1)\n"
                 "\n\n"
                 "(1) Scan parquet db.t\n"
                 "Output [2]: [a#1, p#2]\n"
                 "%s"
                 "\n"
                 "(2) ColumnarToRow [codegen id : 1]\n"
                 "Input [2]: [a#1, p#2]\n"
                 "\n"
                 "(3) Filter [codegen id : 1]\n"
                 "Input [2]: [a#1, p#2]\n"
                 "Condition : (a#1 > 1)\n",
                 cases[k].block);
        struct linted l = lint(text);
        ck_assert_uint_eq(l.a->summary.n_scans, 1);
        const struct scan_info *sc = &l.a->summary.scans[0];
        ck_assert_msg(sc->pushed_filters == cases[k].pushed &&
                          sc->partition_filters == cases[k].partition,
                      "case %zu: pushed %d, partition filters %d", k, (int)sc->pushed_filters,
                      (int)sc->partition_filters);
        ck_assert_msg(count(&l, RULE_FILTER_NOT_PUSHED, NULL) == cases[k].filter_warns,
                      "case %zu: SP020", k);
        expect_one_look_agrees(text, l.doc);
        done(&l);
    }
}
END_TEST

/* A block's fields read in one walk (plan_node_detail_values): a value printed over several
 * lines runs on to its last line, a short field line (under the memo's 16 bytes) and a
 * rewritten Location are read as the parser reads them, and a second plan with the same
 * field lines (the memo knows them) gives its own values. */
START_TEST(a_block_s_values_read_in_one_walk_are_the_reader_s)
{
    static const char *const keys[] = {"PushedFilters", "ReadSchema", "Batched", "Arguments"};
    static const size_t klen[] = {13, 10, 7, 9};
    for (int round = 0; round < 2; round++) {
        struct linted l = lint(round == 0 ? "== Physical Plan ==\n"
                                            "Scan parquet db.t (1)\n"
                                            "\n\n"
                                            "(1) Scan parquet db.t\n"
                                            "Output [2]: [a#1, p#2]\n"
                                            "Batched: true\n"
                                            "Location [not included in comparison]/{dir}/t]\n"
                                            "PushedFilters: [IsNotNull(a), GreaterThan(a,1),\n"
                                            "IsNotNull(p)]\n"
                                            "ReadSchema: struct<a:int>\n"
                                            "Arguments: x\n"
                                            "y and more\n"
                                          : "== Physical Plan ==\n"
                                            "Scan parquet db.u (1)\n"
                                            "\n\n"
                                            "(1) Scan parquet db.u\n"
                                            "Output [2]: [b#3, q#4]\n"
                                            "Batched: false\n"
                                            "PushedFilters: [IsNull(b)]\n"
                                            "ReadSchema: struct<b:bigint>\n"
                                            "Arguments: z\n");
        const struct plan_node *scan = document_node(l.doc, 0);
        struct slice v[4];
        unsigned found = plan_node_detail_values(scan, 4, keys, klen, v);
        ck_assert_uint_eq(found, 15);
        ck_assert(slice_eq_cstr(v[0], round == 0 ? "[IsNotNull(a), GreaterThan(a,1),\nIsNotNull(p)]"
                                                 : "[IsNull(b)]"));
        ck_assert(slice_eq_cstr(v[1], round == 0 ? "struct<a:int>" : "struct<b:bigint>"));
        ck_assert(slice_eq_cstr(v[2], round == 0 ? "true" : "false"));
        ck_assert(slice_eq_cstr(v[3], round == 0 ? "x\ny and more" : "z"));
        expect_one_look_agrees("a block read in one walk", l.doc);
        done(&l);
    }
}
END_TEST

/* Two filters over two scans: each reads its own scan's fields (kept for the scan's rule
 * a node or two on), not the last scan's. */
START_TEST(each_filter_reads_its_own_scan_s_fields)
{
    struct linted l = lint(
        "== Physical Plan ==\n"
        "Union\n"
        ":- *(1) Filter (a#1 > 1)\n"
        ":  +- *(1) ColumnarToRow\n"
        ":     +- FileScan parquet db.t[a#1] Batched: true, DataFilters: [], Format: Parquet, PartitionFilters: [], PushedFilters: [], ReadSchema: struct<a:int>\n"
        ":- *(2) Filter (b#2 > 1)\n"
        ":  +- *(2) ColumnarToRow\n"
        ":     +- FileScan parquet db.u[b#2] Batched: true, DataFilters: [], Format: Parquet, PartitionFilters: [], PushedFilters: [GreaterThan(b,1)], ReadSchema: struct<b:int>\n"
        "+- *(3) Filter (c#3 > 1)\n"
        "   +- *(3) ColumnarToRow\n"
        "      +- FileScan parquet db.v[c#3] Batched: true, DataFilters: [], Format: Parquet, PartitionFilters: [], PushedFilters: [], ReadSchema: struct<c:int>\n");
    ck_assert_uint_eq(count(&l, RULE_FILTER_NOT_PUSHED, NULL), 2);
    ck_assert_uint_eq(l.a->summary.n_scans, 3);
    ck_assert_int_eq(l.a->summary.scans[0].pushed_filters, 0);
    ck_assert_int_eq(l.a->summary.scans[1].pushed_filters, 1);
    ck_assert_int_eq(l.a->summary.scans[2].pushed_filters, 0);
    ck_assert(message_has(&l, RULE_FILTER_NOT_PUSHED, "of db.t") &&
              message_has(&l, RULE_FILTER_NOT_PUSHED, "of db.v"));
    done(&l);
}
END_TEST

/* The structural bytes walked with the mask kept are slice_next_structural's, from every
 * start of slices of 0 to 48 bytes (the 16-byte steps, the last overlapping one, the byte
 * loop under 16). */
START_TEST(a_structural_walk_gives_what_slice_next_structural_gives)
{
    static const char pool[] = "[]()<>{},ab ,#:";
    unsigned seed = 17;
    char buf[64];
    for (size_t len = 0; len <= 48; len++)
        for (int round = 0; round < 40; round++) {
            for (size_t i = 0; i < len; i++) {
                seed = seed * 1103515245u + 12345u;
                buf[i] = pool[(seed >> 16) % (sizeof pool - 1)];
            }
            struct slice s = slice_make(buf, len);
            for (size_t from = 0; from <= len + 1; from++) {
                struct structural_walk w;
                structural_walk_init(&w, s, from);
                size_t want = slice_next_structural(s, from);
                for (;;) { /* bound: the slice's structural bytes */
                    size_t got = structural_walk_next(&w);
                    ck_assert_msg(got == want, "len %zu from %zu: %zu, want %zu", len, from, got,
                                  want);
                    if (want >= len)
                        break;
                    want = slice_next_structural(s, want + 1);
                }
            }
        }
}
END_TEST

/* The partition columns a scan's message names are the output columns ReadSchema does not
 * list as "<name:" or ",name:", whatever their order: the columns are compared with the
 * schema's fields in turn first (a type's own comma, "decimal(7,2)", skipped), and a column
 * that is not the next field is looked for through the whole schema (a prefix of the next
 * field's name, a field of a nested struct, a column before the one compared). */
START_TEST(partition_columns_are_the_output_columns_the_schema_does_not_list)
{
    static const struct {
        const char *output, *schema, *partitioned;
    } cases[] = {
        {"[a#1,d#2,p#3,q#4]", "struct<a:int,d:decimal(7,2)>", "p, q"},
        {"[b#1,a#2,p#3]", "struct<a:int,b:int>", "p"},
        {"[a#1,p#2,ab#3]", "struct<ab:int,a:int>", "p"},
        {"[x#1,p#2]", "struct<s:struct<x:int>>", "p"},
        {"[p#1,a#2,b#3]", "struct<a:int,b:array<int>>", "p"},
        {"[a#1,b#2,c#3,p#4]", "struct<a:int,b:map<string,int>,c:int>", "p"},
        {"[a#1,q#2,b#3]", "struct<a:int,b:int>", "q"},
        {"[a#1,p#2]", "struct<ab:int>", "a, p"},
        {"[a#1,d#2,b#3,p#4]", "struct<a:int,d:decimal(7,2),b:int>", "p"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char text[1024];
        snprintf(text, sizeof text,
                 "== Physical Plan ==\n"
                 "*(1) ColumnarToRow\n"
                 "+- FileScan parquet db.t%s Batched: true, DataFilters: [], Format: Parquet, "
                 "Location: InMemoryFileIndex(1 paths)[file:/w/t], PartitionFilters: [], "
                 "PushedFilters: [], ReadSchema: %s\n",
                 cases[k].output, cases[k].schema);
        struct linted l = lint(text);
        char want[64];
        snprintf(want, sizeof want, "(partitioned by %s)", cases[k].partitioned);
        const struct finding *f = first_of(&l, RULE_ALL_PARTITIONS);
        ck_assert_msg(f != NULL, "case %zu: no SP023", k);
        ck_assert_msg(strstr(f->message, want) != NULL, "case %zu: %s", k, f->message);
        done(&l);
    }
    /* every column stored, in order: no partition column, no SP023 */
    struct linted l = lint("== Physical Plan ==\n"
                           "*(1) ColumnarToRow\n"
                           "+- FileScan parquet db.t[a#1,d#2,b#3] Batched: true, DataFilters: [], "
                           "Format: Parquet, Location: InMemoryFileIndex(1 paths)[file:/w/t], "
                           "PartitionFilters: [], PushedFilters: [], "
                           "ReadSchema: struct<a:int,d:decimal(7,2),b:string>\n");
    ck_assert_uint_eq(count(&l, RULE_ALL_PARTITIONS, NULL), 0);
    done(&l);
}
END_TEST

/* Findings the rule pass adds out of order (on one scan: SP023 before SP022) are still
 * sorted by line and rule; findings already in order are kept in the order they came. */
START_TEST(findings_added_out_of_order_are_sorted_by_line_and_rule)
{
    static const char text[] =
        "== Analyzed Logical Plan ==\n"
        "a: int, p: int\n"
        "Project [a#1, p#2]\n"
        "+- Relation spark_catalog.default.parts[a#1,p#2] parquet\n"
        "\n"
        "== Physical Plan ==\n"
        "*(1) ColumnarToRow\n"
        "+- FileScan parquet spark_catalog.default.parts[a#1,p#2] Batched: true, DataFilters: [], Format: Parquet, Location: InMemoryFileIndex(1 paths)[file:/w/parts], PartitionFilters: [], PushedFilters: [], ReadSchema: struct<a:int>\n";
    for (int mode = 0; mode < 2; mode++) {
        struct document *doc = tu_parse(text);
        struct analysis *a;
        struct diag err = {0};
        ck_assert_int_eq(mode ? analyze_document_counts(doc, &a, &err)
                              : analyze_document(doc, &a, &err),
                         SP_OK);
        bool all = false, reads = false;
        for (size_t i = 0; i < a->n_findings; i++) {
            all = all || a->findings[i].rule == RULE_ALL_PARTITIONS;
            reads = reads || a->findings[i].rule == RULE_READS_ALL_COLUMNS;
            if (i)
                ck_assert_msg(a->findings[i - 1].line < a->findings[i].line ||
                                  (a->findings[i - 1].line == a->findings[i].line &&
                                   a->findings[i - 1].rule <= a->findings[i].rule),
                              "mode %d: finding %zu out of order", mode, i);
        }
        ck_assert(all && reads);
        analysis_free(a);
        document_free(doc);
    }
}
END_TEST

/* node_list_count with blanks, line breaks and elided fields around its elements, and a
 * list with blanks after it: each element's weight as before. */
/* ---- one look-up a node (the sum8 round) ---------------------------------------------------- */

/* The facts the node pass keeps (op_node_facts) count a node as op_counter_node does and
 * name its entry as node_entry does, node by node, section by section. */
static void expect_facts_count_alike(const char *what, struct document *doc)
{
    for (const struct plan *pl = doc->first_plan; pl; pl = pl->next)
        for (const struct plan_section *s = pl->first_section; s; s = s->next) {
            struct op_counter by_facts = {0}, by_look = {0};
            for (uint32_t i = 0; i < s->n_nodes; i++) {
                const struct plan_node *n = plan_section_node(s, i);
                uint32_t f = op_node_facts(n);
                ck_assert_msg((f == 0) == ((n->flags & NODE_LABEL) != 0), "%s: line %u, facts",
                              what, n->line);
                if (f)
                    ck_assert_msg(op_facts_entry(f) == node_entry(n), "%s: line %u, entry", what,
                                  n->line);
                ck_assert_msg(op_counter_node_facts(&by_facts, n, f) == op_counter_node(&by_look, n),
                              "%s: line %u, counted entry", what, n->line);
            }
            ck_assert(op_counter_finish(&by_facts));
            ck_assert(op_counter_finish(&by_look));
            ck_assert_msg(by_facts.sum.nodes == by_look.sum.nodes &&
                              by_facts.sum.shuffles == by_look.sum.shuffles &&
                              by_facts.sum.broadcasts == by_look.sum.broadcasts &&
                              by_facts.sum.reused == by_look.sum.reused &&
                              by_facts.sum.stages == by_look.sum.stages &&
                              memcmp(by_facts.sum.join_strategies, by_look.sum.join_strategies,
                                     sizeof by_look.sum.join_strategies) == 0,
                          "%s: section on line %u, counts", what, s->line);
        }
}

START_TEST(the_node_pass_s_facts_count_as_the_look_ups_do)
{
    /* a simplified tree's WholeStageCodegen nodes (stages without an id), reused exchanges
     * of both kinds (a class read off the node), a label, an unknown name, a plugin join */
    struct document *doc = tu_parse(
        "== Physical Plan ==\n"
        "AdaptiveSparkPlan isFinalPlan=true\n"
        "+- == Final Plan ==\n"
        "   Project [a#1]\n"
        "   +- WholeStageCodegen\n"
        "      +- BroadcastHashJoin [a#1], [b#2], Inner, BuildRight, false\n"
        "         :- WholeStageCodegen\n"
        "         :  +- MysteryOperator [a#1]\n"
        "         :     +- ReusedExchange [a#1], Exchange hashpartitioning(a#1, 200)\n"
        "         +- ReusedExchange [b#2], BroadcastExchange HashedRelationBroadcastMode(List(input[0, int, true]),false)\n"
        "            +- CometHashJoin [b#2], [c#3], Inner, BuildRight\n"
        "               :- LocalTableScan [b#2]\n"
        "               +- LocalTableScan [c#3]\n");
    expect_facts_count_alike("hand-made plan", doc);
    document_free(doc);
    for (size_t p = 0; p < n_sample_files; p++) {
        doc = tu_parse(sample_files[p].data);
        expect_facts_count_alike(sample_files[p].name, doc);
        document_free(doc);
    }
    size_t n;
    if (tu_each_corpus_plan("the_node_pass_s_facts_count_as_the_look_ups_do",
                            expect_facts_count_alike, &n))
        ck_assert_uint_gt(n, 100);
}
END_TEST

/* A partitioning's name is compared eight bytes at a time before the byte loop: a name
 * whose word, "partition" or tail differs by any byte (the last one too) is no name,
 * capitals are. */
START_TEST(a_partitioning_name_differs_by_its_last_byte_and_not_by_case)
{
    struct document *doc = tu_parse(
        "== Physical Plan ==\n"
        "Union\n"
        ":- Exchange hashpartitiosing(a#1, 200), ENSURE_REQUIREMENTS\n"
        ":  +- LocalTableScan [a#1]\n"
        ":- Exchange HASHPARTITIONING(a#2, 200), ENSURE_REQUIREMENTS\n"
        ":  +- LocalTableScan [a#2]\n"
        ":- Exchange rangepartitioning[a#3, 200], ENSURE_REQUIREMENTS\n"
        ":  +- LocalTableScan [a#3]\n"
        ":- Exchange hasxpartitioning(a#5, 200), ENSURE_REQUIREMENTS\n"
        ":  +- LocalTableScan [a#5]\n"
        "+- Exchange singlepartition, ENSURE_REQUIREMENTS\n"
        "   +- LocalTableScan [a#4]\n");
    static const enum partitioning_kind want[] = {PART_UNKNOWN, PART_HASH, PART_UNKNOWN,
                                                  PART_UNKNOWN, PART_SINGLE};
    size_t k = 0;
    const struct plan_section *sec = doc->first_plan->first_section;
    for (uint32_t i = 0; i < sec->n_nodes; i++) {
        const struct plan_node *n = plan_section_node(sec, i);
        if (!tu_slice_is(plan_node_name(n), "Exchange"))
            continue;
        ck_assert_uint_lt(k, sizeof want / sizeof want[0]);
        enum partitioning_kind kind = PART_UNKNOWN;
        node_partitioning(n, &kind);
        ck_assert_msg(kind == want[k] && node_partitioning_kind(n) == want[k], "exchange %zu", k);
        k++;
    }
    ck_assert_uint_eq(k, sizeof want / sizeof want[0]);
    document_free(doc);
}
END_TEST

START_TEST(list_elements_are_weighed_with_their_blanks)
{
    static const struct {
        const char *list;
        long want;
    } cases[] = {
        {"[a, b, c]", 3}, {"[a,b]", 2}, {"[]", 0}, {"[ ]", 0}, {"[a, ]", 1}, {"[\ta,\t b]", 2},
        {"[a, ... 5 more fields]", 6}, {"[a,... 2 more fields]", 3}, {"[a, ...]", 2},
        {"[a, \n]", 1}, {"[a, \r\n]", 1}, {"[a, b]  ", 2}, {"  [a, b]", 2}, {"[a, b]\n", 2},
        {"[.x, b]", 2}, {"[ ... 3 more fields, a]", 4}, {"[a, [b, c], d]", 3}, {"x", -1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        ck_assert_msg(node_list_count(slice_cstr(cases[i].list)) == cases[i].want,
                      "\"%s\": %ld", cases[i].list, node_list_count(slice_cstr(cases[i].list)));
    ck_assert(node_list_is_empty(slice_cstr("[]  ")) && node_list_is_empty(slice_cstr(" []")) &&
              !node_list_is_empty(slice_cstr("[a]")));
}
END_TEST

Suite *analyze_suite(void)
{
    Suite *s = suite_create("analyze");
    TCase *tc = tcase_create("rules");
    tcase_add_test(tc, a_needle_is_found_at_every_offset_as_a_plain_search_finds_it);
    tcase_add_test(tc, short_name_keys_make_the_byte_loops_word_and_differ_by_any_byte);
    tcase_add_test(tc, the_counter_counts_joins_by_strategy_without_their_names);
    tcase_add_test(tc, details_values_keep_their_stripping_where_they_need_it);
    tcase_add_test(tc, table_names_end_at_every_stop_byte_wherever_it_falls);
    tcase_add_test(tc, what_is_found_once_is_what_each_look_found_on_the_corpus);
    tcase_add_test(tc, a_scan_s_fields_split_once_are_node_field_s);
    tcase_add_test(tc, a_block_s_values_read_in_one_walk_are_the_reader_s);
    tcase_add_test(tc, a_value_counted_as_it_is_found_is_what_the_counts_say);
    tcase_add_test(tc, each_filter_reads_its_own_scan_s_fields);
    tcase_add_test(tc, a_structural_walk_gives_what_slice_next_structural_gives);
    tcase_add_test(tc, findings_added_out_of_order_are_sorted_by_line_and_rule);
    tcase_add_test(tc, partition_columns_are_the_output_columns_the_schema_does_not_list);
    tcase_add_test(tc, the_node_pass_s_facts_count_as_the_look_ups_do);
    tcase_add_test(tc, a_partitioning_name_differs_by_its_last_byte_and_not_by_case);
    tcase_add_test(tc, marks_in_either_half_of_a_round_are_found_in_order);
    tcase_add_test(tc, a_hive_scan_reading_every_column_is_found_from_its_relation);
    tcase_add_test(tc, list_elements_are_weighed_with_their_blanks);
    tcase_add_test(tc, marks_deep_in_a_long_text_are_found_wherever_they_fall);
    tcase_add_test(tc, executor_side_broadcasts_are_told_from_shuffles_once);
    tcase_add_test(tc, lists_and_schemas_are_counted_to_their_closing_bracket);
    tcase_add_test(tc, every_exchange_is_counted_and_named_by_its_key);
    tcase_add_test(tc, single_partition_warns_for_a_window_without_partition_by_only);
    tcase_add_test(tc, broadcast_exchanges_are_counted_and_reuse_is_not_a_shuffle);
    tcase_add_test(tc, nested_loop_join_without_condition_warns_unless_one_side_is_one_row);
    tcase_add_test(tc, cartesian_product_is_found);
    tcase_add_test(tc, sort_merge_join_with_a_small_side_is_flagged_from_statistics);
    tcase_add_test(tc, large_broadcast_and_skew_are_reported);
    tcase_add_test(tc, filter_over_a_scan_without_pushed_filters_warns);
    tcase_add_test(tc, partition_filters_are_reported_as_good_news);
    tcase_add_test(tc, reading_every_column_is_information_only);
    tcase_add_test(tc, codegen_subtrees_repeating_a_physical_plan_are_not_linted_again);
    tcase_add_test(tc, an_initial_plan_replaced_by_aqe_raises_no_finding_of_its_own);
    tcase_add_test(tc, python_udfs_are_found_and_row_at_a_time_ones_warn);
    tcase_add_test(tc, aqe_draft_and_what_aqe_changed_are_reported);
    tcase_add_test(tc, cache_use_is_reported);
    tcase_add_test(tc, absurd_estimates_and_filters_that_do_not_reduce_are_reported);
    tcase_add_test(tc, truncated_lists_and_plans_are_reported_with_the_setting);
    tcase_add_test(tc, findings_are_ordered_by_line_and_found_by_node);
    tcase_add_test(tc, a_deep_chain_is_analysed_without_recursion);
    tcase_add_test(tc, header_and_summary_count_the_plan_that_runs_with_one_function);
    tcase_add_test(tc, an_analysis_on_a_thread_finds_the_same_and_stops_when_cancelled);
    tcase_add_test(tc, the_summary_pass_of_a_big_plan_stops_when_cancelled);
    tcase_add_test(tc, exchange_partitionings_are_read_in_any_case_with_a_glued_prefix);
    tcase_add_test(tc, two_threads_find_what_one_finds_in_the_same_order);
    tcase_add_test(tc, summary_scan_lines_on_two_threads_are_the_one_thread_lines);
    tcase_add_test(tc, counters_split_anywhere_and_merged_count_what_the_header_counts);
    tcase_add_test(tc, a_finding_past_the_cap_leaves_the_kept_ones_as_they_are);
    tcase_add_test(tc, a_partition_filters_key_inside_another_field_is_found_as_before);
    tcase_add_test(tc, a_scan_line_s_fields_are_found_as_node_field_finds_them);
    tcase_add_test(tc, exchange_partitionings_are_found_wherever_they_fall);
    suite_add_tcase(s, tc);
    TCase *linear = tcase_create("linear");
    tcase_set_timeout(linear, 20); /* quadratic: minutes */
    tcase_add_test(linear, lint_and_summary_stay_linear_in_the_number_of_subqueries);
    suite_add_tcase(s, linear);
    TCase *corpus = tcase_create("corpus");
    tcase_add_test(corpus, tpcds_ordinary_shuffles_raise_no_warning);
    tcase_add_test(corpus, two_threads_find_what_one_finds_on_the_corpus);
    tcase_add_test(corpus, every_nested_loop_cartesian_python_and_truncation_in_the_corpus_is_found);
    suite_add_tcase(s, corpus);
    return s;
}
