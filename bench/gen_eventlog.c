/* gen_eventlog: a synthetic Spark event log of about SIZE_MB megabytes (decompressed) for
 * the benchmark: many SQL queries, each a sort-merge join of two scans with an aggregate,
 * three stages of many tasks, an AQE update, and task events shaped like Spark 3.5's (the
 * internal task metrics, the executor metrics, ~3 KB a TaskEnd).
 *     gen_eventlog SIZE_MB TASKS_PER_STAGE OUT
 * Deterministic: the same arguments give the same bytes. */
#include <stdio.h>
#include <stdlib.h>

static unsigned long long rng = 88172645463325252ull;
static unsigned long long next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* The metrics of the plan's nodes, by node: {name, type}. */
static const char *const node_names[] = {"Sort", "SortMergeJoin", "Exchange", "Filter",
                                         "Scan parquet ", "HashAggregate"};
static const char *const metrics[][4][2] = {
    {{"sort time", "timing"}, {"peak memory", "size"}, {"spill size", "size"}, {0, 0}},
    {{"number of output rows", "sum"}, {0, 0}, {0, 0}, {0, 0}},
    {{"shuffle records written", "sum"}, {"shuffle write time", "nsTiming"},
     {"records read", "sum"}, {"data size", "size"}},
    {{"number of output rows", "sum"}, {0, 0}, {0, 0}, {0, 0}},
    {{"number of output rows", "sum"}, {"number of files read", "sum"},
     {"scan time", "timing"}, {"size of files read", "size"}},
    {{"number of output rows", "sum"}, {"peak memory", "size"},
     {"time in aggregation build", "timing"}, {"spill size", "size"}},
};
#define N_NODES 6

static void info_node(FILE *f, int k, long base, const char *children)
{
    fprintf(f, "{\"nodeName\":\"%s\",\"simpleString\":\"%s\",\"children\":[%s],\"metadata\":{},"
               "\"metrics\":[", node_names[k], node_names[k], children);
    for (int m = 0; m < 4 && metrics[k][m][0]; m++)
        fprintf(f, "%s{\"name\":\"%s\",\"accumulatorId\":%ld,\"metricType\":\"%s\"}",
                m ? "," : "", metrics[k][m][0], base + k * 4 + m, metrics[k][m][1]);
    fputs("]}", f);
}

/* HashAggregate <- Sort <- SortMergeJoin <- (Exchange <- Filter <- Scan) x 1 (kept small). */
static void plan_info(FILE *f, long base)
{
    /* children are written inside out, as strings through a small buffer */
    char scan[1024], filter[2048], exch[4096], smj[8192], sort[12288];
    FILE *m;
    m = fmemopen(scan, sizeof scan, "w");
    info_node(m, 4, base, "");
    fclose(m);
    m = fmemopen(filter, sizeof filter, "w");
    info_node(m, 3, base, scan);
    fclose(m);
    m = fmemopen(exch, sizeof exch, "w");
    info_node(m, 2, base, filter);
    fclose(m);
    m = fmemopen(smj, sizeof smj, "w");
    info_node(m, 1, base, exch);
    fclose(m);
    m = fmemopen(sort, sizeof sort, "w");
    info_node(m, 0, base, smj);
    fclose(m);
    fputs("{\"nodeName\":\"AdaptiveSparkPlan\",\"simpleString\":\"AdaptiveSparkPlan "
          "isFinalPlan=true\",\"metadata\":{},\"metrics\":[],\"children\":[", f);
    info_node(f, 5, base, sort);
    fputs("]}", f);
}

static const char plan_text[] =
    "== Physical Plan ==\\nAdaptiveSparkPlan (7)\\n+- HashAggregate (6)\\n   +- Sort (5)\\n"
    "      +- SortMergeJoin Inner (4)\\n         +- Exchange (3)\\n            +- Filter (2)\\n"
    "               +- Scan parquet db.t%d (1)\\n\\n\\n(1) Scan parquet db.t%d\\n"
    "Output [2]: [a#1, b#2]\\nBatched: true\\nLocation: InMemoryFileIndex [file:/data/t]\\n"
    "PushedFilters: [IsNotNull(a)]\\nReadSchema: struct<a:int,b:string>\\n\\n(2) Filter\\n"
    "Input [2]: [a#1, b#2]\\nCondition : isnotnull(a#1)\\n\\n(3) Exchange\\n"
    "Input [2]: [a#1, b#2]\\nArguments: hashpartitioning(a#1, 200), ENSURE_REQUIREMENTS, [plan_id=1]\\n";

