/* Event logs: Spark's metric formatting, the History Server's listener, the codecs and their
 * framings, log layouts, and a log written here read end to end (values computed by hand
 * from the events below). */
#include <check.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sparkplan/evapps.h"
#include "sparkplan/evemit.h"
#include "sparkplan/evload.h"
#include "sparkplan/evrows.h"
#include "sparkplan/evview.h"
#include "sparkplan/evsource.h"
#include "sparkplan/sqlmetric.h"
#include "jsonlint.h"
#include "testutil.h"

/* ---- MetricUtils.stringValue and its helpers ----------------------------------------------- */

static const char *bytes(int64_t v)
{
    static char buf[64];
    sqlm_bytes_string(v, buf, sizeof buf);
    return buf;
}

static const char *ms(int64_t v)
{
    static char buf[64];
    sqlm_ms_string(v, buf, sizeof buf);
    return buf;
}

START_TEST(bytes_print_like_utils_bytes_to_string)
{
    ck_assert_str_eq(bytes(0), "0.0 B");
    ck_assert_str_eq(bytes(100), "100.0 B");
    ck_assert_str_eq(bytes(2047), "2047.0 B");     /* a unit needs twice its size */
    ck_assert_str_eq(bytes(2048), "2.0 KiB");
    ck_assert_str_eq(bytes(2304), "2.3 KiB");      /* 2.25: BigDecimal HALF_UP, not printf's 2.2 */
    ck_assert_str_eq(bytes(1048576), "1024.0 KiB");
    ck_assert_str_eq(bytes(3LL << 30), "3.0 GiB");
    ck_assert_str_eq(bytes(INT64_MAX), "8.0 EiB");
}
END_TEST

START_TEST(durations_print_like_utils_ms_duration_to_string)
{
    ck_assert_str_eq(ms(0), "0 ms");
    ck_assert_str_eq(ms(999), "999 ms");
    ck_assert_str_eq(ms(1000), "1.0 s");
    ck_assert_str_eq(ms(1250), "1.3 s");   /* Java's %.1f rounds half up: 1.25 -> 1.3 */
    ck_assert_str_eq(ms(1050), "1.0 s");   /* 1.05f is 1.0499999523...: down */
    ck_assert_str_eq(ms(90000), "1.5 m");
    ck_assert_str_eq(ms(5400000), "1.50 h");
}
END_TEST

START_TEST(counts_are_grouped)
{
    char buf[32];
    sqlm_count_string(1234567, buf, sizeof buf);
    ck_assert_str_eq(buf, "1,234,567");
    sqlm_count_string(0, buf, sizeof buf);
    ck_assert_str_eq(buf, "0");
    sqlm_count_string(-1234, buf, sizeof buf);
    ck_assert_str_eq(buf, "-1,234");
}
END_TEST

static const char *fmt(enum sqlm_type t, bool spark2, const int64_t *v, size_t n,
                       const int64_t *max)
{
    static char buf[256];
    int64_t copy[16];
    struct sqlm_value out;
    memcpy(copy, v, n * sizeof *v);
    memset(&out, 0, sizeof out);
    sqlm_format(t, spark2, copy, n, max, &out, buf, sizeof buf);
    return buf;
}

START_TEST(string_value_forms)
{
    const int64_t sizes[] = {4096, 0, 2048, 1024}, max[] = {4096, 3, 0, 17};
    ck_assert_str_eq(fmt(SQLM_SIZE, false, sizes, 4, max),
                     "total (min, med, max (stageId: taskId))\n"
                     "7.0 KiB (0.0 B, 2.0 KiB, 4.0 KiB (stage 3.0: task 17))");
    ck_assert_str_eq(fmt(SQLM_SIZE, false, sizes, 4, NULL),
                     "total (min, med, max (stageId: taskId))\n"
                     "7.0 KiB (0.0 B, 2.0 KiB, 4.0 KiB (driver))");
    const int64_t one[] = {1500};
    ck_assert_str_eq(fmt(SQLM_TIMING, false, one, 1, max), "1.5 s");
    const int64_t none[] = {-1};
    ck_assert_str_eq(fmt(SQLM_TIMING, false, none, 1, NULL), "0 ms");
    const int64_t ns[] = {2000000, 5000000};
    ck_assert_str_eq(fmt(SQLM_NS_TIMING, false, ns, 2, max),
                     "total (min, med, max (stageId: taskId))\n"
                     "7 ms (2 ms, 5 ms, 5 ms (stage 3.0: task 17))");
    const int64_t avg[] = {0, 15, 25, 35};
    ck_assert_str_eq(fmt(SQLM_AVERAGE, false, avg, 4, max),
                     "(min, med, max (stageId: taskId)):\n(1.5, 2.5, 3.5 (stage 3.0: task 17))");
    const int64_t sums[] = {1000, 234, 0};
    ck_assert_str_eq(fmt(SQLM_SUM, false, sums, 3, NULL), "1,234");
    const int64_t t2[] = {100, 200};
    ck_assert_str_eq(fmt(SQLM_TIMING, true, t2, 2, NULL), "\n300 ms (100 ms, 200 ms, 200 ms)");
    ck_assert_str_eq(fmt(SQLM_OTHER, false, t2, 2, NULL), "N/A");
    ck_assert(sqlm_name_is_spark2("duration total (min, med, max)"));
    ck_assert(!sqlm_name_is_spark2("duration"));
}
END_TEST

/* ---- the listener: what SQLAppStatusListener keeps and drops -------------------------------- */

static const struct sqlm_value *value_of(struct sqlm_value *v, size_t n, int64_t acc)
{
    const struct sqlm_value *x = sqlm_find(v, n, acc);
    ck_assert_msg(x != NULL, "no value for accumulator %lld", (long long)acc);
    return x;
}

