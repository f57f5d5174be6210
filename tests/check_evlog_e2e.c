/* End-to-end, in a real terminal (tmux): an event log in the explorer — its query list
 * (sorted by duration, Enter opens a query), the metrics column on the plan's rows (m
 * toggles it), the details listing every metric and a runtime finding.  The log is written
 * by the test with the project's own lz4 encoder.  Each test ends its program with SIGTERM
 * and fails unless it exits with status 143 (128 + SIGTERM) and wrote no sanitizer report.  Skipped with a
 * message when tmux is missing. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "pollwait.h"
#include "sparkplan/evsource.h"
#include "testutil.h"
#include "tmuxterm.h"

/* Two queries: 0 (a sort that spills, 1.25 s) and 1 (a scan alone, 5 ms). */
static const char evlog[] =
    "{\"Event\":\"SparkListenerLogStart\",\"Spark Version\":\"3.5.1\"}\n"
    "{\"Event\":\"SparkListenerApplicationStart\",\"App Name\":\"e2e\",\"App ID\":\"app-e2e\","
    "\"Timestamp\":1000}\n"
    "{\"Event\":\"org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionStart\","
    "\"executionId\":0,\"description\":\"select a from t order by a\",\"details\":\"\","
    "\"physicalPlanDescription\":\"== Physical Plan ==\\n*(1) Sort [a#1 ASC NULLS FIRST], false, 0\\n"
    "+- *(1) Scan ExistingRDD[a#1]\\n\",\"sparkPlanInfo\":{\"nodeName\":\"WholeStageCodegen (1)\","
    "\"simpleString\":\"WholeStageCodegen (1)\",\"metadata\":{},\"metrics\":[],\"children\":["
    "{\"nodeName\":\"Sort\",\"simpleString\":\"Sort\",\"metadata\":{},\"metrics\":["
    "{\"name\":\"sort time\",\"accumulatorId\":2,\"metricType\":\"timing\"},"
    "{\"name\":\"spill size\",\"accumulatorId\":4,\"metricType\":\"size\"}],\"children\":["
    "{\"nodeName\":\"Scan ExistingRDD\",\"simpleString\":\"Scan ExistingRDD[a#1]\",\"metadata\":{},"
    "\"metrics\":[{\"name\":\"number of output rows\",\"accumulatorId\":6,\"metricType\":\"sum\"}],"
    "\"children\":[]}]}]},\"time\":2000}\n"
    "{\"Event\":\"SparkListenerJobStart\",\"Job ID\":0,\"Stage Infos\":[{\"Stage ID\":0,"
    "\"Stage Attempt ID\":0,\"Number of Tasks\":2}],\"Stage IDs\":[0],"
    "\"Properties\":{\"spark.sql.execution.id\":\"0\"}}\n"
    "{\"Event\":\"SparkListenerTaskEnd\",\"Stage ID\":0,\"Stage Attempt ID\":0,\"Task Info\":{"
    "\"Task ID\":1,\"Index\":0,\"Finish Time\":5,\"Failed\":false,\"Killed\":false,"
    "\"Accumulables\":[{\"ID\":2,\"Update\":\"700\"},{\"ID\":4,\"Update\":\"3145728\"},"
    "{\"ID\":6,\"Update\":\"1500\"}]}}\n"
    "{\"Event\":\"SparkListenerTaskEnd\",\"Stage ID\":0,\"Stage Attempt ID\":0,\"Task Info\":{"
    "\"Task ID\":2,\"Index\":1,\"Finish Time\":5,\"Failed\":false,\"Killed\":false,"
    "\"Accumulables\":[{\"ID\":2,\"Update\":\"300\"},{\"ID\":4,\"Update\":\"0\"},"
    "{\"ID\":6,\"Update\":\"1000\"}]}}\n"
    "{\"Event\":\"org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionEnd\","
    "\"executionId\":0,\"time\":3250}\n"
    "{\"Event\":\"org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionStart\","
    "\"executionId\":1,\"description\":\"select count(*) from u\",\"details\":\"\","
    "\"physicalPlanDescription\":\"== Physical Plan ==\\nScan ExistingRDD[b#2]\\n\","
    "\"sparkPlanInfo\":{\"nodeName\":\"Scan ExistingRDD\",\"simpleString\":\"Scan ExistingRDD[b#2]\","
    "\"metadata\":{},\"metrics\":[],\"children\":[]},\"time\":4000}\n"
    "{\"Event\":\"org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionEnd\","
    "\"executionId\":1,\"time\":4005}\n"
    "{\"Event\":\"SparkListenerApplicationEnd\",\"Timestamp\":5000}\n";