static void task_end(FILE *f, int stage, long task, int index, long base)
{
    unsigned long long r = next();
    long dur = 50 + (long)(r % 2000);
    fprintf(f, "{\"Event\":\"SparkListenerTaskEnd\",\"Stage ID\":%d,\"Stage Attempt ID\":0,"
               "\"Task Type\":\"ShuffleMapTask\",\"Task End Reason\":{\"Reason\":\"Success\"},"
               "\"Task Info\":{\"Task ID\":%ld,\"Index\":%d,\"Attempt\":0,\"Partition ID\":%d,"
               "\"Launch Time\":1700000000000,\"Executor ID\":\"%d\",\"Host\":\"10.0.0.%d\","
               "\"Locality\":\"PROCESS_LOCAL\",\"Speculative\":false,\"Getting Result Time\":0,"
               "\"Finish Time\":17000000%05ld,\"Failed\":false,\"Killed\":false,\"Accumulables\":[",
            stage, task, index, index, index % 16, index % 200, dur);
    for (int k = 0; k < N_NODES; k++)
        for (int m = 0; m < 4 && metrics[k][m][0]; m++)
            fprintf(f, "{\"ID\":%ld,\"Name\":\"%s\",\"Update\":\"%llu\",\"Value\":\"%llu\","
                       "\"Internal\":true,\"Count Failed Values\":true,\"Metadata\":\"sql\"},",
                    base + k * 4 + m, metrics[k][m][0], next() % 100000, next() % 10000000);
    static const char *const internal[] = {
        "executorDeserializeTime", "executorDeserializeCpuTime", "executorRunTime",
        "executorCpuTime", "resultSize", "jvmGCTime", "resultSerializationTime",
        "shuffle.write.bytesWritten", "shuffle.write.recordsWritten", "shuffle.write.writeTime",
        "input.bytesRead", "input.recordsRead"};
    for (int i = 0; i < 12; i++)
        fprintf(f, "%s{\"ID\":%d,\"Name\":\"internal.metrics.%s\",\"Update\":%llu,\"Value\":%llu,"
                   "\"Internal\":true,\"Count Failed Values\":true}",
                i ? "," : "", 1 + i, internal[i], next() % 100000, next() % 100000000);
    fprintf(f, "]},\"Task Executor Metrics\":{\"JVMHeapMemory\":0,\"JVMOffHeapMemory\":0,"
               "\"OnHeapExecutionMemory\":0,\"OffHeapExecutionMemory\":0,\"OnHeapStorageMemory\":0,"
               "\"OffHeapStorageMemory\":0,\"OnHeapUnifiedMemory\":0,\"OffHeapUnifiedMemory\":0,"
               "\"DirectPoolMemory\":0,\"MappedPoolMemory\":0,\"ProcessTreeJVMVMemory\":0,"
               "\"ProcessTreeJVMRSSMemory\":0,\"MinorGCCount\":0,\"MinorGCTime\":0,"
               "\"MajorGCCount\":0,\"MajorGCTime\":0,\"TotalGCTime\":0},\"Task Metrics\":{"
               "\"Executor Deserialize Time\":3,\"Executor Deserialize CPU Time\":2657000,"
               "\"Executor Run Time\":%ld,\"Executor CPU Time\":%ld,\"Peak Execution Memory\":0,"
               "\"Result Size\":2500,\"JVM GC Time\":0,\"Result Serialization Time\":0,"
               "\"Memory Bytes Spilled\":0,\"Disk Bytes Spilled\":0,\"Shuffle Read Metrics\":{"
               "\"Remote Blocks Fetched\":0,\"Local Blocks Fetched\":0,\"Fetch Wait Time\":0,"
               "\"Remote Bytes Read\":0,\"Remote Bytes Read To Disk\":0,\"Local Bytes Read\":0,"
               "\"Total Records Read\":0},\"Shuffle Write Metrics\":{\"Shuffle Bytes Written\":%llu,"
               "\"Shuffle Write Time\":%llu,\"Shuffle Records Written\":%llu},\"Input Metrics\":{"
               "\"Bytes Read\":%llu,\"Records Read\":%llu},\"Output Metrics\":{\"Bytes Written\":0,"
               "\"Records Written\":0},\"Updated Blocks\":[]}}\n",
            dur, dur * 900000, next() % 100000000, next() % 10000000, next() % 1000000,
            next() % 1000000000, next() % 1000000);
}