START_TEST(listener_keeps_successful_slots_and_the_max_of_every_update)
{
    struct sqll *l = sqll_new();
    struct arena a;
    arena_init(&a);
    ck_assert(sqll_exec_metric(l, 1, 10, SQLM_SUM, false));
    ck_assert(sqll_exec_metric(l, 1, 11, SQLM_SIZE, false));
    int32_t stage = 5;
    uint32_t tasks = 4;
    ck_assert(sqll_job_start(l, 1, &stage, &tasks, 1));
    int64_t ids[] = {10, 11, 99};
    int64_t u0[] = {5, 100, 1}, u1f[] = {7, 300, 1}, u1[] = {6, 200, 1}, late[] = {50, 900, 1};
    int64_t neg[] = {-1, -1, -1};
    ck_assert(sqll_task_end(l, 5, 0, 100, 0, true, ids, u0, 3));
    ck_assert(sqll_task_end(l, 5, 0, 101, 1, false, ids, u1f, 3)); /* failed: slot overwritable */
    ck_assert(sqll_task_end(l, 5, 0, 102, 1, true, ids, u1, 3));
    ck_assert(sqll_task_end(l, 5, 0, 103, 1, true, ids, late, 3)); /* index done: ignored */
    ck_assert(sqll_task_end(l, 5, 0, 104, 2, true, ids, neg, 3));  /* negative: dropped */
    ck_assert(sqll_task_end(l, 6, 0, 105, 0, true, ids, late, 3)); /* unknown stage */
    size_t n;
    bool nomem;
    struct sqlm_value *v = sqll_exec_finish(l, 1, &a, &n, &nomem);
    ck_assert_uint_eq(n, 2);
    /* slots {5, 6, 0, 0} */
    ck_assert_str_eq(value_of(v, n, 10)->text, "11");
    /* slots {100, 200, 0, 0}; the max seen was the failed attempt's 300 (task 101) */
    ck_assert_str_eq(value_of(v, n, 11)->text,
                     "total (min, med, max (stageId: taskId))\n"
                     "300.0 B (0.0 B, 100.0 B, 200.0 B (stage 5.0: task 101))");
    sqll_free(l);
    arena_free(&a);
}
END_TEST

START_TEST(listener_resets_on_a_new_attempt_and_appends_driver_values)
{
    struct sqll *l = sqll_new();
    struct arena a;
    arena_init(&a);
    ck_assert(sqll_exec_metric(l, 2, 20, SQLM_TIMING, false));
    int32_t stage = 1;
    uint32_t tasks = 2;
    ck_assert(sqll_job_start(l, 2, &stage, &tasks, 1));
    int64_t ids[] = {20}, big[] = {5000}, small[] = {40};
    ck_assert(sqll_task_end(l, 1, 0, 7, 0, true, ids, big, 1));
    sqll_stage_submitted(l, 1, 1);                    /* attempt 1: attempt 0 is forgotten */
    ck_assert(sqll_task_end(l, 1, 0, 8, 1, true, ids, big, 1)); /* old attempt: ignored */
    ck_assert(sqll_task_end(l, 1, 1, 9, 1, true, ids, small, 1));
    ck_assert(sqll_driver_update(l, 2, 20, 60));   /* larger than every task: "(driver)" */
    size_t n;
    bool nomem;
    struct sqlm_value *v = sqll_exec_finish(l, 2, &a, &n, &nomem);
    ck_assert_uint_eq(n, 1);
    /* values {0, 40} + driver 60 */
    ck_assert_str_eq(v[0].text, "total (min, med, max (stageId: taskId))\n"
                                "100 ms (0 ms, 40 ms, 60 ms (driver))");
    sqll_free(l);
    arena_free(&a);
}
END_TEST

/* ---- a log written here -------------------------------------------------------------------- */

/* A task end: index i, task 100 + i, the accumulables of the fixture's five metrics. */
static void task_end(char *out, size_t cap, int i, long dur, long sortt, long peak, long spill,
                     long rows)
{
    snprintf(out, cap,
             "{\"Event\":\"SparkListenerTaskEnd\",\"Stage ID\":0,\"Stage Attempt ID\":0,"
             "\"Task Type\":\"ResultTask\",\"Task End Reason\":{\"Reason\":\"Success\"},"
             "\"Task Info\":{\"Task ID\":%d,\"Index\":%d,\"Attempt\":0,\"Launch Time\":1,"
             "\"Finish Time\":2,\"Failed\":false,\"Killed\":false,\"Accumulables\":["
             "{\"ID\":1,\"Name\":\"duration\",\"Update\":\"%ld\",\"Value\":\"0\",\"Metadata\":\"sql\"},"
             "{\"ID\":2,\"Name\":\"sort time\",\"Update\":\"%ld\",\"Value\":\"0\",\"Metadata\":\"sql\"},"
             "{\"ID\":3,\"Name\":\"peak memory\",\"Update\":\"%ld\",\"Value\":\"0\",\"Metadata\":\"sql\"},"
             "{\"ID\":4,\"Name\":\"spill size\",\"Update\":\"%ld\",\"Value\":\"0\",\"Metadata\":\"sql\"},"
             "{\"ID\":5,\"Name\":\"number of output rows\",\"Update\":\"%ld\",\"Value\":\"0\",\"Metadata\":\"sql\"},"
             "{\"ID\":6,\"Name\":\"number of output rows\",\"Update\":\"%ld\",\"Value\":\"0\",\"Metadata\":\"sql\"},"
             "{\"ID\":900,\"Name\":\"internal.metrics.executorRunTime\",\"Update\":7,\"Value\":7}]}}\n",
             100 + i, i, dur, sortt, peak, spill, rows, rows);
}

static const char fixture_head[] =
    "{\"Event\":\"SparkListenerLogStart\",\"Spark Version\":\"3.5.1\"}\n"
    "{\"Event\":\"SparkListenerApplicationStart\",\"App Name\":\"fixture\",\"App ID\":\"app-1\","
    "\"Timestamp\":1000,\"User\":\"me\"}\n"
    "{\"Event\":\"org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionStart\","
    "\"executionId\":0,\"description\":\"select a from t where a > 5 order by a\","
    "\"details\":\"sql at <console>:1\",\"physicalPlanDescription\":\"== Physical Plan ==\\n"
    "*(1) Sort [a#1 ASC NULLS FIRST], false, 0\\n+- *(1) Filter (isnotnull(a#1) AND (a#1 > 5))\\n"
    "   +- *(1) Scan ExistingRDD[a#1]\\n\",\"sparkPlanInfo\":{\"nodeName\":\"WholeStageCodegen (1)\","
    "\"simpleString\":\"WholeStageCodegen (1)\",\"metadata\":{},\"metrics\":[{\"name\":\"duration\","
    "\"accumulatorId\":1,\"metricType\":\"timing\"}],\"children\":[{\"nodeName\":\"Sort\","
    "\"simpleString\":\"Sort [a#1 ASC NULLS FIRST], false, 0\",\"metadata\":{},\"metrics\":["
    "{\"name\":\"sort time\",\"accumulatorId\":2,\"metricType\":\"timing\"},{\"name\":\"peak memory\","
    "\"accumulatorId\":3,\"metricType\":\"size\"},{\"name\":\"spill size\",\"accumulatorId\":4,"
    "\"metricType\":\"size\"}],\"children\":[{\"nodeName\":\"Filter\",\"simpleString\":\"Filter "
    "(a#1 > 5)\",\"metadata\":{},\"metrics\":[{\"name\":\"number of output rows\",\"accumulatorId\":5,"
    "\"metricType\":\"sum\"}],\"children\":[{\"nodeName\":\"InputAdapter\",\"simpleString\":"
    "\"InputAdapter\",\"metadata\":{},\"metrics\":[],\"children\":[{\"nodeName\":\"Scan ExistingRDD\","
    "\"simpleString\":\"Scan ExistingRDD[a#1]\",\"metadata\":{},\"metrics\":[{\"name\":\"number of "
    "output rows\",\"accumulatorId\":6,\"metricType\":\"sum\"}],\"children\":[]}]}]}]}]},"
    "\"time\":2000}\n"
    "{\"Event\":\"SparkListenerJobStart\",\"Job ID\":0,\"Submission Time\":2001,\"Stage Infos\":"
    "[{\"Stage ID\":0,\"Stage Attempt ID\":0,\"Stage Name\":\"x\",\"Number of Tasks\":4}],"
    "\"Stage IDs\":[0],\"Properties\":{\"spark.sql.execution.id\":\"0\"}}\n"
    "{\"Event\":\"SparkListenerStageSubmitted\",\"Stage Info\":{\"Stage ID\":0,\"Stage Attempt ID\":0}}\n";