static void write_log(char *path, size_t cap)
{
    char *enc;
    size_t n;
    struct diag err = {0};
    ck_assert(ev_encode(EV_LZ4, evlog, strlen(evlog), 512, &enc, &n, &err) == SP_OK);
    snprintf(path, cap, "%s/app-e2e.lz4", tmx_dir());
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(enc, 1, n, f), n);
    ck_assert_int_eq(fclose(f), 0);
    free(enc);
}

static bool skipped(void)
{
    return !tmx_ready();
}

static void setup(void)
{
    tmx_setup("evlog");
}

static void teardown(void)
{
    tmx_teardown();
}

START_TEST(a_log_opens_on_its_query_list_and_enter_opens_a_query)
{
    if (skipped())
        return;
    char path[256];
    write_log(path, sizeof path);
    struct tmx tm;
    tmx_start(&tm, "queries", 130, 30, "", path);
    /* the longest query first; the hottest operator named */
    TMX_EXPECT(&tm, false, SHOWS("SQL queries of app-e2e"),
               SHOWS("    0      1.3 s  succeeded     1  Sort 1.0 s"),
               SHOWS("    1       5 ms  succeeded     0  -"));
    char *s = tmx_capture(&tm, false);
    ck_assert_msg(strstr(s, "select a from t") < strstr(s, "select count(*)"), "%s", s);
    free(s);
    tmx_keys(&tm, "s"); /* by id */
    tmx_wait_for(&tm, "sorted by id");
    tmx_keys(&tm, "Enter"); /* query 0 */
    TMX_EXPECT(&tm, false, SHOWS("Sort [a#1 ASC NULLS FIRST], false, 0"),
               ROW_SHOWS("Scan ExistingRDD[a#1]", "2,500 rows"),
               ROW_SHOWS("Sort [a#1 ASC NULLS FIRST]", "1.0 s  spill 3.0 MiB"));
    tmx_keys(&tm, "m"); /* the column off */
    TMX_EXPECT(&tm, false, ROW_LACKS("Scan ExistingRDD[a#1]", "2,500 rows"));
    tmx_keys(&tm, "Q"); /* the list again */
    tmx_wait_for(&tm, "SQL queries of app-e2e");
    tmx_stop(&tm);
}
END_TEST

START_TEST(the_details_list_every_metric_and_the_runtime_finding)
{
    if (skipped())
        return;
    char path[256];
    write_log(path, sizeof path);
    struct tmx tm;
    tmx_start(&tm, "details", 150, 36, "", path);
    tmx_wait_for(&tm, "SQL queries of app-e2e");
    tmx_keys(&tm, "Enter"); /* query 0, the longest */
    tmx_wait_for(&tm, "Sort [a#1 ASC NULLS FIRST], false, 0");
    TMX_EXPECT(&tm, false, SHOWS("sort time total (min, med, max (stageId: taskId))"),
               SHOWS("1.0 s (300 ms, 700 ms, 700 ms (stage 0.0: task 1))"),
               SHOWS("SP081 warning: Sort spilled 3.0 MiB to disk"),
               ROW_SHOWS("Sort [a#1 ASC NULLS FIRST]", "!"));
    tmx_stop(&tm);
}
END_TEST

/* A History Server directory of three plain logs, application k with k + 1 queries named
 * "query k.q of app-k". */