static void query(FILE *f, int q, int tasks, long *task_id, int *stage)
{
    long base = 1000 + (long)q * 100;
    fprintf(f, "{\"Event\":\"org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionStart\","
               "\"executionId\":%d,\"description\":\"select a, count(*) from t%d join u on ... "
               "group by a\",\"details\":\"sql at Bench.scala:%d\",\"physicalPlanDescription\":\"",
            q, q, q);
    fprintf(f, plan_text, q, q);
    fputs("\",\"sparkPlanInfo\":", f);
    plan_info(f, base);
    fprintf(f, ",\"time\":17000000%05d,\"modifiedConfigs\":{}}\n", q % 100000);
    fprintf(f, "{\"Event\":\"org.apache.spark.sql.execution.ui.SparkListenerSQLAdaptiveExecutionUpdate\","
               "\"executionId\":%d,\"physicalPlanDescription\":\"", q);
    fprintf(f, plan_text, q, q);
    fputs("\",\"sparkPlanInfo\":", f);
    plan_info(f, base);
    fputs("}\n", f);
    fprintf(f, "{\"Event\":\"SparkListenerJobStart\",\"Job ID\":%d,\"Submission Time\":1,"
               "\"Stage Infos\":[", q);
    for (int s = 0; s < 3; s++)
        fprintf(f, "%s{\"Stage ID\":%d,\"Stage Attempt ID\":0,\"Stage Name\":\"sql at "
                   "Bench.scala:%d\",\"Number of Tasks\":%d,\"RDD Info\":[],\"Parent IDs\":[],"
                   "\"Details\":\"\",\"Accumulables\":[],\"Resource Profile Id\":0}",
                s ? "," : "", *stage + s, q, tasks);
    fprintf(f, "],\"Stage IDs\":[%d,%d,%d],\"Properties\":{\"spark.sql.execution.id\":\"%d\","
               "\"spark.job.description\":\"bench\"}}\n", *stage, *stage + 1, *stage + 2, q);
    for (int s = 0; s < 3; s++) {
        fprintf(f, "{\"Event\":\"SparkListenerStageSubmitted\",\"Stage Info\":{\"Stage ID\":%d,"
                   "\"Stage Attempt ID\":0,\"Stage Name\":\"x\",\"Number of Tasks\":%d},"
                   "\"Properties\":{}}\n", *stage + s, tasks);
        for (int t = 0; t < tasks; t++) {
            fprintf(f, "{\"Event\":\"SparkListenerTaskStart\",\"Stage ID\":%d,\"Stage Attempt "
                       "ID\":0,\"Task Info\":{\"Task ID\":%ld,\"Index\":%d,\"Attempt\":0,"
                       "\"Launch Time\":1700000000000,\"Executor ID\":\"1\",\"Host\":\"h\","
                       "\"Locality\":\"PROCESS_LOCAL\",\"Speculative\":false,\"Getting Result "
                       "Time\":0,\"Finish Time\":0,\"Failed\":false,\"Killed\":false,"
                       "\"Accumulables\":[]}}\n", *stage + s, *task_id + t, t);
        }
        for (int t = 0; t < tasks; t++)
            task_end(f, *stage + s, (*task_id)++, t, base);
        fprintf(f, "{\"Event\":\"SparkListenerStageCompleted\",\"Stage Info\":{\"Stage ID\":%d,"
                   "\"Stage Attempt ID\":0,\"Number of Tasks\":%d,\"Accumulables\":[]}}\n",
                *stage + s, tasks);
    }
    *stage += 3;
    fprintf(f, "{\"Event\":\"SparkListenerJobEnd\",\"Job ID\":%d,\"Completion Time\":2,"
               "\"Job Result\":{\"Result\":\"JobSucceeded\"}}\n", q);
    fprintf(f, "{\"Event\":\"org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionEnd\","
               "\"executionId\":%d,\"time\":17000001%05d}\n", q, q % 100000);
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: gen_eventlog SIZE_MB TASKS_PER_STAGE OUT\n");
        return 2;
    }
    long target = atol(argv[1]) * 1000000L;
    int tasks = atoi(argv[2]);
    FILE *f = fopen(argv[3], "w");
    if (!f || target <= 0 || tasks <= 0) {
        perror(argv[3]);
        return 2;
    }
    fputs("{\"Event\":\"SparkListenerLogStart\",\"Spark Version\":\"3.5.1\"}\n"
          "{\"Event\":\"SparkListenerApplicationStart\",\"App Name\":\"bench\","
          "\"App ID\":\"app-bench\",\"Timestamp\":1700000000000,\"User\":\"bench\"}\n", f);
    long task_id = 0;
    int stage = 0;
    for (int q = 0; ftell(f) < target; q++)
        query(f, q, tasks, &task_id, &stage);
    fputs("{\"Event\":\"SparkListenerApplicationEnd\",\"Timestamp\":1700000900000}\n", f);
    return fclose(f) == 0 ? 0 : 1;
}