/* The fixture: one query, four tasks, a malformed line (line 8), a driver update; with cut,
 * the log ends inside an event. */
static char *fixture_log(bool cut, size_t *len)
{
    size_t cap = 1 << 16;
    char *out = malloc(cap), line[4096];
    ck_assert(out != NULL);
    strcpy(out, fixture_head);
    static const long dur[] = {100, 200, 300, 4000}, peak[] = {1024, 2048, 3072, 4096};
    for (int i = 0; i < 4; i++) {
        task_end(line, sizeof line, i, dur[i], 10 * (i + 1), peak[i], i == 3 ? 1048576 : 0,
                 100000);
        strcat(out, line);
        if (i == 1)
            strcat(out, "{\"Event\":\"SparkListenerTaskEnd\",\"Stage ID\":0,garbage\n");
    }
    strcat(out, "{\"Event\":\"org.apache.spark.sql.execution.ui.SparkListenerDriverAccumUpdates\","
                "\"executionId\":0,\"accumUpdates\":[[3,999999]]}\n"
                "{\"Event\":\"SparkListenerJobEnd\",\"Job ID\":0,\"Completion Time\":2999,"
                "\"Job Result\":{\"Result\":\"JobSucceeded\"}}\n"
                "{\"Event\":\"org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionEnd\","
                "\"executionId\":0,\"time\":3250}\n");
    if (cut)
        strcat(out, "{\"Event\":\"SparkListenerApplicationEnd\",\"Timest");
    else
        strcat(out, "{\"Event\":\"SparkListenerApplicationEnd\",\"Timestamp\":4000}\n");
    *len = strlen(out);
    return out;
}

static struct ev_app *load_mem(const char *bytes, size_t len)
{
    struct ev_app *app = NULL;
    struct diag err = {0};
    ck_assert_msg(evload_bytes("fixture", bytes, len, &app, &err) == SP_OK, "%s", err.message);
    return app;
}

/* The node of the final plan named name. */
static const struct plan_node *node_named(const struct ev_plan *p, const char *name)
{
    for (uint32_t i = 0; i < p->section->n_nodes; i++)
        if (tu_slice_is(plan_node_name(plan_section_node(p->section, i)), name))
            return plan_section_node(p->section, i);
    ck_abort_msg("no node %s", name);
    return NULL;
}

static const char *metric_text(const struct ev_app *app, const char *node, const char *name)
{
    const struct ev_exec *e = &app->execs[0];
    const struct ev_plan *p = ev_exec_final(e);
    const struct sqlm_value *v = ev_node_metric(e, p, node_named(p, node), name);
    ck_assert_msg(v != NULL, "%s has no %s", node, name);
    return v->text;
}

START_TEST(a_log_gives_its_query_with_each_nodes_metrics)
{
    size_t len;
    char *log = fixture_log(false, &len);
    struct ev_app *app = load_mem(log, len);
    ck_assert_str_eq(app->app_id, "app-1");
    ck_assert_str_eq(app->spark_version, "3.5.1");
    ck_assert_uint_eq(app->n_execs, 1);
    const struct ev_exec *e = &app->execs[0];
    ck_assert_int_eq(e->status, EV_SUCCEEDED);
    ck_assert_int_eq(e->end - e->start, 1250);
    ck_assert_uint_eq(e->n_jobs, 1);
    const struct ev_plan *p = ev_exec_final(e);
    ck_assert_uint_eq(p->n_aligned, 3); /* Sort, Filter, Scan: no codegen, no input adapter */
    ck_assert_str_eq(metric_text(app, "Filter", "number of output rows"), "400,000");
    ck_assert_str_eq(metric_text(app, "Sort", "spill size"),
                     "total (min, med, max (stageId: taskId))\n"
                     "1024.0 KiB (0.0 B, 0.0 B, 1024.0 KiB (stage 0.0: task 103))");
    /* the driver's 999,999 is above every task's value: "(driver)" */
    ck_assert_str_eq(metric_text(app, "Sort", "peak memory"),
                     "total (min, med, max (stageId: taskId))\n"
                     "986.6 KiB (1024.0 B, 3.0 KiB, 976.6 KiB (driver))");
    /* the codegen stage's duration goes with the node that tops the stage */
    struct ev_shown_metric m[16];
    size_t k = ev_node_metrics(e, p, node_named(p, "Sort"), m, 16);
    ck_assert_uint_eq(k, 4);
    ck_assert(m[3].codegen);
    ck_assert_str_eq(m[3].value->text, "total (min, med, max (stageId: taskId))\n"
                                       "4.6 s (100 ms, 300 ms, 4.0 s (stage 0.0: task 103))");
    ck_assert(e->hottest == node_named(p, "Sort")); /* sort time 100 ms, the only time */
    /* the malformed line is named */
    ck_assert_uint_eq(app->n_warnings, 1);
    ck_assert_uint_eq(app->warnings[0].line, 8);
    ck_assert(strstr(app->warnings[0].message, "malformed"));
    ev_app_free(app);
    free(log);
}
END_TEST

START_TEST(a_cut_log_reads_to_its_last_complete_event)
{
    size_t len;
    char *log = fixture_log(true, &len);
    struct ev_app *app = load_mem(log, len);
    ck_assert(app->truncated);
    ck_assert_uint_eq(app->n_execs, 1);
    ck_assert_str_eq(metric_text(app, "Filter", "number of output rows"), "400,000");
    ck_assert(strstr(app->warnings[app->n_warnings - 1].message, "ends inside an event"));
    ev_app_free(app);
    /* a query without its end is running, with its metrics so far */
    char *end = strstr(log, "{\"Event\":\"org.apache.spark.sql.execution.ui.SparkListenerDriver");
    app = load_mem(log, (size_t)(end - log));
    ck_assert_int_eq(app->execs[0].status, EV_RUNNING);
    ck_assert(app->in_progress);
    ck_assert_str_eq(metric_text(app, "Filter", "number of output rows"), "400,000");
    ev_app_free(app);
    free(log);
}
END_TEST