static void write_history_dir(char *dir, size_t cap)
{
    snprintf(dir, cap, "%s/history", tmx_dir());
    ck_assert_int_eq(mkdir(dir, 0700), 0);
    static const char *const names[] = {"first app", "second app", "third app"};
    for (int k = 1; k <= 3; k++) {
        char path[512];
        snprintf(path, sizeof path, "%s/app-%d", dir, k);
        FILE *f = fopen(path, "w");
        ck_assert_ptr_nonnull(f);
        fprintf(f, "{\"Event\":\"SparkListenerLogStart\",\"Spark Version\":\"3.%d.0\"}\n"
                   "{\"Event\":\"SparkListenerApplicationStart\",\"App Name\":\"%s\","
                   "\"App ID\":\"app-%d\",\"Timestamp\":1700000000000}\n",
                k, names[k - 1], k);
        for (int q = 0; q <= k; q++)
            fprintf(f, "{\"Event\":\"org.apache.spark.sql.execution.ui."
                       "SparkListenerSQLExecutionStart\",\"executionId\":%d,"
                       "\"description\":\"query %d.%d of app-%d\",\"details\":\"\","
                       "\"physicalPlanDescription\":\"== Physical Plan ==\\nScan "
                       "ExistingRDD[c%d#%d]\\n\",\"sparkPlanInfo\":{\"nodeName\":"
                       "\"Scan ExistingRDD\",\"simpleString\":\"Scan ExistingRDD\","
                       "\"metadata\":{},\"metrics\":[],\"children\":[]},\"time\":"
                       "1700000001000}\n"
                       "{\"Event\":\"org.apache.spark.sql.execution.ui."
                       "SparkListenerSQLExecutionEnd\",\"executionId\":%d,\"time\":"
                       "1700000002000}\n",
                    q, k, q, k, k, q, q);
        fprintf(f, "{\"Event\":\"SparkListenerApplicationEnd\",\"Timestamp\":%lld}\n",
                1700000000000LL + 60000LL * k);
        if (k == 3) /* a damaged line: the explorer says so when the application is opened */
            fputs("{\"Event\": not json\n", f);
        ck_assert_int_eq(fclose(f), 0);
    }
}

START_TEST(a_history_directory_opens_on_its_applications)
{
    if (skipped())
        return;
    char dir[256];
    write_history_dir(dir, sizeof dir);
    struct tmx tm;
    tmx_start(&tm, "apps", 220, 30, "", dir); /* the warning names its file by path */
    /* each application's brief: id, name, version, start, duration, queries */
    TMX_EXPECT(&tm, false, SHOWS("Applications (3; Enter opens"),
               ROW_SHOWS("app-1", "first app"), ROW_SHOWS("app-1", "3.1.0"),
               ROW_SHOWS("app-1", "2023-11-14 22:13"), ROW_SHOWS("app-1", "1.0 m"),
               ROW_SHOWS("second app", "3.2.0"), ROW_SHOWS("third app", "4"));
    tmx_keys(&tm, "j");
    tmx_keys(&tm, "Enter"); /* the second application, read now */
    TMX_EXPECT(&tm, false, SHOWS("SQL queries of app-2"), SHOWS("query 2.0 of app-2"),
               SHOWS("query 2.2 of app-2"), LACKS("query 1.0 of app-1"));
    tmx_keys(&tm, "Enter");
    TMX_EXPECT(&tm, false, SHOWS("Scan ExistingRDD[c2#"));
    tmx_keys(&tm, "A"); /* the list again, the second marked as open */
    TMX_EXPECT(&tm, false, SHOWS("Applications (3"), ROW_SHOWS("> app-2", "second app"));
    tmx_keys(&tm, "k");
    tmx_keys(&tm, "Enter");
    TMX_EXPECT(&tm, false, SHOWS("SQL queries of app-1"), SHOWS("query 1.1 of app-1"));
    tmx_keys(&tm, "A");
    tmx_wait_for(&tm, "Applications (3");
    tmx_keys(&tm, "G");
    tmx_keys(&tm, "Enter");
    TMX_EXPECT(&tm, false, SHOWS("SQL queries of app-3"),
               SHOWS("application 3 of 3: 1 warning: "), SHOWS("app-3:12: not an event (skipped)"));
    tmx_stop(&tm);
}
END_TEST

Suite *evlog_e2e_suite(void)
{
    Suite *s = suite_create("evlog_e2e");
    TCase *tc = tcase_create("tmux");
    tcase_add_unchecked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 240);
    tcase_add_test(tc, a_log_opens_on_its_query_list_and_enter_opens_a_query);
    tcase_add_test(tc, the_details_list_every_metric_and_the_runtime_finding);
    tcase_add_test(tc, a_history_directory_opens_on_its_applications);
    suite_add_tcase(s, tc);
    return s;
}