/* A ReusedExchange shows the metrics of the exchange it reuses (its info subtree carries
 * the original's accumulator ids); the text shows it as a leaf. */
START_TEST(a_reused_exchange_shows_the_reused_exchanges_metrics)
{
    static const char log[] =
        "{\"Event\":\"org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionStart\","
        "\"executionId\":0,\"description\":\"union\",\"time\":1,"
        "\"physicalPlanDescription\":\"== Physical Plan ==\\nUnion\\n"
        ":- Exchange hashpartitioning(a#1, 200), ENSURE_REQUIREMENTS, [id=#10]\\n"
        ":  +- Scan ExistingRDD[a#1]\\n"
        "+- ReusedExchange [a#2], Exchange hashpartitioning(a#1, 200), ENSURE_REQUIREMENTS, "
        "[id=#10]\\n\",\"sparkPlanInfo\":{\"nodeName\":\"Union\",\"simpleString\":\"Union\","
        "\"metrics\":[],\"children\":[{\"nodeName\":\"Exchange\",\"simpleString\":\"Exchange\","
        "\"metrics\":[{\"name\":\"records read\",\"accumulatorId\":7,\"metricType\":\"sum\"}],"
        "\"children\":[{\"nodeName\":\"Scan ExistingRDD\",\"simpleString\":\"Scan\","
        "\"metrics\":[],\"children\":[]}]},{\"nodeName\":\"ReusedExchange\",\"simpleString\":"
        "\"ReusedExchange\",\"metrics\":[],\"children\":[{\"nodeName\":\"Exchange\","
        "\"simpleString\":\"Exchange\",\"metrics\":[{\"name\":\"records read\","
        "\"accumulatorId\":7,\"metricType\":\"sum\"}],\"children\":[]}]}]}}\n"
        "{\"Event\":\"SparkListenerJobStart\",\"Job ID\":0,\"Stage Infos\":[{\"Stage ID\":1,"
        "\"Number of Tasks\":2}],\"Properties\":{\"spark.sql.execution.id\":\"0\"}}\n"
        "{\"Event\":\"SparkListenerTaskEnd\",\"Stage ID\":1,\"Stage Attempt ID\":0,"
        "\"Task Info\":{\"Task ID\":5,\"Index\":0,\"Finish Time\":2,\"Failed\":false,"
        "\"Accumulables\":[{\"ID\":7,\"Update\":\"10\"}]}}\n"
        "{\"Event\":\"SparkListenerTaskEnd\",\"Stage ID\":1,\"Stage Attempt ID\":0,"
        "\"Task Info\":{\"Task ID\":6,\"Index\":1,\"Finish Time\":2,\"Failed\":false,"
        "\"Accumulables\":[{\"ID\":7,\"Update\":\"12\"}]}}\n";
    struct ev_app *app = load_mem(log, strlen(log));
    const struct ev_exec *e = &app->execs[0];
    const struct ev_plan *p = ev_exec_final(e);
    ck_assert_uint_eq(p->n_aligned, 4);
    ck_assert_str_eq(ev_node_metric(e, p, node_named(p, "Exchange"), "records read")->text,
                     "22");
    ck_assert_str_eq(
        ev_node_metric(e, p, node_named(p, "ReusedExchange"), "records read")->text, "22");
    ck_assert(ev_node_metric(e, p, node_named(p, "Scan ExistingRDD"), "records read") == NULL);
    ev_app_free(app);
}
END_TEST

/* ---- codecs: the project's encoder, read back the same as the plain source -------------------- */

static char *read_back(const char *bytes, size_t len, bool *truncated)
{
    struct ev_lines *r;
    struct diag err = {0};
    ck_assert(ev_lines_open_mem(bytes, len, &r, &err) == SP_OK);
    size_t cap = len * 64 + (1 << 20), n = 0;
    char *out = malloc(cap);
    for (;;) {
        struct slice line;
        bool last, eof;
        ck_assert_msg(ev_lines_next(r, &line, &last, &eof, &err) == SP_OK, "%s", err.message);
        if (eof)
            break;
        ck_assert(n + line.len + 1 < cap);
        memcpy(out + n, line.ptr, line.len);
        n += line.len;
        if (!last)
            out[n++] = '\n';
    }
    out[n] = '\0';
    *truncated = ev_lines_truncated(r);
    ev_lines_close(r);
    return out;
}

static void same_model(const struct ev_app *a, const struct ev_app *b)
{
    ck_assert_uint_eq(a->n_execs, b->n_execs);
    for (size_t i = 0; i < a->n_execs; i++) {
        ck_assert_uint_eq(a->execs[i].n_values, b->execs[i].n_values);
        for (size_t k = 0; k < a->execs[i].n_values; k++)
            ck_assert_str_eq(a->execs[i].values[k].text, b->execs[i].values[k].text);
    }
}

START_TEST(every_codec_reads_the_same_as_its_plain_source)
{
    size_t len;
    char *log = fixture_log(false, &len);
    struct ev_app *plain = load_mem(log, len);
    static const enum ev_codec codecs[] = {EV_LZ4, EV_SNAPPY, EV_LZF, EV_ZSTD, EV_GZIP};
    for (size_t c = 0; c < sizeof codecs / sizeof *codecs; c++) {
        char *enc;
        size_t n;
        struct diag err = {0};
        /* small blocks: many blocks, frames and chunks, lines across them */
        ck_assert(ev_encode(codecs[c], log, len, 700, &enc, &n, &err) == SP_OK);
        unsigned char head[16] = {0};
        memcpy(head, enc, n < 16 ? n : 16);
        ck_assert_int_eq(ev_codec_detect(head, 16), codecs[c]);
        bool cut;
        char *back = read_back(enc, n, &cut);
        ck_assert_msg(strcmp(back, log) == 0, "%s: not the source", ev_codec_name(codecs[c]));
        ck_assert(!cut);
        struct ev_app *app = load_mem(enc, n);
        ck_assert_str_eq(app->codec, ev_codec_name(codecs[c]));
        same_model(plain, app);
        ev_app_free(app);
        free(back);
        free(enc);
    }
    ev_app_free(plain);
    free(log);
}
END_TEST

/* ev_file_is_eventlog of bytes written to a file of their own. */
static bool file_is_eventlog(const char *bytes, size_t n)
{
    char path[] = "/tmp/sparkplan-isev-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    ck_assert(write(fd, bytes, n) == (ssize_t)n);
    close(fd);
    bool yes = ev_file_is_eventlog(path);
    unlink(path);
    return yes;
}

START_TEST(a_file_is_an_event_log_by_its_first_record)
{
    /* `sparkplan FILE` reads a file with the event-log reader when its first line opens a
       listener event, compressed or not, behind a byte-order mark or not; a plain file is
       answered from its first bytes (no chunk of 1 MB read and copied for a plan file). */
    size_t len;
    char *log = fixture_log(false, &len);
    ck_assert(file_is_eventlog(log, len));
    char *bom = malloc(len + 3);
    memcpy(bom, "\xef\xbb\xbf", 3);
    memcpy(bom + 3, log, len);
    ck_assert(file_is_eventlog(bom, len + 3));
    static const enum ev_codec codecs[] = {EV_LZ4, EV_SNAPPY, EV_LZF, EV_ZSTD, EV_GZIP};
    for (size_t c = 0; c < sizeof codecs / sizeof *codecs; c++) {
        char *enc;
        size_t n;
        struct diag err = {0};
        ck_assert(ev_encode(codecs[c], log, len, 700, &enc, &n, &err) == SP_OK);
        ck_assert_msg(file_is_eventlog(enc, n), "%s", ev_codec_name(codecs[c]));
        free(enc);
    }
    /* The record's opening cut at every length, behind a mark or not: not yet one. */
    for (size_t k = 0; k < 9; k++) {
        ck_assert(!file_is_eventlog(log, k));
        ck_assert(!file_is_eventlog(bom, k + 3));
    }
    ck_assert(file_is_eventlog(log, 9));
    ck_assert(file_is_eventlog(bom, 12));
    static const char *const not_logs[] = {"== Physical Plan ==\n* Project (1)\n",
                                           " {\"Event\":\"SparkListenerLogStart\"}\n",
                                           "{\"Events\":1}\n", "{\"event\":\"x\"}\n",
                                           "\xef\xbb{\"Event\":\"x\"}\n", "{ \"Event\":\"x\"}\n"};
    for (size_t i = 0; i < sizeof not_logs / sizeof *not_logs; i++)
        ck_assert_msg(!file_is_eventlog(not_logs[i], strlen(not_logs[i])), "%s", not_logs[i]);
    ck_assert(!ev_file_is_eventlog("/tmp"));
    ck_assert(!ev_file_is_eventlog("/nonexistent/sparkplan-log"));
    free(bom);
    free(log);
}
END_TEST

START_TEST(streams_may_follow_each_other)
{
    static const char text[] = "{\"Event\":\"A\"}\n{\"Event\":\"B\"}\n";
    static const enum ev_codec codecs[] = {EV_LZ4, EV_SNAPPY, EV_ZSTD, EV_GZIP, EV_LZF};
    for (size_t c = 0; c < sizeof codecs / sizeof *codecs; c++) {
        char *a, *both;
        size_t n;
        struct diag err = {0};
        ck_assert(ev_encode(codecs[c], text, strlen(text), 10, &a, &n, &err) == SP_OK);
        both = malloc(2 * n);
        memcpy(both, a, n);
        memcpy(both + n, a, n); /* snappy: the header comes again; lz4: after an end block */
        bool cut;
        char *back = read_back(both, 2 * n, &cut);
        char want[sizeof text * 2];
        snprintf(want, sizeof want, "%s%s", text, text);
        ck_assert_msg(strcmp(back, want) == 0, "%s", ev_codec_name(codecs[c]));
        free(back);
        free(both);
        free(a);
    }
}
END_TEST

/* A log cut inside a zstd frame or inside an lz4, snappy or lzf block (the writer stopped
 * mid-block): what came before reads, and the log says it is cut. */
START_TEST(a_log_cut_inside_a_frame_or_block_gives_what_it_holds)
{
    static const enum ev_codec codecs[] = {EV_ZSTD, EV_LZ4, EV_SNAPPY, EV_LZF};
    size_t len;
    char *log = fixture_log(false, &len);
    for (size_t c = 0; c < sizeof codecs / sizeof codecs[0]; c++) {
        char *enc;
        size_t n;
        struct diag err = {0};
        /* zstd: one frame; the others: 512-byte blocks, the cut inside the last */
        size_t block = codecs[c] == EV_ZSTD ? 1 << 20 : 512;
        ck_assert(ev_encode(codecs[c], log, len, block, &enc, &n, &err) == SP_OK);
        bool cut;
        char *back = read_back(enc, n - 20, &cut);
        ck_assert_msg(cut, "codec %zu: the cut is not said", c);
        ck_assert_msg(strncmp(back, log, strlen(back)) == 0, "codec %zu: not a prefix", c);
        ck_assert_msg(codecs[c] == EV_ZSTD || strlen(back) > len / 2,
                      "codec %zu: the whole blocks before the cut were not read", c);
        struct ev_app *app = load_mem(enc, n - 20);
        ck_assert(app->truncated);
        ev_app_free(app);
        free(back);
        free(enc);
    }
    free(log);
}
END_TEST

START_TEST(a_corrupt_lz4_block_is_an_error_not_a_crash)
{
    static const char text[] = "{\"Event\":\"A\"}\n";
    char *enc;
    size_t n;
    struct diag err = {0};
    ck_assert(ev_encode(EV_LZ4, text, strlen(text), 64, &enc, &n, &err) == SP_OK);
    enc[17] ^= 0x55; /* the checksum */
    struct ev_lines *r;
    ck_assert(ev_lines_open_mem(enc, n, &r, &err) == SP_OK);
    struct slice line;
    bool last, eof;
    ck_assert_int_eq(ev_lines_next(r, &line, &last, &eof, &err), SP_ERR_IO);
    ck_assert(strstr(err.message, "checksum"));
    ev_lines_close(r);
    free(enc);
}
END_TEST

START_TEST(xxh32_matches_the_published_values)
{
    ck_assert_uint_eq(ev_xxh32("", 0, 0), 0x02cc5d05u);
    ck_assert_uint_eq(ev_xxh32("abc", 3, 0), 0x32d153ffu);
}
END_TEST

/* Every prefix and a scatter of flipped bytes of each codec's encoding: read to an error or
 * an end, never a crash (the sanitizer pass runs this too). */
START_TEST(damaged_logs_never_crash)
{
    size_t len;
    char *log = fixture_log(false, &len);
    static const enum ev_codec codecs[] = {EV_PLAIN, EV_LZ4, EV_SNAPPY, EV_LZF, EV_ZSTD, EV_GZIP};
    unsigned seed = 12345;
    for (size_t c = 0; c < sizeof codecs / sizeof *codecs; c++) {
        char *enc;
        size_t n;
        struct diag err = {0};
        ck_assert(ev_encode(codecs[c], log, len, 300, &enc, &n, &err) == SP_OK);
        for (size_t cut = 0; cut < n; cut += 1 + cut / 16) {
            struct ev_app *app = NULL;
            if (evload_bytes("cut", enc, cut, &app, &err) == SP_OK)
                ev_app_free(app);
        }
        char *bad = malloc(n);
        for (int round = 0; round < 40; round++) {
            memcpy(bad, enc, n);
            for (int k = 0; k < 4; k++) {
                seed = seed * 1103515245u + 12345u;
                bad[(seed >> 8) % n] ^= (char)(1 + (seed >> 20) % 255);
            }
            struct ev_app *app = NULL;
            if (evload_bytes("flipped", bad, n, &app, &err) == SP_OK)
                ev_app_free(app);
        }
        free(bad);
        free(enc);
    }
    free(log);
}
END_TEST

/* ---- layouts ------------------------------------------------------------------------------------ */

static void write_file(const char *dir, const char *name, const char *text, size_t len)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    ck_assert(f != NULL);
    fwrite(text, 1, len, f);
    fclose(f);
}

static const char *base(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

START_TEST(log_directories_are_read_in_spark_order)
{
    char root[] = "/tmp/sparkplan-evtest-XXXXXX";
    ck_assert(mkdtemp(root) != NULL);
    char d[600], sub[700];
    snprintf(d, sizeof d, "%s/eventlog_v2_app-1", root);
    mkdir(d, 0700);
    const char *ev = "{\"Event\":\"SparkListenerLogStart\",\"Spark Version\":\"3.5.1\"}\n";
    write_file(d, "events_1_app-1", ev, strlen(ev));
    write_file(d, "events_2_app-1.compact", ev, strlen(ev));
    write_file(d, "events_10_app-1", ev, strlen(ev));
    write_file(d, "events_3_app-1", ev, strlen(ev));
    write_file(d, "appstatus_app-1.inprogress", "", 0);
    struct ev_source src;
    struct diag err = {0};
    ck_assert(ev_source_resolve(d, &src, &err) == SP_OK);
    ck_assert_uint_eq(src.n_apps, 1);
    ck_assert_int_eq(src.apps[0].layout, EV_LAYOUT_ROLLING);
    ck_assert(src.apps[0].in_progress);
    ck_assert_uint_eq(src.apps[0].n_files, 3); /* from the .compact on, by index */
    ck_assert_str_eq(base(src.apps[0].files[0]), "events_2_app-1.compact");
    ck_assert_str_eq(base(src.apps[0].files[1]), "events_3_app-1");
    ck_assert_str_eq(base(src.apps[0].files[2]), "events_10_app-1");
    ev_source_free(&src);

    snprintf(sub, sizeof sub, "%s/db", root);
    mkdir(sub, 0700);
    write_file(sub, "eventlog", ev, strlen(ev));
    write_file(sub, "eventlog-2021-06-15--15-00.gz", ev, strlen(ev));
    write_file(sub, "eventlog-2021-06-15--14-00.gz", ev, strlen(ev));
    ck_assert(ev_source_resolve(sub, &src, &err) == SP_OK);
    ck_assert_int_eq(src.apps[0].layout, EV_LAYOUT_DATABRICKS);
    ck_assert_str_eq(base(src.apps[0].files[0]), "eventlog-2021-06-15--14-00.gz");
    ck_assert_str_eq(base(src.apps[0].files[2]), "eventlog");
    ev_source_free(&src);

    snprintf(sub, sizeof sub, "%s/local-1", root);
    mkdir(sub, 0700);
    write_file(sub, "EVENT_LOG_1", ev, strlen(ev));
    write_file(sub, "SPARK_VERSION_1.2.0", "", 0);
    ck_assert(ev_source_resolve(sub, &src, &err) == SP_OK);
    ck_assert_int_eq(src.apps[0].layout, EV_LAYOUT_LEGACY);
    ck_assert_str_eq(src.apps[0].version_hint, "1.2.0");
    ck_assert(src.apps[0].in_progress); /* no APPLICATION_COMPLETE */
    ev_source_free(&src);

    write_file(root, "app-2.inprogress", ev, strlen(ev));
    write_file(root, "notes.txt", "hello\n", 6);
    ck_assert(ev_source_resolve(root, &src, &err) == SP_OK); /* a History Server directory */
    ck_assert(src.history_dir);
    ck_assert_uint_eq(src.n_apps, 4);
    ev_source_free(&src);
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    ck_assert_int_eq(system(cmd), 0);
}
END_TEST

/* ---- the command line ---------------------------------------------------------------------------- */

static char *fixture_file(char *path, size_t cap, enum ev_codec c)
{
    size_t len, n;
    char *log = fixture_log(false, &len), *enc;
    struct diag err = {0};
    ck_assert(ev_encode(c, log, len, 4096, &enc, &n, &err) == SP_OK);
    snprintf(path, cap, "/tmp/sparkplan-evfixture-%d.%s", (int)getpid(), ev_codec_name(c));
    FILE *f = fopen(path, "wb");
    ck_assert(f != NULL);
    fwrite(enc, 1, n, f);
    fclose(f);
    free(enc);
    free(log);
    return path;
}

START_TEST(cli_json_has_the_application_executions_and_metrics)
{
    char path[256];
    fixture_file(path, sizeof path, EV_LZ4);
    int st;
    char *out = tu_runf(&st, "%s --json %s 2>/dev/null", tu_binary(), path);
    ck_assert_int_eq(st, 0);
    size_t at;
    ck_assert_msg(jsonlint_check(out, strlen(out), &at) == NULL, "invalid JSON at %zu", at);
    ck_assert(strstr(out, "\"application\":{\"id\":\"app-1\",\"name\":\"fixture\""));
    ck_assert(strstr(out, "\"executions\":[{\"id\":0,"));
    ck_assert(strstr(out, "\"durationMs\":1250,\"status\":\"succeeded\""));
    ck_assert(strstr(out, "{\"name\":\"number of output rows\",\"type\":\"sum\","
                          "\"accumulatorId\":5,\"value\":400000}"));
    ck_assert(strstr(out, "{\"name\":\"spill size\",\"type\":\"size\",\"accumulatorId\":4,"
                          "\"total\":1048576,\"min\":0,\"med\":0,\"max\":1048576,\"maxStage\":0,"
                          "\"maxTask\":103,\"text\":\"total (min, med, max (stageId: taskId))\\n"
                          "1024.0 KiB (0.0 B, 0.0 B, 1024.0 KiB (stage 0.0: task 103))\"}"));
    free(out);
    unlink(path);
}
END_TEST

START_TEST(cli_summary_and_lint_show_the_runtime_findings)
{
    char path[256];
    fixture_file(path, sizeof path, EV_SNAPPY);
    int st;
    char *out = tu_runf(&st, "%s --summary %s 2>&1", tu_binary(), path);
    ck_assert_int_eq(st, 0);
    ck_assert_msg(strstr(out, "    0      1.3 s  succeeded     1  Sort 100 ms  select a from t"),
                  "%s", out);
    free(out);
    out = tu_runf(&st, "%s --lint %s 2>&1", tu_binary(), path);
    ck_assert_int_eq(st, 1); /* the spill is a warning */
    ck_assert_msg(strstr(out, "[query 0]:2: SP081 warning: Sort spilled 1024.0 KiB to disk"),
                  "%s", out);
    ck_assert_msg(strstr(out, "SP083 info: Filter kept 400,000 of 400,000 rows"), "%s", out);
    ck_assert_msg(strstr(out, ":8: warning: malformed event"), "%s", out);
    free(out);
    /* a History Server directory: each application, then the list of them */
    char dir[64], cmd[1024];
    snprintf(dir, sizeof dir, "/tmp/sparkplan-evhist-%d", (int)getpid());
    snprintf(cmd, sizeof cmd, "rm -rf %s && mkdir %s && cp %s %s/app-1.snappy", dir, dir, path,
             dir);
    ck_assert_int_eq(system(cmd), 0);
    out = tu_runf(&st, "%s --summary %s 2>&1", tu_binary(), dir);
    ck_assert_msg(strstr(out, "==> "), "%s", out);
    ck_assert_msg(strstr(out, "1 application in "), "%s", out);
    ck_assert_msg(strstr(out, "\napp-1                                     3.0 s  complete"
                              "           1  3.5.1                 fixture\n"), "%s", out);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    ck_assert_int_eq(system(cmd), 0);
    free(out);
    out = tu_runf(&st, "%s --print %s 2>/dev/null", tu_binary(), path);
    ck_assert_msg(strstr(out, "*(1) Filter (isnotnull(a#1) AND (a#1 > 5))   [400,000 rows]"),
                  "%s", out);
    free(out);
    unlink(path);
}
END_TEST

/* ---- the explorer's curses-free half ----------------------------------------------------------- */

START_TEST(the_query_list_sorts_by_duration_and_id)
{
    /* three queries: 0 takes 1.25 s, 1 runs (no end), 2 takes 5 ms */
    static const char log[] =
        "{\"Event\":\"org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionStart\","
        "\"executionId\":0,\"description\":\"first\",\"details\":\"\",\"time\":1000}\n"
        "{\"Event\":\"org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionEnd\","
        "\"executionId\":0,\"time\":2250}\n"
        "{\"Event\":\"org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionStart\","
        "\"executionId\":1,\"description\":\"second\\nline two\",\"time\":3000}\n"
        "{\"Event\":\"org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionStart\","
        "\"executionId\":2,\"description\":\"third\",\"time\":4000}\n"
        "{\"Event\":\"org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionEnd\","
        "\"executionId\":2,\"time\":4005,\"errorMessage\":\"boom\"}\n";
    struct ev_app *app = load_mem(log, strlen(log));
    struct evrows r;
    ck_assert(evrows_init(&r, app));
    char line[256];
    evrows_line(&r, 0, line, sizeof line, 200);
    ck_assert_str_eq(line, "    0      1.3 s  succeeded     0  -                           first");
    evrows_line(&r, 1, line, sizeof line, 200);
    ck_assert_str_eq(line, "    1          -  running       0  -                           second");
    evrows_line(&r, 2, line, sizeof line, 200);
    ck_assert_str_eq(line, "    2       5 ms  failed        0  -                           third");
    r.sel = 2;
    evrows_sort(&r, EVROWS_BY_DURATION, true); /* longest first: the running one */
    ck_assert_int_eq(evrows_exec(&r, 0)->id, 1);
    ck_assert_int_eq(evrows_exec(&r, 1)->id, 0);
    ck_assert_int_eq(evrows_exec(&r, 2)->id, 2);
    ck_assert_uint_eq(r.sel, 2); /* query 2 stays selected */
    evrows_move(&r, -5, 1);
    ck_assert_uint_eq(r.sel, 0);
    evrows_sort(&r, EVROWS_BY_ID, false);
    ck_assert_int_eq(evrows_exec(&r, 0)->id, 0);
    ck_assert_uint_eq(r.sel, 1);
    evrows_header(line, sizeof line, 20);
    ck_assert_str_eq(line, "query   duration  st");
    evrows_free(&r);
    ev_app_free(app);
}
END_TEST

START_TEST(heat_and_labels)
{
    size_t len;
    char *log = fixture_log(false, &len);
    struct ev_app *app = load_mem(log, len);
    const struct ev_exec *e = &app->execs[0];
    const struct ev_plan *p = ev_exec_final(e);
    int64_t most = ev_plan_max_time_ms(e, p);
    ck_assert_int_eq(most, 100); /* Sort's sort time */
    ck_assert_int_eq(ev_node_heat(e, p, node_named(p, "Sort"), most), 3);
    ck_assert_int_eq(ev_node_heat(e, p, node_named(p, "Filter"), most), 0);
    struct ev_shown_metric m[16];
    size_t k = ev_node_metrics(e, p, node_named(p, "Filter"), m, 16);
    char buf[256];
    ck_assert_uint_eq(k, 1);
    ck_assert_str_eq(ev_metric_label(&m[0], buf, sizeof buf), "number of output rows: 400,000");
    k = ev_node_metrics(e, p, node_named(p, "Sort"), m, 16);
    ck_assert_str_eq(ev_metric_label(&m[3], buf, sizeof buf),
                     "codegen stage duration total (min, med, max (stageId: taskId))\n"
                     "4.6 s (100 ms, 300 ms, 4.0 s (stage 0.0: task 103))");
    char brief[128];
    ck_assert_str_eq(ev_node_brief(e, p, node_named(p, "Sort"), brief, sizeof brief),
                     "100 ms  spill 1024.0 KiB");
    ev_app_free(app);
    free(log);
}
END_TEST

struct lines {
    char text[16][512];
    size_t key[16];
    size_t n;
};

static void add_line(void *ctx, size_t key_len, const char *line)
{
    struct lines *l = ctx;
    if (l->n < 16) {
        snprintf(l->text[l->n], sizeof l->text[0], "%s", line);
        l->key[l->n++] = key_len;
    }
}

/* An event log's plan is parsed like any other: the fields the model derives read what its
 * physicalPlanDescription printed. */
START_TEST(an_event_log_plan_derives_its_fields)
{
    size_t len;
    char *log = fixture_log(false, &len);
    struct ev_app *app = load_mem(log, len);
    const struct ev_plan *p = ev_exec_final(&app->execs[0]);
    ck_assert_ptr_nonnull(p->doc);
    const struct plan_node *sort = node_named(p, "Sort"), *filter = node_named(p, "Filter");
    ck_assert_uint_eq(plan_node_n_children(sort), 1);
    ck_assert_ptr_eq(plan_node_first_child(sort), filter);
    tu_assert_slice_is(plan_node_text(filter), "Filter (isnotnull(a#1) AND (a#1 > 5))");
    ck_assert_uint_eq(plan_node_preorder(filter), 1);
    ck_assert_uint_eq(plan_node_details_line(filter), 0);
    tu_check_derived(p->doc);
    ev_app_free(app);
    free(log);
}
END_TEST

START_TEST(the_explorers_side_of_a_node)
{
    size_t len;
    char *log = fixture_log(false, &len);
    struct ev_app *app = load_mem(log, len);
    struct evview v;
    ck_assert(evview_init(&v, app));
    const struct ev_plan *p = ev_exec_final(&app->execs[0]);
    ck_assert(evview_find(&v, p->doc) != NULL);
    char right[64];
    int heat, sev;
    evview_row(&v, node_named(p, "Filter"), right, sizeof right, 40, &heat, &sev);
    ck_assert_str_eq(right, "400.0K rows");
    ck_assert_int_eq(heat, 0);
    ck_assert_int_eq(sev, SEVERITY_INFO); /* SP083 */
    evview_row(&v, node_named(p, "Sort"), right, sizeof right, 40, &heat, &sev);
    ck_assert_str_eq(right, "100 ms  spill 1024.0 KiB");
    ck_assert_int_eq(heat, 3);
    ck_assert_int_eq(sev, SEVERITY_WARNING); /* SP081 */
    evview_row(&v, node_named(p, "Sort"), right, sizeof right, 10, &heat, &sev);
    ck_assert_str_eq(right, "100 ms"); /* what fits */
    struct lines l = {0};
    size_t n = evview_details(&v, node_named(p, "Sort"), add_line, &l);
    ck_assert_uint_eq(n, 9); /* four metrics of two lines, one finding */
    ck_assert_str_eq(l.text[0], "sort time total (min, med, max (stageId: taskId))");
    ck_assert_str_eq(l.text[1], "100 ms (10 ms, 30 ms, 40 ms (stage 0.0: task 103))");
    ck_assert_uint_eq(l.key[0], strlen("sort time"));
    ck_assert(strncmp(l.text[8], "SP081 warning: Sort spilled 1024.0 KiB to disk. ", 48) == 0);
    evview_free(&v);
    ev_app_free(app);
    free(log);
}
END_TEST

/* The application list's brief: what the full load says of the application, the SQL
 * executions counted, read on the list's thread. */
START_TEST(a_brief_names_the_application_and_counts_its_queries)
{
    char path[256];
    fixture_file(path, sizeof path, EV_ZSTD);
    char *files[1] = {path};
    struct ev_app_files af = {.name = path, .files = files, .n_files = 1};
    struct ev_brief b;
    struct diag err = {0};
    ck_assert(evload_brief(&af, NULL, &b, &err) == SP_OK);
    struct ev_app *app = NULL;
    ck_assert(evload_app(&af, &app, &err) == SP_OK);
    ck_assert_str_eq(b.id, "app-1");
    ck_assert_str_eq(b.name, "fixture");
    ck_assert_str_eq(b.version, "3.5.1");
    ck_assert_int_eq(b.start, app->start);
    ck_assert_int_eq(b.end, 4000);
    ck_assert_uint_gt(app->n_execs, 0);
    ck_assert_uint_eq(b.n_queries, app->n_execs);
    ck_assert(!b.in_progress);

    struct ev_source src = {.history_dir = true, .apps = &af, .n_apps = 1};
    struct evapps list;
    ck_assert(evapps_start(&list, &src));
    for (int i = 0; i < 1000 && evapps_ready(&list) < 1; i++) {
        struct pollfd p = {evapps_wake_fd(&list), POLLIN, 0};
        poll(&p, 1, 10);
        evapps_drain(&list);
    }
    ck_assert_uint_eq(evapps_ready(&list), 1);
    ck_assert_int_eq(evapps_wake_fd(&list), -1); /* nothing more to wait for */
    char line[256], want[64];
    evapps_line(&list, 0, line, sizeof line, sizeof line - 1);
    snprintf(want, sizeof want, "%zu", app->n_execs);
    ck_assert_msg(strstr(line, "app-1") && strstr(line, "fixture") && strstr(line, "3.5.1") &&
                      strstr(line, want),
                  "%s", line);
    evapps_stop(&list);
    ev_app_free(app);
    unlink(path);
}
END_TEST

Suite *eventlog_suite(void)
{
    Suite *s = suite_create("eventlog");
    TCase *t = tcase_create("format");
    tcase_add_test(t, bytes_print_like_utils_bytes_to_string);
    tcase_add_test(t, durations_print_like_utils_ms_duration_to_string);
    tcase_add_test(t, counts_are_grouped);
    tcase_add_test(t, string_value_forms);
    suite_add_tcase(s, t);
    t = tcase_create("listener");
    tcase_add_test(t, listener_keeps_successful_slots_and_the_max_of_every_update);
    tcase_add_test(t, listener_resets_on_a_new_attempt_and_appends_driver_values);
    tcase_add_test(t, a_log_gives_its_query_with_each_nodes_metrics);
    tcase_add_test(t, a_cut_log_reads_to_its_last_complete_event);
    tcase_add_test(t, a_reused_exchange_shows_the_reused_exchanges_metrics);
    suite_add_tcase(s, t);
    t = tcase_create("codecs");
    tcase_add_test(t, every_codec_reads_the_same_as_its_plain_source);
    tcase_add_test(t, a_file_is_an_event_log_by_its_first_record);
    tcase_add_test(t, streams_may_follow_each_other);
    tcase_add_test(t, a_log_cut_inside_a_frame_or_block_gives_what_it_holds);
    tcase_add_test(t, a_corrupt_lz4_block_is_an_error_not_a_crash);
    tcase_add_test(t, xxh32_matches_the_published_values);
    tcase_add_test(t, damaged_logs_never_crash);
    tcase_add_test(t, log_directories_are_read_in_spark_order);
    suite_add_tcase(s, t);
    t = tcase_create("rows");
    tcase_add_test(t, the_query_list_sorts_by_duration_and_id);
    tcase_add_test(t, heat_and_labels);
    tcase_add_test(t, the_explorers_side_of_a_node);
    tcase_add_test(t, an_event_log_plan_derives_its_fields);
    suite_add_tcase(s, t);
    t = tcase_create("cli");
    tcase_add_test(t, cli_json_has_the_application_executions_and_metrics);
    tcase_add_test(t, a_brief_names_the_application_and_counts_its_queries);
    tcase_add_test(t, cli_summary_and_lint_show_the_runtime_findings);
    suite_add_tcase(s, t);
    return s;
}
