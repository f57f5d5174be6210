/* catalog.c: the operator catalogue — data only (see catalog.h; lookup is in catalog_lookup.c).
 *
 * One entry per operator name found in ../shared/corpus (scripts/corpus-operators.py lists
 * them; tests/check_catalog.c fails when one is missing), plus common operators the corpus
 * lacks.  Fields: name, engine, Spark operator it stands for, kind, role, join strategy,
 * data movement, what it does, what to check.  Keep sentences plain: they are read in a
 * workshop on a projector.
 */
#include "sparkplan/catalog.h"

#define SPARK ENGINE_SPARK
#define PHOTON ENGINE_PHOTON
#define COMET ENGINE_COMET
#define GLUTEN ENGINE_GLUTEN
#define RAPIDS ENGINE_RAPIDS
#define AURON ENGINE_AURON
#define PHYS KIND_PHYSICAL
#define LOGI KIND_LOGICAL
#define BOTH KIND_BOTH
#define CMD KIND_COMMAND
#define MARK KIND_MARKER
#define NOJ JOIN_NONE
#define NARROW MOVE_NARROW
#define SHUFFLE MOVE_SHUFFLE
#define BCAST MOVE_BROADCAST
#define GATHER MOVE_GATHER
#define NONE MOVE_NONE
#define DRIVER MOVE_DRIVER

/* Shared sentences, so variants of one operator say the same thing. */
#define SCAN_CHECK \
    "ReadSchema should list only the columns the query needs (column pruning). PushedFilters " \
    "are handed to the reader, which skips row groups or stripes; PartitionFilters prune whole " \
    "partition directories (dynamicpruningexpression: pruned at run time by dynamic partition " \
    "pruning). An empty PushedFilters under a Filter means every row is read and then filtered."
#define EXCHANGE_CHECK \
    "The partitioning says how rows are redistributed: hashpartitioning(keys, n) groups equal " \
    "keys for a join or aggregate above, rangepartitioning for a global sort, RoundRobin for " \
    "repartition(n), SinglePartition sends every row to one task. ENSURE_REQUIREMENTS means an " \
    "operator above needs it; REPARTITION_* means the query asked for it. n is " \
    "spark.sql.shuffle.partitions unless AQE coalesces."
#define BCAST_CHECK \
    "The broadcast side must fit in the driver and in every executor: its size decides " \
    "(spark.sql.autoBroadcastJoinThreshold, 10 MB by default, or a BROADCAST hint). The mode " \
    "lists the join keys the hash table is built on."
#define BHJ_CHECK \
    "The build side (BuildLeft/BuildRight) is the one broadcast and must be small; the other " \
    "side streams through without a shuffle. Check the join keys, the join type and any extra " \
    "join condition."
#define SMJ_CHECK \
    "Both children should be a Sort over an Exchange hashpartitioning on the join keys (or " \
    "already partitioned). If one side is under the broadcast threshold (10 MB), a broadcast " \
    "hash join would avoid shuffling the big side. (skew=true) means AQE split skewed partitions."
#define SHJ_CHECK \
    "The build side must fit in memory in each task. Spark picks it when " \
    "spark.sql.join.preferSortMergeJoin=false, for a SHUFFLE_HASH hint, or when AQE finds small " \
    "partitions."
#define BNLJ_CHECK \
    "A missing join condition or one that is not an equality (ranges, OR, <>): every row of the " \
    "streamed side is compared with every broadcast row, so the cost is the product of the two " \
    "sizes. Harmless when one side is a single row (a global aggregate)."
#define AGG_CHECK \
    "Keys and functions: partial_ functions run before the shuffle, the final merge after an " \
    "Exchange hashpartitioning(keys). keys=[] is a global aggregate that ends in one task. " \
    "Several pairs of aggregates come from DISTINCT aggregates."
#define FILTER_CHECK \
    "Is the condition also pushed into the scan below (PushedFilters, PartitionFilters)? " \
    "isnotnull(...) conditions are added by the optimizer for join keys. A filter on the " \
    "result of a UDF cannot be pushed."
#define PROJECT_CHECK \
    "New columns appear as expr AS name#id; expensive expressions and UDFs are evaluated here " \
    "for every row."
#define SORT_CHECK \
    "A Sort under a SortMergeJoin, window or sort aggregate is required by it; global=true " \
    "(ORDER BY) needs a rangepartitioning Exchange below. Large sorts spill to disk."
#define TRANSITION_CHECK \
    "Transitions cost a copy of every row; many of them means the plan switches engines often."
#define PYTHON_CHECK \
    "Rows leave the JVM for a Python worker and come back: whole-stage codegen stops here, " \
    "and filters on the UDF result cannot be pushed into the scan. Prefer built-in functions; " \
    "if a UDF is needed, a vectorized pandas_udf (ArrowEvalPython) is much cheaper than a " \
    "plain udf (BatchEvalPython)."

const struct catalog_entry catalog_entries[] = {
    /* ---- Spark: adaptive execution ------------------------------------------------------ */
    {"AdaptiveSparkPlan", SPARK, NULL, PHYS, CAT_AQE, NOJ, NARROW,
     "Root of a plan run with Adaptive Query Execution (AQE): Spark re-plans what is above each "
     "finished stage using the sizes it measured.",
     "isFinalPlan=false: this is the plan before (or during) execution and AQE may still change "
     "joins, partition counts and skew handling; run the query and read the final plan (Spark UI "
     "SQL tab or event log). With isFinalPlan=true compare the Final Plan with the Initial Plan."},
    {"ShuffleQueryStage", SPARK, NULL, MARK, CAT_QUERY_STAGE, NOJ, NARROW,
     "An AQE query stage: the shuffle below it ran as a stage of its own, and its measured size "
     "is what AQE used to re-plan the operators above.",
     "Statistics(sizeInBytes, rowCount) on it are measured at run time, not estimated: small sizes "
     "explain why AQE switched a join to broadcast or coalesced partitions."},
    {"BroadcastQueryStage", SPARK, NULL, MARK, CAT_QUERY_STAGE, NOJ, NARROW,
     "An AQE query stage that materialized a broadcast: the side below it was collected and "
     "broadcast before the rest of the plan continued.",
     "Its runtime size is the real size of the broadcast table."},
    {"TableCacheQueryStage", SPARK, NULL, MARK, CAT_QUERY_STAGE, NOJ, NARROW,
     "An AQE query stage around a cached relation (Spark 3.5+): the cache is materialized first "
     "so AQE can use its real size.",
     "The InMemoryTableScan below it reads the cache."},
    {"ResultQueryStage", SPARK, NULL, MARK, CAT_QUERY_STAGE, NOJ, NARROW,
     "The last AQE stage, which computes the query result (Spark 4.0+ and Databricks).",
     "Its Statistics are a placeholder in open-source Spark (8.0 EiB): do not read them as a size."},
    {"AQEShuffleRead", SPARK, NULL, PHYS, CAT_SHUFFLE_READ, NOJ, NARROW,
     "Reads the output of a shuffle stage the way AQE decided: coalesced merges small partitions "
     "into fewer tasks, skewed splits big ones, local reads map output in place after a join "
     "became a broadcast join.",
     "The argument says what AQE did (coalesced, skewed, local). skewed means a skew join split; "
     "local means a shuffle was made unnecessary."},
    {"CustomShuffleReader", SPARK, NULL, PHYS, CAT_SHUFFLE_READ, NOJ, NARROW,
     "Spark 3.0/3.1 name of AQEShuffleRead: reads a shuffle stage's output coalesced, split for "
     "skew, or locally, as AQE decided.",
     "The argument says what AQE did (coalesced, skewed, local)."},

    /* ---- Spark: exchanges ---------------------------------------------------------------- */
    {"Exchange", SPARK, NULL, PHYS, CAT_SHUFFLE, NOJ, SHUFFLE,
     "A shuffle: every task writes its rows into buckets chosen by the partitioning, and the "
     "next stage reads them back over the network. It ends a stage.",
     EXCHANGE_CHECK},
    {"ShuffleExchange", SPARK, "Exchange", PHYS, CAT_SHUFFLE, NOJ, SHUFFLE,
     "Spark 2.x name of Exchange: a shuffle that redistributes rows between partitions and ends "
     "a stage.",
     EXCHANGE_CHECK},
    {"BroadcastExchange", SPARK, NULL, PHYS, CAT_BROADCAST, NOJ, BCAST,
     "Collects all rows of its child to the driver, builds a hash table (HashedRelationBroadcastMode) "
     "or keeps the rows (IdentityBroadcastMode), and sends a copy to every executor for a "
     "broadcast join.",
     BCAST_CHECK},
    {"ReusedExchange", SPARK, NULL, PHYS, CAT_REUSED, NOJ, NARROW,
     "Reuses the output of an identical Exchange elsewhere in the plan instead of computing it "
     "again.",
     "Reuses operator id points at the original exchange; reuse saves a whole stage of work."},

    /* ---- Spark: joins -------------------------------------------------------------------- */
    {"SortMergeJoin", SPARK, NULL, PHYS, CAT_JOIN, JOIN_SORT_MERGE, NARROW,
     "Joins two inputs that are both shuffled by the join keys and sorted, walking the two "
     "sorted sides together. Works for any size, at the cost of shuffling and sorting both sides.",
     SMJ_CHECK},
    {"ShuffledHashJoin", SPARK, NULL, PHYS, CAT_JOIN, JOIN_SHUFFLED_HASH, NARROW,
     "Joins two inputs shuffled by the join keys by building a hash table from one side "
     "(BuildLeft/BuildRight) in each partition; no sort.",
     SHJ_CHECK},
    {"BroadcastHashJoin", SPARK, NULL, PHYS, CAT_JOIN, JOIN_BROADCAST_HASH, NARROW,
     "Joins by looking up each row of the big side in a hash table built from the small side, "
     "which was broadcast to every executor: the big side is not shuffled.",
     BHJ_CHECK},
    {"BroadcastNestedLoopJoin", SPARK, NULL, PHYS, CAT_JOIN, JOIN_BROADCAST_NESTED_LOOP, NARROW,
     "Broadcasts one side and compares every row of the other side with every broadcast row. "
     "Spark uses it when there is no equality in the join condition.",
     BNLJ_CHECK},
    {"CartesianProduct", SPARK, NULL, PHYS, CAT_JOIN, JOIN_CARTESIAN, NARROW,
     "Pairs every row of one side with every row of the other (a cross join), then applies the "
     "condition if any; neither side is broadcast.",
     "A missing join condition (an accidental cross join?): the output has as many rows as the "
     "product of the inputs. Harmless only when both sides are tiny."},

    /* ---- Spark: aggregation -------------------------------------------------------------- */
    {"HashAggregate", SPARK, NULL, PHYS, CAT_AGGREGATE, NOJ, NARROW,
     "Groups rows by the keys in a hash table and computes the aggregate functions. It usually "
     "appears twice: partial aggregates before the shuffle, the final merge after it.",
     AGG_CHECK},
    {"ObjectHashAggregate", SPARK, NULL, PHYS, CAT_AGGREGATE, NOJ, NARROW,
     "Hash aggregation for functions whose state is a JVM object (collect_list, collect_set, "
     "percentile_approx, typed aggregators); falls back to sorting when the hash map grows too big.",
     AGG_CHECK " The fallback threshold is spark.sql.objectHashAggregate.sortBased.fallbackThreshold."},
    {"SortAggregate", SPARK, NULL, PHYS, CAT_AGGREGATE, NOJ, NARROW,
     "Aggregates rows sorted by the grouping keys, one group at a time. Spark picks it when the "
     "aggregation buffer cannot be kept in a hash map.",
     "A Sort on the grouping keys sits below it and costs time and memory; check which aggregate "
     "function forced it."},

    /* ---- Spark: row operators ------------------------------------------------------------ */
    {"Project", SPARK, NULL, BOTH, CAT_PROJECT, NOJ, NARROW,
     "Computes the output columns of each row: keeps, renames (AS) and calculates expressions.",
     PROJECT_CHECK},
    {"Filter", SPARK, NULL, BOTH, CAT_FILTER, NOJ, NARROW,
     "Keeps only the rows for which the condition is true.",
     FILTER_CHECK},
    {"Sort", SPARK, NULL, BOTH, CAT_SORT, NOJ, NARROW,
     "Sorts the rows of each partition; after a rangepartitioning Exchange (global=true) the "
     "whole output is in order.",
     SORT_CHECK},
    {"TakeOrderedAndProject", SPARK, NULL, PHYS, CAT_LIMIT, NOJ, GATHER,
     "ORDER BY ... LIMIT n: every partition keeps its own top n rows, then a single task merges "
     "them and computes the output columns.",
     "limit and orderBy: a large limit makes the single final task heavy."},
    {"CollectLimit", SPARK, NULL, PHYS, CAT_LIMIT, NOJ, GATHER,
     "LIMIT n at the end of a query: takes the first n rows, scanning as few partitions as it "
     "can, and returns them to the driver.",
     "No ORDER BY: any n rows qualify. A large n collects a lot into the driver."},
    {"CollectTail", SPARK, NULL, PHYS, CAT_LIMIT, NOJ, GATHER,
     "tail(n): takes the last n rows and returns them to the driver.",
     "Every partition may be read to find the last rows."},
    {"GlobalLimit", SPARK, NULL, BOTH, CAT_LIMIT, NOJ, NARROW,
     "Keeps the first n rows overall (after an optional offset). In a physical plan it runs after "
     "an Exchange SinglePartition that gathers the LocalLimit results in one task.",
     "The Exchange SinglePartition below it; without ORDER BY the rows kept are arbitrary."},
    {"LocalLimit", SPARK, NULL, BOTH, CAT_LIMIT, NOJ, NARROW,
     "Keeps the first n rows of each partition: the first half of a LIMIT, so that the final "
     "single task receives at most n rows per partition.",
     "Pairs with a GlobalLimit above it."},
    {"Union", SPARK, NULL, BOTH, CAT_SET, NOJ, NARROW,
     "Concatenates the rows of its children without removing duplicates (UNION ALL; UNION adds "
     "an aggregate on top to remove them).",
     "The result has as many partitions as all children together."},
    {"Expand", SPARK, NULL, BOTH, CAT_EXPAND, NOJ, NARROW,
     "Emits several rows for each input row, one per projection list: this is how GROUPING SETS, "
     "ROLLUP, CUBE and several DISTINCT aggregates are computed.",
     "The number of projections multiplies the rows sent to the aggregate and the shuffle above "
     "(spark_grouping_id tells the copies apart)."},
    {"Generate", SPARK, NULL, BOTH, CAT_EXPAND, NOJ, NARROW,
     "Produces zero or more rows per input row from a generator such as explode, posexplode, "
     "inline or json_tuple.",
     "outer=true keeps rows whose array is empty; exploding big arrays multiplies the row count."},
    {"Window", SPARK, NULL, BOTH, CAT_WINDOW, NOJ, NARROW,
     "Computes window functions (row_number, rank, lag/lead, running sums) over groups of rows "
     "that share the partitionBy keys, in the orderBy order.",
     "partitionBy keys: without them an Exchange SinglePartition sends every row to one task. "
     "The Sort below it is on the partition keys then the order keys."},
    {"WindowGroupLimit", SPARK, NULL, BOTH, CAT_WINDOW, NOJ, NARROW,
     "Spark 3.5+: drops rows early when a rank-like window function is compared with a limit "
     "(row_number() <= 5), once before the shuffle (Partial) and once after it (Final).",
     "Means the top-N per group is computed cheaply; the Window above it still runs."},
    {"Sample", SPARK, NULL, BOTH, CAT_OTHER, NOJ, NARROW,
     "Keeps a random fraction of the rows (sample / TABLESAMPLE), with or without replacement.",
     "lower bound, upper bound, withReplacement, seed."},
    {"Coalesce", SPARK, NULL, PHYS, CAT_OTHER, NOJ, NARROW,
     "Reduces the number of partitions without a shuffle (coalesce(n)) by merging neighbouring "
     "partitions into one task.",
     "coalesce(1) makes the whole stage above the previous shuffle run in one task; "
     "repartition(n) shuffles but keeps the upstream work parallel."},
    {"Range", SPARK, NULL, BOTH, CAT_SCAN, NOJ, NARROW,
     "Generates the numbers start to end by step (spark.range, range()) in `splits` partitions.",
     "splits is the number of partitions produced."},
    {"LocalTableScan", SPARK, NULL, PHYS, CAT_SCAN, NOJ, NARROW,
     "Rows that are already in the plan: a literal VALUES table, a small local collection, or "
     "<empty> when the optimizer proved the result empty.",
     "<empty> means this branch produces no rows."},

    /* ---- Spark: scans ------------------------------------------------------------------- */
    {"FileScan", SPARK, NULL, PHYS, CAT_SCAN, NOJ, NARROW,
     "Reads the files of a table or path (Parquet, ORC, CSV, JSON, text) with Spark's built-in "
     "reader. Simple mode prints it as FileScan <format>, formatted mode as Scan <format>.",
     SCAN_CHECK " Batched: true means the vectorized reader."},
    {"BatchScan", SPARK, NULL, PHYS, CAT_SCAN, NOJ, NARROW,
     "Reads a data source V2 table (Iceberg, Delta, Parquet through V2, JDBC V2...) through the "
     "source's own Scan object.",
     SCAN_CHECK " RuntimeFilters are dynamic pruning filters; KeyGroupedPartitioning lets a join "
     "skip the shuffle (storage-partitioned join)."},
    {"MicroBatchScan", SPARK, NULL, PHYS, CAT_SCAN, NOJ, NARROW,
     "Reads one micro-batch of a streaming V2 source (Kafka, rate, files) in Structured Streaming.",
     "The offsets of the batch; pushdown depends on the source."},
    {"Scan hive", SPARK, NULL, PHYS, CAT_SCAN, NOJ, NARROW,
     "Reads a Hive table through its Hive SerDe, row by row (HiveTableScan), used when the table "
     "is not converted to Spark's native Parquet/ORC reader.",
     "The partition pruning predicates printed at the end; spark.sql.hive.convertMetastoreParquet "
     "/ convertMetastoreOrc switch to the faster native reader."},
    {"Scan ExistingRDD", SPARK, NULL, PHYS, CAT_SCAN, NOJ, NARROW,
     "Reads rows from an existing RDD (a DataFrame made from an RDD or a local collection).",
     "Nothing can be pushed into it and the optimizer has no size statistics for it."},
    {"Scan OneRowRelation", SPARK, NULL, PHYS, CAT_SCAN, NOJ, NARROW,
     "A single row with no columns: the input of a SELECT without FROM.",
     "Nothing to check."},
    {"Scan", SPARK, NULL, PHYS, CAT_SCAN, NOJ, NARROW,
     "Reads JVM objects from the RDD behind a typed Dataset (ExternalRDDScan); each row is one "
     "object (obj#N).",
     "Typed Datasets serialize and deserialize objects: no pushdown and no statistics."},
    {"Scan JDBCRelation", SPARK, NULL, PHYS, CAT_SCAN, NOJ, NARROW,
     "Reads a table or query from a database over JDBC (a V1 data source that returns rows).",
     "PushedFilters marked with * are handled by the database; numPartitions=1 means one "
     "connection reads everything (set partitionColumn, lowerBound, upperBound, numPartitions)."},
    {"RowDataSourceScan", SPARK, NULL, PHYS, CAT_SCAN, NOJ, NARROW,
     "Reads a V1 data source that returns rows (printed Scan <relation> <table>): JDBC and other "
     "external sources.",
     "PushedFilters marked with * are fully handled by the source; ReadSchema lists the columns read."},

    /* ---- Spark: cache --------------------------------------------------------------------- */
    {"InMemoryTableScan", SPARK, NULL, PHYS, CAT_CACHE, NOJ, NARROW,
     "Reads a cached DataFrame or table (cache(), persist(), CACHE TABLE) from executor memory or "
     "disk instead of recomputing it.",
     "The cache is used: the plan under InMemoryRelation runs only to fill it the first time. "
     "Predicates listed after the columns skip cached batches. A cache goes stale if the source "
     "data changes."},
    {"InMemoryRelation", SPARK, NULL, BOTH, CAT_CACHE, NOJ, NARROW,
     "A cached relation: its columns, storage level, and below it the plan that computes the data "
     "when the cache is first filled.",
     "StorageLevel (memory, disk, deserialized, replicas): MEMORY_AND_DISK is the DataFrame "
     "default."},

    /* ---- Spark: codegen and columnar transitions ------------------------------------------- */
    {"WholeStageCodegen", SPARK, NULL, MARK, CAT_CODEGEN, NOJ, NARROW,
     "Fuses the operators of one stage into a single generated Java function, so rows pass "
     "between them without virtual calls. Explain prints it as the *(N) marker.",
     "N is the codegen stage id. Operators without the marker run interpreted."},
    {"InputAdapter", SPARK, NULL, MARK, CAT_CODEGEN, NOJ, NARROW,
     "The point where a whole-stage-codegen function reads from an operator that is not part of "
     "it (a shuffle, a scan, another stage). Explain does not print it; simplified trees do.",
     "Marks the start of a codegen stage."},
    {"ColumnarToRow", SPARK, NULL, PHYS, CAT_TRANSITION, NOJ, NARROW,
     "Turns columnar batches (from a vectorized Parquet/ORC reader or the cache) into rows for "
     "the row-based operators above.",
     "Normal above a Batched: true scan."},
    {"RowToColumnar", SPARK, NULL, PHYS, CAT_TRANSITION, NOJ, NARROW,
     "Packs rows into columnar batches for an operator that works on batches.",
     TRANSITION_CHECK},

    /* ---- Spark: subqueries ---------------------------------------------------------------- */
    {"Subquery", SPARK, NULL, PHYS, CAT_SUBQUERY, NOJ, GATHER,
     "Runs a scalar subquery once and hands its single value to the operator that uses it "
     "(the hosting operator).",
     "The hosting operator and expression; the same subquery used twice should show as "
     "ReusedSubquery."},
    {"SubqueryBroadcast", SPARK, NULL, PHYS, CAT_SUBQUERY, NOJ, GATHER,
     "Takes the join-key values of a broadcast join's small side so that a scan on the other side "
     "can skip partitions: dynamic partition pruning (DPP).",
     "The scan with dynamicpruningexpression(... IN dynamicpruning#N) in PartitionFilters uses it."},
    {"ReusedSubquery", SPARK, NULL, PHYS, CAT_REUSED, NOJ, NARROW,
     "Reuses the result of an identical subquery that runs elsewhere in the plan.",
     "The subquery it refers to runs once."},

    /* ---- Spark: typed Dataset operators ------------------------------------------------- */
    {"DeserializeToObject", SPARK, NULL, BOTH, CAT_OTHER, NOJ, NARROW,
     "Turns rows into JVM objects (obj#N) for a typed Dataset operation such as map or filter "
     "with a lambda.",
     "Object conversion costs time and stops pushdown: prefer Column expressions."},
    {"SerializeFromObject", SPARK, NULL, BOTH, CAT_OTHER, NOJ, NARROW,
     "Turns JVM objects of a typed Dataset back into rows.",
     "Pairs with DeserializeToObject below; together they mark typed code."},
    {"MapElements", SPARK, NULL, BOTH, CAT_OTHER, NOJ, NARROW,
     "Applies a typed map function (Dataset.map) to each object.",
     "The function is a black box to the optimizer."},
    {"MapPartitions", SPARK, NULL, BOTH, CAT_OTHER, NOJ, NARROW,
     "Applies a function to all objects of a partition at once (Dataset.mapPartitions or an "
     "internal per-partition step).",
     "The function is a black box to the optimizer."},
    {"TypedFilter", SPARK, NULL, LOGI, CAT_FILTER, NOJ, NONE,
     "A filter written as a lambda on typed objects (Dataset.filter(x => ...)).",
     "The lambda cannot be pushed into the scan; a Column condition could."},
    {"AppendColumns", SPARK, NULL, BOTH, CAT_OTHER, NOJ, NARROW,
     "Adds columns computed by a typed function, for groupByKey.",
     "The key function is a black box to the optimizer."},
    {"MapGroups", SPARK, NULL, BOTH, CAT_OTHER, NOJ, NARROW,
     "Applies a function to each group of a groupByKey (mapGroups / flatMapGroups).",
     "A whole group is held in memory by the function."},

    /* ---- Spark: Python ------------------------------------------------------------------- */
    {"BatchEvalPython", SPARK, NULL, PHYS, CAT_PYTHON, NOJ, NARROW,
     "Evaluates plain Python UDFs (@udf): rows are pickled in batches, sent to a Python worker, "
     "evaluated one row at a time, and the results sent back.",
     PYTHON_CHECK},
    {"ArrowEvalPython", SPARK, NULL, PHYS, CAT_PYTHON, NOJ, NARROW,
     "Evaluates vectorized pandas UDFs (@pandas_udf) or Arrow-optimized UDFs: columns are sent to "
     "a Python worker as Arrow batches.",
     PYTHON_CHECK},
    {"FlatMapGroupsInPandas", SPARK, NULL, PHYS, CAT_PYTHON, NOJ, NARROW,
     "groupBy().applyInPandas(): each group, after a shuffle by the grouping keys, is handed to a "
     "Python function as one pandas DataFrame.",
     PYTHON_CHECK " A whole group must fit in the Python worker's memory."},
    {"FlatMapCoGroupsInPandas", SPARK, NULL, PHYS, CAT_PYTHON, NOJ, NARROW,
     "cogroup().applyInPandas(): the matching groups of two inputs are handed to a Python "
     "function as two pandas DataFrames.",
     PYTHON_CHECK},
    {"MapInPandas", SPARK, NULL, PHYS, CAT_PYTHON, NOJ, NARROW,
     "mapInPandas(): each partition is streamed through a Python function as pandas DataFrames.",
     PYTHON_CHECK},
    {"MapInArrow", SPARK, NULL, PHYS, CAT_PYTHON, NOJ, NARROW,
     "mapInArrow(): each partition is streamed through a Python function as Arrow record batches.",
     PYTHON_CHECK},
    {"PythonMapInArrow", SPARK, NULL, PHYS, CAT_PYTHON, NOJ, NARROW,
     "Spark 3.3 name of MapInArrow: partitions streamed through a Python function as Arrow batches.",
     PYTHON_CHECK},
    {"AggregateInPandas", SPARK, NULL, PHYS, CAT_PYTHON, NOJ, NARROW,
     "Evaluates grouped-aggregate pandas UDFs (a pandas_udf returning one value per group) after "
     "a shuffle by the grouping keys.",
     PYTHON_CHECK},
    {"WindowInPandas", SPARK, NULL, PHYS, CAT_PYTHON, NOJ, NARROW,
     "Evaluates pandas UDFs used as window functions over a window specification.",
     PYTHON_CHECK},
    {"ArrowWindowPython", SPARK, NULL, PHYS, CAT_PYTHON, NOJ, NARROW,
     "Spark 4.1 name of WindowInPandas: pandas UDFs used as window functions.",
     PYTHON_CHECK},
    {"FlatMapGroupsInPandasWithState", SPARK, NULL, PHYS, CAT_PYTHON, NOJ, NARROW,
     "applyInPandasWithState() in Structured Streaming: each group and its saved state go to a "
     "Python function.",
     PYTHON_CHECK},
    {"BatchEvalPythonUDTF", SPARK, NULL, PHYS, CAT_PYTHON, NOJ, NARROW,
     "Evaluates a Python user-defined table function (UDTF) row by row in a Python worker.",
     PYTHON_CHECK},
    {"ArrowEvalPythonUDTF", SPARK, NULL, PHYS, CAT_PYTHON, NOJ, NARROW,
     "Evaluates an Arrow-optimized Python table function (UDTF) in a Python worker.",
     PYTHON_CHECK},

    /* ---- Spark: writes, commands, streaming --------------------------------------------- */
    {"Execute", SPARK, NULL, PHYS, CAT_COMMAND, NOJ, DRIVER,
     "Runs a command on the driver when the query executes (ExecutedCommandExec, or "
     "DataWritingCommandExec for writes): DDL, SET, SHOW, INSERT, CREATE TABLE AS SELECT... "
     "The command's name follows the word Execute; a command that writes data runs the query "
     "below it as Spark jobs and writes its rows.",
     "The command and its arguments (table, save mode, columns); for a write, the query below "
     "is what does the work, and its last partitioning decides how many files are written."},
    {"ExecutedCommand", SPARK, "Execute", PHYS, CAT_COMMAND, NOJ, DRIVER,
     "Spark 2.x name of Execute: runs the command printed below it on the driver.",
     "The command below it; for a write, the query under the command does the work."},
    {"CommandResult", SPARK, NULL, PHYS, CAT_COMMAND, NOJ, NARROW,
     "The rows a command already produced when it ran eagerly (SHOW TABLES, a CREATE TABLE AS "
     "SELECT that already ran); the command's own plan is printed inside.",
     "The work happened when the command ran, not when this result is read."},
    {"WriteFiles", SPARK, NULL, BOTH, CAT_WRITE, NOJ, NARROW,
     "Writes the rows of its child to files for an INSERT, CREATE TABLE AS SELECT or df.write "
     "(Spark 3.4+).",
     "One file per task and partition value: the number of partitions below decides the number "
     "of files. A Sort below it orders rows by the partition columns."},
    {"WriteToDataSourceV2", SPARK, NULL, BOTH, CAT_WRITE, NOJ, NARROW,
     "Writes rows to a data source V2 sink, for example a Structured Streaming micro-batch.",
     "The sink and its write options."},
    {"AppendData", SPARK, NULL, BOTH, CAT_WRITE, NOJ, NARROW,
     "INSERT INTO a data source V2 table (Iceberg, Delta...): appends the query's rows.",
     "The target table."},
    {"StateStoreRestore", SPARK, NULL, PHYS, CAT_OTHER, NOJ, NARROW,
     "Structured Streaming: reads the saved aggregation state of each key from the state store "
     "so a streaming aggregate can continue it.",
     "State grows with the number of keys; a watermark lets old keys be dropped."},
    {"StateStoreSave", SPARK, NULL, PHYS, CAT_OTHER, NOJ, NARROW,
     "Structured Streaming: writes the updated aggregation state back to the state store and "
     "emits rows according to the output mode.",
     "Output mode (append, update, complete) and the watermark."},
    {"EventTimeWatermark", SPARK, NULL, BOTH, CAT_OTHER, NOJ, NARROW,
     "Structured Streaming: tracks the event-time watermark of a column, so late data can be "
     "dropped and old state evicted.",
     "The delay: state is kept that long."},
    {"StreamingRelationV2", SPARK, NULL, LOGI, CAT_RELATION, NOJ, NONE,
     "A streaming source (V2) in a logical plan, before it is read micro-batch by micro-batch.",
     "The source and its options."},
    {"UnionLoop", SPARK, NULL, BOTH, CAT_SET, NOJ, NARROW,
     "Spark 4.1 recursive CTE: runs the anchor part, then the recursive part again and again on "
     "the new rows until no new rows come or the limit is reached.",
     "The Limit and spark.sql.cteRecursionLevelLimit guard against endless recursion."},
    {"UnionLoopRef", SPARK, NULL, BOTH, CAT_RELATION, NOJ, NARROW,
     "Spark 4.1 recursive CTE: inside the recursive part, the rows produced by the previous "
     "iteration.",
     "Points at the UnionLoop with the same Loop id."},

    /* ---- Spark: logical plans -------------------------------------------------------------- */
    {"Aggregate", SPARK, NULL, LOGI, CAT_AGGREGATE, NOJ, NONE,
     "GROUP BY in a logical plan: grouping expressions, then aggregate expressions; it becomes "
     "HashAggregate, ObjectHashAggregate or SortAggregate in the physical plan.",
     "The grouping keys decide the shuffle of the physical plan."},
    {"Join", SPARK, NULL, LOGI, CAT_JOIN, JOIN_LOGICAL, NONE,
     "A join in a logical plan: join type and condition. The physical plan decides the strategy "
     "(broadcast hash, sort-merge, shuffled hash, nested loop).",
     "A Join without a condition is a cross join; hints (leftHint/rightHint) force a strategy. "
     "In cost mode the Statistics of the two children decide whether one side is broadcast."},
    {"LateralJoin", SPARK, NULL, LOGI, CAT_JOIN, JOIN_LOGICAL, NONE,
     "A LATERAL join in a logical plan: the right side is a subquery that may use columns of the "
     "left side.",
     "It is rewritten into an ordinary join when the plan is optimized."},
    {"Relation", SPARK, NULL, LOGI, CAT_RELATION, NOJ, NONE,
     "A table or file source in a logical plan, with all its columns and its format "
     "(a LogicalRelation).",
     "The column list is the whole table: compare it with the physical scan's ReadSchema to see "
     "column pruning."},
    {"LogicalRelation", SPARK, NULL, LOGI, CAT_RELATION, NOJ, NONE,
     "A table or file source in a logical plan (printed Relation in recent versions).",
     "Lists every column of the source."},
    {"RelationV2", SPARK, NULL, LOGI, CAT_RELATION, NOJ, NONE,
     "A data source V2 table in a logical plan (DataSourceV2Relation).",
     "Lists every column of the table."},
    {"HiveTableRelation", SPARK, NULL, LOGI, CAT_RELATION, NOJ, NONE,
     "A Hive table in a logical plan, with its data and partition columns.",
     "Partition columns are listed separately; filters on them prune partitions."},
    {"LocalRelation", SPARK, NULL, LOGI, CAT_RELATION, NOJ, NONE,
     "Rows held in the plan itself (a local collection, VALUES, or <empty>).",
     "<empty> means the optimizer proved the result empty."},
    {"LogicalRDD", SPARK, NULL, LOGI, CAT_RELATION, NOJ, NONE,
     "An existing RDD of rows used as a DataFrame.",
     "No statistics: the optimizer assumes it is large."},
    {"ExternalRDD", SPARK, NULL, LOGI, CAT_RELATION, NOJ, NONE,
     "An RDD of JVM objects used as a typed Dataset.",
     "No statistics and no pushdown."},
    {"OneRowRelation", SPARK, NULL, LOGI, CAT_RELATION, NOJ, NONE,
     "A single row with no columns: the FROM of a SELECT without a table.",
     "Nothing to check."},
    {"SubqueryAlias", SPARK, NULL, LOGI, CAT_OTHER, NOJ, NONE,
     "Gives a name to the plan below (a table name, view name or alias) so columns can be "
     "qualified with it.",
     "Disappears in the optimized plan."},
    {"View", SPARK, NULL, LOGI, CAT_OTHER, NOJ, NONE,
     "A view in an analyzed plan: its name and output, with the view's query below.",
     "Disappears in the optimized plan; the view's query is optimized with the rest."},
    {"Distinct", SPARK, NULL, LOGI, CAT_AGGREGATE, NOJ, NONE,
     "Removes duplicate rows (DISTINCT); becomes an aggregate on all columns.",
     "Needs a shuffle on every column of the output."},
    {"Deduplicate", SPARK, NULL, LOGI, CAT_AGGREGATE, NOJ, NONE,
     "dropDuplicates(cols): keeps one row per value of the given columns.",
     "Becomes an aggregate (first() of the other columns) with a shuffle on the key columns."},
    {"Except", SPARK, NULL, LOGI, CAT_SET, NOJ, NONE,
     "EXCEPT / subtract: rows of the left side that are not in the right side (ALL keeps "
     "duplicates).",
     "Becomes a left anti join (or an aggregate with Generate for EXCEPT ALL)."},
    {"Intersect", SPARK, NULL, LOGI, CAT_SET, NOJ, NONE,
     "INTERSECT: rows present on both sides (ALL keeps duplicates).",
     "Becomes a left semi join (or an aggregate with Generate for INTERSECT ALL)."},
    {"Offset", SPARK, NULL, LOGI, CAT_LIMIT, NOJ, NONE,
     "OFFSET n: skips the first n rows.",
     "Without ORDER BY the rows skipped are arbitrary."},
    {"Tail", SPARK, NULL, LOGI, CAT_LIMIT, NOJ, NONE,
     "tail(n): the last n rows.",
     "Becomes CollectTail."},
    {"Repartition", SPARK, NULL, LOGI, CAT_OTHER, NOJ, NONE,
     "repartition(n) (shuffle=true) or coalesce(n) (shuffle=false) in a logical plan.",
     "shuffle=true becomes an Exchange RoundRobinPartitioning, false a Coalesce."},
    {"RepartitionByExpression", SPARK, NULL, LOGI, CAT_OTHER, NOJ, NONE,
     "repartition(cols) / DISTRIBUTE BY / repartitionByRange: redistribute rows by columns.",
     "Becomes an Exchange hashpartitioning or rangepartitioning with origin REPARTITION_BY_*."},
    {"RebalancePartitions", SPARK, NULL, LOGI, CAT_OTHER, NOJ, NONE,
     "The REBALANCE hint: a shuffle that AQE may split or coalesce to even out partition sizes.",
     "Becomes an Exchange with origin REBALANCE_PARTITIONS_*."},
    {"ResolvedHint", SPARK, NULL, LOGI, CAT_OTHER, NOJ, NONE,
     "A join hint (broadcast, merge, shuffle_hash...) attached to the plan below it.",
     "Hints override the size-based choice of join strategy."},
    {"UnresolvedHint", SPARK, NULL, LOGI, CAT_OTHER, NOJ, NONE,
     "A hint as written in the query (/*+ BROADCAST(t) */, REPARTITION...), before analysis.",
     "Check the analyzed plan to see whether the hint was applied."},
    {"BroadcastHint", SPARK, NULL, LOGI, CAT_OTHER, NOJ, NONE,
     "Spark 2.x: marks the plan below it to be broadcast in a join.",
     "Forces a broadcast whatever the size."},
    {"AnalysisBarrier", SPARK, NULL, LOGI, CAT_OTHER, NOJ, NONE,
     "Spark 2.3/2.4: wraps an already analyzed plan so it is not analyzed again.",
     "Nothing to check; it disappears after analysis."},
    {"CTERelationDef", SPARK, NULL, LOGI, CAT_OTHER, NOJ, NONE,
     "Defines a common table expression (WITH name AS ...) with an id that CTERelationRef "
     "nodes point to.",
     "A CTE used several times may be inlined (computed several times) or shared."},
    {"CTERelationRef", SPARK, NULL, LOGI, CAT_RELATION, NOJ, NONE,
     "A use of a common table expression defined by the CTERelationDef with the same id.",
     "Follow the id to the definition."},
    {"WithCTE", SPARK, NULL, LOGI, CAT_OTHER, NOJ, NONE,
     "Holds the CTE definitions (CTERelationDef) used by the plan below it.",
     "Disappears once the CTEs are inlined."},
    {"PipeOperator", SPARK, NULL, LOGI, CAT_OTHER, NOJ, NONE,
     "Spark 4 SQL pipe syntax (|>): marks where a pipe step begins.",
     "Removed during analysis."},
    {"Pivot", SPARK, NULL, LOGI, CAT_AGGREGATE, NOJ, NONE,
     "PIVOT: turns values of a column into columns, computed as an aggregate.",
     "Listing the pivot values avoids an extra job to find them."},
    {"Unpivot", SPARK, NULL, LOGI, CAT_EXPAND, NOJ, NONE,
     "UNPIVOT / melt: turns columns into rows; becomes an Expand.",
     "Output rows = input rows x number of unpivoted columns."},
    {"ScriptTransformation", SPARK, NULL, BOTH, CAT_OTHER, NOJ, NARROW,
     "TRANSFORM ... USING 'script': pipes the rows through an external process.",
     "Rows leave the JVM as text; nothing is pushed through it."},
    {"CollectMetrics", SPARK, NULL, BOTH, CAT_OTHER, NOJ, NARROW,
     "Dataset.observe(): computes named metrics on the rows passing through.",
     "Rows are unchanged."},
    {"UnresolvedRelation", SPARK, NULL, LOGI, CAT_RELATION, NOJ, NONE,
     "A table name as written in the query, before analysis looks it up.",
     "The analyzed plan shows what it resolved to."},
    {"UnresolvedTableOrView", SPARK, NULL, LOGI, CAT_RELATION, NOJ, NONE,
     "A table or view name in a command, before analysis looks it up.",
     "The analyzed plan shows what it resolved to."},
    {"ResolvedTable", SPARK, NULL, LOGI, CAT_RELATION, NOJ, NONE,
     "A table a command refers to, after it was looked up in the catalog.",
     "Catalog, name and columns."},
    {"ResolvedIdentifier", SPARK, NULL, LOGI, CAT_RELATION, NOJ, NONE,
     "A name a command creates or drops, resolved to a catalog and identifier.",
     "Catalog and name."},
    {"InsertIntoStatement", SPARK, NULL, LOGI, CAT_WRITE, NOJ, NONE,
     "INSERT INTO / OVERWRITE in a parsed plan: the target table and the query.",
     "Becomes InsertIntoHadoopFsRelationCommand (files) or a V2 write."},

    /* ---- Spark: commands ----------------------------------------------------------------- */
    {"InsertIntoHadoopFsRelationCommand", SPARK, NULL, CMD, CAT_WRITE, NOJ, NONE,
     "Writes the query's rows as files into a table or path (INSERT, df.write.save, "
     "saveAsTable) in the given format and partitioning.",
     "Overwrite or append; partition columns (dynamic partition overwrite); the number of "
     "output files follows the number of partitions of the query."},
    {"InsertIntoHiveTable", SPARK, NULL, CMD, CAT_WRITE, NOJ, NONE,
     "Writes the query's rows into a Hive table through its SerDe.",
     "Overwrite or append; partition columns."},
    {"CreateDataSourceTableAsSelectCommand", SPARK, NULL, CMD, CAT_WRITE, NOJ, NONE,
     "CREATE TABLE ... USING ... AS SELECT / saveAsTable: creates a table and writes the query's "
     "rows into it.",
     "Save mode (Overwrite, ErrorIfExists...) and the columns written."},
    {"CreateHiveTableAsSelectCommand", SPARK, NULL, CMD, CAT_WRITE, NOJ, NONE,
     "CREATE TABLE ... AS SELECT for a Hive table: creates it and inserts the query's rows.",
     "The table's SerDe and format."},
    {"CreateDataSourceTableCommand", SPARK, NULL, CMD, CAT_COMMAND, NOJ, NONE,
     "CREATE TABLE ... USING format: registers a table in the catalog.",
     "No data is read."},
    {"CreateTable", SPARK, NULL, CMD, CAT_COMMAND, NOJ, NONE,
     "CREATE TABLE in a parsed or analyzed plan, before it becomes a concrete command.",
     "The save mode (Ignore = IF NOT EXISTS)."},
    {"CreateViewCommand", SPARK, NULL, CMD, CAT_COMMAND, NOJ, NONE,
     "CREATE VIEW / createOrReplaceTempView: stores the view's query under a name.",
     "Nothing runs until the view is queried."},
    {"CreateTempViewUsing", SPARK, NULL, CMD, CAT_COMMAND, NOJ, NONE,
     "CREATE TEMPORARY VIEW ... USING format: a temporary view over a data source.",
     "The provider and options."},
    {"CreateFunctionCommand", SPARK, NULL, CMD, CAT_COMMAND, NOJ, NONE,
     "CREATE FUNCTION: registers a user-defined function.",
     "The class and resources (jars) it loads."},
    {"CreateVariable", SPARK, NULL, CMD, CAT_COMMAND, NOJ, NONE,
     "DECLARE VARIABLE: creates a session variable.",
     "The default value expression."},
    {"SetVariable", SPARK, NULL, CMD, CAT_COMMAND, NOJ, NONE,
     "SET VARIABLE: assigns session variables.",
     "The assigned expressions."},
    {"DropVariable", SPARK, NULL, CMD, CAT_COMMAND, NOJ, NONE,
     "DROP TEMPORARY VARIABLE.",
     "Nothing to check."},
    {"DropTable", SPARK, NULL, CMD, CAT_COMMAND, NOJ, NONE,
     "DROP TABLE / VIEW in an analyzed plan.",
     "ifExists and purge flags."},
    {"DropTableCommand", SPARK, NULL, CMD, CAT_COMMAND, NOJ, NONE,
     "DROP TABLE / VIEW: removes the table from the catalog (and its data for managed tables).",
     "ifExists, isView, purge flags."},
    {"DropTempViewCommand", SPARK, NULL, CMD, CAT_COMMAND, NOJ, NONE,
     "DROP VIEW on a temporary view.",
     "Nothing to check."},
    {"AddJarsCommand", SPARK, NULL, CMD, CAT_COMMAND, NOJ, NONE,
     "ADD JAR: adds jars to the session's class path.",
     "Nothing to check."},
    {"SetCommand", SPARK, NULL, CMD, CAT_COMMAND, NOJ, NONE,
     "SET key=value: changes a session configuration.",
     "The key and value set."},
    {"SetCatalogCommand", SPARK, NULL, CMD, CAT_COMMAND, NOJ, NONE,
     "USE CATALOG / SET CATALOG: changes the current catalog.",
     "Nothing to check."},
    {"ShowTables", SPARK, NULL, CMD, CAT_COMMAND, NOJ, NONE,
     "SHOW TABLES in an analyzed plan.",
     "Nothing to check."},
    {"ShowTablesCommand", SPARK, NULL, CMD, CAT_COMMAND, NOJ, NONE,
     "SHOW TABLES: lists tables from the catalog.",
     "Nothing to check."},
    {"ShowNamespaces", SPARK, NULL, CMD, CAT_COMMAND, NOJ, NONE,
     "SHOW DATABASES / NAMESPACES.",
     "Nothing to check."},
    {"DescribeRelation", SPARK, NULL, CMD, CAT_COMMAND, NOJ, NONE,
     "DESCRIBE TABLE in a parsed or analyzed plan.",
     "Nothing to check."},
    {"DescribeTableCommand", SPARK, NULL, CMD, CAT_COMMAND, NOJ, NONE,
     "DESCRIBE TABLE: lists a table's columns and details.",
     "Nothing to check."},
    {"DescribeColumnCommand", SPARK, NULL, CMD, CAT_COMMAND, NOJ, NONE,
     "DESCRIBE TABLE t column: one column's type and statistics.",
     "Column statistics appear only after ANALYZE TABLE ... FOR COLUMNS."},
    {"DescribeQueryCommand", SPARK, NULL, CMD, CAT_COMMAND, NOJ, NONE,
     "DESCRIBE QUERY: the output columns of a query.",
     "Nothing runs."},
    {"DescribeRelationJsonCommand", SPARK, NULL, CMD, CAT_COMMAND, NOJ, NONE,
     "DESCRIBE TABLE ... AS JSON (Spark 4).",
     "Nothing to check."},

    /* ---- Photon (Databricks) --------------------------------------------------------------- */
    {"PhotonScan", PHOTON, "FileScan", PHYS, CAT_SCAN, NOJ, NARROW,
     "Photon's native file scan: reads Parquet/Delta files into Photon's columnar format.",
     SCAN_CHECK " Photon prints RequiredDataFilters for the filters it evaluates while reading."},
    {"PhotonProject", PHOTON, "Project", PHYS, CAT_PROJECT, NOJ, NARROW,
     "Photon's vectorized Project: computes output columns in native code.",
     PROJECT_CHECK},
    {"PhotonFilter", PHOTON, "Filter", PHYS, CAT_FILTER, NOJ, NARROW,
     "Photon's vectorized Filter.",
     FILTER_CHECK},
    {"PhotonAgg", PHOTON, "HashAggregate", PHYS, CAT_AGGREGATE, NOJ, NARROW,
     "Photon's hash aggregate without grouping keys (or a merge step), in native code.",
     AGG_CHECK},
    {"PhotonGroupingAgg", PHOTON, "HashAggregate", PHYS, CAT_AGGREGATE, NOJ, NARROW,
     "Photon's hash aggregate with grouping keys, in native code.",
     AGG_CHECK},
    {"PhotonBroadcastHashJoin", PHOTON, "BroadcastHashJoin", PHYS, CAT_JOIN, JOIN_BROADCAST_HASH,
     NARROW,
     "Photon's broadcast hash join: the small side's hash table is shared with every task.",
     BHJ_CHECK},
    {"PhotonShuffledHashJoin", PHOTON, "ShuffledHashJoin", PHYS, CAT_JOIN, JOIN_SHUFFLED_HASH,
     NARROW,
     "Photon's shuffled hash join; Photon uses it where Spark would sort-merge join.",
     SHJ_CHECK},
    {"PhotonBroadcastNestedLoopJoin", PHOTON, "BroadcastNestedLoopJoin", PHYS, CAT_JOIN,
     JOIN_BROADCAST_NESTED_LOOP, NARROW,
     "Photon's nested loop join: every row of one side against every broadcast row.",
     BNLJ_CHECK},
    {"PhotonShuffleExchangeSink", PHOTON, "Exchange", PHYS, CAT_SHUFFLE, NOJ, SHUFFLE,
     "The writing half of a Photon shuffle: partitions the rows (Arguments give the partitioning) "
     "and writes them out at the end of a stage.",
     EXCHANGE_CHECK},
    {"PhotonShuffleExchangeSource", PHOTON, "Exchange", PHYS, CAT_SHUFFLE_READ, NOJ, NARROW,
     "The reading half of a Photon shuffle: the next stage reads the shuffled rows.",
     "Pairs with the PhotonShuffleExchangeSink below its query stage."},
    {"PhotonShuffleMapStage", PHOTON, "ShuffleQueryStage", MARK, CAT_QUERY_STAGE, NOJ, NARROW,
     "Wraps the Photon operators of a shuffle map stage (the stage ending in a "
     "PhotonShuffleExchangeSink).",
     "Arguments give the shuffle origin (ENSURE_REQUIREMENTS...)."},
    {"PhotonResultStage", PHOTON, "ResultQueryStage", MARK, CAT_QUERY_STAGE, NOJ, NARROW,
     "Wraps the Photon operators of the final stage, whose output goes to the result.",
     "Above it, ColumnarToRow hands rows back to Spark."},
    {"PhotonBroadcastExchange", PHOTON, "BroadcastExchange", PHYS, CAT_BROADCAST, NOJ, BCAST,
     "Photon's broadcast exchange: collects a small side and sends it to every executor.",
     BCAST_CHECK},
    {"PhotonSort", PHOTON, "Sort", PHYS, CAT_SORT, NOJ, NARROW,
     "Photon's vectorized sort.",
     SORT_CHECK},
    {"PhotonTopK", PHOTON, "TakeOrderedAndProject", PHYS, CAT_LIMIT, NOJ, NARROW,
     "Photon's top-K: keeps the first K rows in the requested order.",
     "The limit and ordering."},
    {"PhotonUnion", PHOTON, "Union", PHYS, CAT_SET, NOJ, NARROW,
     "Photon's UNION ALL.",
     "Nothing special."},
    {"PhotonWindow", PHOTON, "Window", PHYS, CAT_WINDOW, NOJ, NARROW,
     "Photon's window function operator.",
     "partitionBy keys: without them one task gets every row."},

    /* ---- Comet (Apache DataFusion Comet) --------------------------------------------------- */
    {"CometScan", COMET, "FileScan", PHYS, CAT_SCAN, NOJ, NARROW,
     "Comet's Parquet scan: reads files into Arrow batches for Comet's native operators "
     "([native_iceberg_compat] or [native_comet] says which reader).",
     SCAN_CHECK},
    {"CometNativeScan", COMET, "FileScan", PHYS, CAT_SCAN, NOJ, NARROW,
     "Comet's fully native Parquet scan (native_datafusion): files are read by DataFusion in "
     "native code.",
     SCAN_CHECK},
    {"CometFilter", COMET, "Filter", PHYS, CAT_FILTER, NOJ, NARROW,
     "Comet's native Filter, evaluated by DataFusion on Arrow batches.",
     FILTER_CHECK},
    {"CometProject", COMET, "Project", PHYS, CAT_PROJECT, NOJ, NARROW,
     "Comet's native Project.",
     PROJECT_CHECK},
    {"CometHashAggregate", COMET, "HashAggregate", PHYS, CAT_AGGREGATE, NOJ, NARROW,
     "Comet's native hash aggregate (partial or final).",
     AGG_CHECK},
    {"CometExchange", COMET, "Exchange", PHYS, CAT_SHUFFLE, NOJ, SHUFFLE,
     "Comet's native shuffle: partitions Arrow batches in native code and ends a stage.",
     EXCHANGE_CHECK},
    {"CometColumnarExchange", COMET, "Exchange", PHYS, CAT_SHUFFLE, NOJ, SHUFFLE,
     "Comet's JVM columnar shuffle: used when the rows come from Spark operators rather than "
     "native ones; ends a stage.",
     EXCHANGE_CHECK},
    {"CometBroadcastExchange", COMET, "BroadcastExchange", PHYS, CAT_BROADCAST, NOJ, BCAST,
     "Comet's broadcast: collects the small side as Arrow batches and sends it to every executor.",
     BCAST_CHECK},
    {"CometBroadcastHashJoin", COMET, "BroadcastHashJoin", PHYS, CAT_JOIN, JOIN_BROADCAST_HASH,
     NARROW,
     "Comet's native broadcast hash join.",
     BHJ_CHECK},
    {"CometSortMergeJoin", COMET, "SortMergeJoin", PHYS, CAT_JOIN, JOIN_SORT_MERGE, NARROW,
     "Comet's native sort-merge join.",
     SMJ_CHECK},
    {"CometHashJoin", COMET, "ShuffledHashJoin", PHYS, CAT_JOIN, JOIN_SHUFFLED_HASH, NARROW,
     "Comet's native shuffled hash join.",
     SHJ_CHECK},
    {"CometSort", COMET, "Sort", PHYS, CAT_SORT, NOJ, NARROW,
     "Comet's native sort.",
     SORT_CHECK},
    {"CometTakeOrderedAndProject", COMET, "TakeOrderedAndProject", PHYS, CAT_LIMIT, NOJ, GATHER,
     "Comet's native ORDER BY ... LIMIT n: per-partition top n, then one task merges them.",
     "limit and orderBy: a large limit makes the final task heavy."},
    {"CometExpand", COMET, "Expand", PHYS, CAT_EXPAND, NOJ, NARROW,
     "Comet's native Expand (GROUPING SETS, ROLLUP, CUBE).",
     "The number of projections multiplies the rows."},
    {"CometUnion", COMET, "Union", PHYS, CAT_SET, NOJ, NARROW,
     "Comet's UNION ALL of native inputs.",
     "Nothing special."},
    {"CometColumnarToRow", COMET, "ColumnarToRow", PHYS, CAT_TRANSITION, NOJ, NARROW,
     "Hands Comet's Arrow batches back to Spark as rows.",
     TRANSITION_CHECK " Above it, operators run in Spark, not in Comet."},
    {"CometSparkToColumnar", COMET, "RowToColumnar", PHYS, CAT_TRANSITION, NOJ, NARROW,
     "Converts Spark rows into Arrow batches so Comet operators can continue.",
     TRANSITION_CHECK},
    {"CometSubqueryBroadcast", COMET, "SubqueryBroadcast", PHYS, CAT_SUBQUERY, NOJ, GATHER,
     "Comet's version of SubqueryBroadcast: join-key values for dynamic partition pruning.",
     "The scan with dynamicpruningexpression uses it."},
    {"CometLocalLimit", COMET, "LocalLimit", PHYS, CAT_LIMIT, NOJ, NARROW,
     "Comet's per-partition limit.", "Pairs with a global limit."},
    {"CometGlobalLimit", COMET, "GlobalLimit", PHYS, CAT_LIMIT, NOJ, NARROW,
     "Comet's global limit.", "Runs after a single-partition shuffle."},
    {"CometCollectLimit", COMET, "CollectLimit", PHYS, CAT_LIMIT, NOJ, GATHER,
     "Comet's LIMIT n at the end of a query.", "A large n collects a lot."},
    {"CometWindow", COMET, "Window", PHYS, CAT_WINDOW, NOJ, NARROW,
     "Comet's native window operator.",
     "partitionBy keys: without them one task gets every row."},

    /* ---- Gluten with Velox ------------------------------------------------------------------- */
    {"FileSourceScanExecTransformer", GLUTEN, "FileScan", PHYS, CAT_SCAN, NOJ, NARROW,
     "Gluten's file scan: Velox reads the Parquet/ORC files natively.",
     SCAN_CHECK},
    {"BatchScanExecTransformer", GLUTEN, "BatchScan", PHYS, CAT_SCAN, NOJ, NARROW,
     "Gluten's data source V2 scan read natively by Velox.",
     SCAN_CHECK},
    {"NativeFileScan", GLUTEN, "FileScan", PHYS, CAT_SCAN, NOJ, NARROW,
     "A file scan read by the native (Velox) engine, as printed by Gluten.",
     SCAN_CHECK},
    {"FilterExecTransformer", GLUTEN, "Filter", PHYS, CAT_FILTER, NOJ, NARROW,
     "Gluten's Filter, evaluated natively by Velox.",
     FILTER_CHECK},
    {"ProjectExecTransformer", GLUTEN, "Project", PHYS, CAT_PROJECT, NOJ, NARROW,
     "Gluten's Project, evaluated natively by Velox.",
     PROJECT_CHECK},
    {"RegularHashAggregateExecTransformer", GLUTEN, "HashAggregate", PHYS, CAT_AGGREGATE, NOJ,
     NARROW,
     "Gluten's hash aggregate (final or complete mode) in Velox.",
     AGG_CHECK},
    {"FlushableHashAggregateExecTransformer", GLUTEN, "HashAggregate", PHYS, CAT_AGGREGATE, NOJ,
     NARROW,
     "Gluten's partial hash aggregate in Velox that may flush partial results early when memory "
     "is short instead of spilling.",
     AGG_CHECK},
    {"HashAggregateExecTransformer", GLUTEN, "HashAggregate", PHYS, CAT_AGGREGATE, NOJ, NARROW,
     "Gluten's hash aggregate in Velox.",
     AGG_CHECK},
    {"BroadcastHashJoinExecTransformer", GLUTEN, "BroadcastHashJoin", PHYS, CAT_JOIN,
     JOIN_BROADCAST_HASH, NARROW,
     "Gluten's broadcast hash join in Velox.",
     BHJ_CHECK},
    {"ShuffledHashJoinExecTransformer", GLUTEN, "ShuffledHashJoin", PHYS, CAT_JOIN,
     JOIN_SHUFFLED_HASH, NARROW,
     "Gluten's shuffled hash join in Velox; Gluten prefers it to sort-merge join.",
     SHJ_CHECK},
    {"SortMergeJoinExecTransformer", GLUTEN, "SortMergeJoin", PHYS, CAT_JOIN, JOIN_SORT_MERGE,
     NARROW,
     "Gluten's sort-merge join in Velox.",
     SMJ_CHECK},
    {"BroadcastNestedLoopJoinExecTransformer", GLUTEN, "BroadcastNestedLoopJoin", PHYS, CAT_JOIN,
     JOIN_BROADCAST_NESTED_LOOP, NARROW,
     "Gluten's nested loop join in Velox.",
     BNLJ_CHECK},
    {"CartesianProductExecTransformer", GLUTEN, "CartesianProduct", PHYS, CAT_JOIN,
     JOIN_CARTESIAN, NARROW,
     "Gluten's cross join in Velox.",
     "A missing join condition: output rows = product of the inputs."},
    {"SortExecTransformer", GLUTEN, "Sort", PHYS, CAT_SORT, NOJ, NARROW,
     "Gluten's sort in Velox.",
     SORT_CHECK},
    {"TakeOrderedAndProjectExecTransformer", GLUTEN, "TakeOrderedAndProject", PHYS, CAT_LIMIT,
     NOJ, GATHER,
     "Gluten's ORDER BY ... LIMIT n in Velox.",
     "limit and orderBy."},
    {"WindowExecTransformer", GLUTEN, "Window", PHYS, CAT_WINDOW, NOJ, NARROW,
     "Gluten's window operator in Velox.",
     "partitionBy keys: without them one task gets every row."},
    {"ExpandExecTransformer", GLUTEN, "Expand", PHYS, CAT_EXPAND, NOJ, NARROW,
     "Gluten's Expand in Velox.", "The number of projections multiplies the rows."},
    {"GenerateExecTransformer", GLUTEN, "Generate", PHYS, CAT_EXPAND, NOJ, NARROW,
     "Gluten's Generate (explode...) in Velox.", "Exploding big arrays multiplies the rows."},
    {"LimitExecTransformer", GLUTEN, "LocalLimit", PHYS, CAT_LIMIT, NOJ, NARROW,
     "Gluten's limit in Velox.", "Nothing special."},
    {"UnionExecTransformer", GLUTEN, "Union", PHYS, CAT_SET, NOJ, NARROW,
     "Gluten's UNION ALL in Velox.", "Nothing special."},
    {"ColumnarUnion", GLUTEN, "Union", PHYS, CAT_SET, NOJ, NARROW,
     "Gluten's UNION ALL of columnar inputs.", "Nothing special."},
    {"WholeStageCodegenTransformer", GLUTEN, "WholeStageCodegen", MARK, CAT_CODEGEN, NOJ, NARROW,
     "Gluten's counterpart of whole-stage codegen: the operators marked ^(N) are sent to Velox as "
     "one native pipeline.",
     "Operators without the ^ marker run in Spark."},
    {"InputIteratorTransformer", GLUTEN, "InputAdapter", MARK, CAT_CODEGEN, NOJ, NARROW,
     "Where a Velox pipeline reads its input (a shuffle, a broadcast, another pipeline).",
     "Marks the start of a native pipeline."},
    {"ColumnarExchange", GLUTEN, "Exchange", PHYS, CAT_SHUFFLE, NOJ, SHUFFLE,
     "Gluten's columnar shuffle: partitions Velox batches and ends a stage.",
     EXCHANGE_CHECK},
    {"ColumnarBroadcastExchange", GLUTEN, "BroadcastExchange", PHYS, CAT_BROADCAST, NOJ, BCAST,
     "Gluten's columnar broadcast of the small side of a join.",
     BCAST_CHECK},
    {"ColumnarSubqueryBroadcast", GLUTEN, "SubqueryBroadcast", PHYS, CAT_SUBQUERY, NOJ, GATHER,
     "Gluten's SubqueryBroadcast for dynamic partition pruning.",
     "The pruned scan uses it."},
    {"VeloxColumnarToRow", GLUTEN, "ColumnarToRow", PHYS, CAT_TRANSITION, NOJ, NARROW,
     "Hands Velox batches back to Spark as rows.",
     TRANSITION_CHECK " Above it, operators run in Spark, not in Velox."},
    {"RowToVeloxColumnar", GLUTEN, "RowToColumnar", PHYS, CAT_TRANSITION, NOJ, NARROW,
     "Converts Spark rows into Velox batches so native operators can continue (for example "
     "after a Spark fallback).",
     TRANSITION_CHECK " It often marks an operator Gluten could not run natively."},
    {"VeloxResizeBatches", GLUTEN, NULL, PHYS, CAT_TRANSITION, NOJ, NARROW,
     "Merges small Velox batches (or splits big ones) around a shuffle so native operators get "
     "batches of a useful size.",
     "Nothing to tune in most cases."},
    {"ColumnarArrowEvalPython", GLUTEN, "ArrowEvalPython", PHYS, CAT_PYTHON, NOJ, NARROW,
     "Gluten's ArrowEvalPython: sends Velox batches to Python pandas UDFs as Arrow data.",
     PYTHON_CHECK},

    /* ---- RAPIDS Accelerator (GPU) ------------------------------------------------------------ */
    {"GpuScan", RAPIDS, "FileScan", PHYS, CAT_SCAN, NOJ, NARROW,
     "The RAPIDS file scan: Parquet/ORC/CSV files decoded on the GPU.",
     SCAN_CHECK},
    {"GpuBatchScan", RAPIDS, "BatchScan", PHYS, CAT_SCAN, NOJ, NARROW,
     "The RAPIDS data source V2 scan, decoded on the GPU.",
     SCAN_CHECK},
    {"GpuFilter", RAPIDS, "Filter", PHYS, CAT_FILTER, NOJ, NARROW,
     "Filter evaluated on the GPU.",
     FILTER_CHECK " A leading ! means the operator will not run on the GPU."},
    {"GpuProject", RAPIDS, "Project", PHYS, CAT_PROJECT, NOJ, NARROW,
     "Project evaluated on the GPU.",
     PROJECT_CHECK " A leading ! means the operator will not run on the GPU."},
    {"GpuHashAggregate", RAPIDS, "HashAggregate", PHYS, CAT_AGGREGATE, NOJ, NARROW,
     "Hash aggregate on the GPU.",
     AGG_CHECK},
    {"GpuBroadcastHashJoin", RAPIDS, "BroadcastHashJoin", PHYS, CAT_JOIN, JOIN_BROADCAST_HASH,
     NARROW,
     "Broadcast hash join on the GPU.",
     BHJ_CHECK},
    {"GpuShuffledHashJoin", RAPIDS, "ShuffledHashJoin", PHYS, CAT_JOIN, JOIN_SHUFFLED_HASH, NARROW,
     "Shuffled hash join on the GPU; RAPIDS uses it in place of sort-merge joins.",
     SHJ_CHECK},
    {"GpuBroadcastNestedLoopJoin", RAPIDS, "BroadcastNestedLoopJoin", PHYS, CAT_JOIN,
     JOIN_BROADCAST_NESTED_LOOP, NARROW,
     "Nested loop join on the GPU.",
     BNLJ_CHECK},
    {"GpuCartesianProduct", RAPIDS, "CartesianProduct", PHYS, CAT_JOIN, JOIN_CARTESIAN, NARROW,
     "Cross join on the GPU.",
     "A missing join condition: output rows = product of the inputs."},
    {"GpuColumnarExchange", RAPIDS, "Exchange", PHYS, CAT_SHUFFLE, NOJ, SHUFFLE,
     "The RAPIDS shuffle of GPU batches; ends a stage.",
     EXCHANGE_CHECK},
    {"GpuBroadcastExchange", RAPIDS, "BroadcastExchange", PHYS, CAT_BROADCAST, NOJ, BCAST,
     "The RAPIDS broadcast of the small side of a join.",
     BCAST_CHECK},
    {"GpuShuffleCoalesce", RAPIDS, NULL, PHYS, CAT_SHUFFLE_READ, NOJ, NARROW,
     "After a shuffle, concatenates the small shuffled batches into bigger ones before they are "
     "copied to the GPU.",
     "The target batch size (spark.rapids.sql.batchSizeBytes)."},
    {"GpuCoalesceBatches", RAPIDS, NULL, PHYS, CAT_TRANSITION, NOJ, NARROW,
     "Concatenates GPU batches up to a target size (or into one batch when an operator above "
     "requires it).",
     "RequireSingleBatch means a whole partition must fit in GPU memory."},
    {"GpuColumnarToRow", RAPIDS, "ColumnarToRow", PHYS, CAT_TRANSITION, NOJ, NARROW,
     "Copies GPU batches back to the CPU as rows for Spark operators.",
     TRANSITION_CHECK " Above it, operators run on the CPU."},
    {"GpuRowToColumnar", RAPIDS, "RowToColumnar", PHYS, CAT_TRANSITION, NOJ, NARROW,
     "Copies CPU rows to the GPU as columnar batches.",
     TRANSITION_CHECK " It often marks an operator that could not run on the GPU."},
    {"GpuSort", RAPIDS, "Sort", PHYS, CAT_SORT, NOJ, NARROW,
     "Sort on the GPU.",
     SORT_CHECK},
    {"GpuTopN", RAPIDS, "TakeOrderedAndProject", PHYS, CAT_LIMIT, NOJ, GATHER,
     "ORDER BY ... LIMIT n on the GPU.",
     "limit and orderBy."},
    {"GpuGlobalLimit", RAPIDS, "GlobalLimit", PHYS, CAT_LIMIT, NOJ, NARROW,
     "Global limit on the GPU.", "Runs after a single-partition shuffle."},
    {"GpuLocalLimit", RAPIDS, "LocalLimit", PHYS, CAT_LIMIT, NOJ, NARROW,
     "Per-partition limit on the GPU.", "Pairs with a global limit."},
    {"GpuUnion", RAPIDS, "Union", PHYS, CAT_SET, NOJ, NARROW,
     "UNION ALL of GPU inputs.", "Nothing special."},
    {"GpuExpand", RAPIDS, "Expand", PHYS, CAT_EXPAND, NOJ, NARROW,
     "Expand on the GPU.", "The number of projections multiplies the rows."},
    {"GpuWindow", RAPIDS, "Window", PHYS, CAT_WINDOW, NOJ, NARROW,
     "Window functions on the GPU.", "partitionBy keys: without them one task gets every row."},
    {"GpuGenerate", RAPIDS, "Generate", PHYS, CAT_EXPAND, NOJ, NARROW,
     "Generate (explode...) on the GPU.", "Exploding big arrays multiplies the rows."},

    /* ---- Auron (formerly Blaze) ------------------------------------------------------------- */
    {"NativeParquetScan", AURON, "FileScan", PHYS, CAT_SCAN, NOJ, NARROW,
     "Auron's native Parquet scan (Rust, DataFusion-based).",
     SCAN_CHECK},
    {"NativeOrcScan", AURON, "FileScan", PHYS, CAT_SCAN, NOJ, NARROW,
     "Auron's native ORC scan.",
     SCAN_CHECK},
    {"NativeFilter", AURON, "Filter", PHYS, CAT_FILTER, NOJ, NARROW,
     "Auron's native Filter.",
     FILTER_CHECK},
    {"NativeProject", AURON, "Project", PHYS, CAT_PROJECT, NOJ, NARROW,
     "Auron's native Project.",
     PROJECT_CHECK},
    {"NativeHashAggregate", AURON, "HashAggregate", PHYS, CAT_AGGREGATE, NOJ, NARROW,
     "Auron's native hash aggregate.",
     AGG_CHECK},
    {"NativeSortMergeJoin", AURON, "SortMergeJoin", PHYS, CAT_JOIN, JOIN_SORT_MERGE, NARROW,
     "Auron's native sort-merge join.",
     SMJ_CHECK},
    {"NativeShuffledHashJoin", AURON, "ShuffledHashJoin", PHYS, CAT_JOIN, JOIN_SHUFFLED_HASH,
     NARROW,
     "Auron's native shuffled hash join.",
     SHJ_CHECK},
    {"NativeBroadcastJoin", AURON, "BroadcastHashJoin", PHYS, CAT_JOIN, JOIN_BROADCAST_HASH,
     NARROW,
     "Auron's native broadcast hash join.",
     BHJ_CHECK},
    {"NativeShuffleExchange", AURON, "Exchange", PHYS, CAT_SHUFFLE, NOJ, SHUFFLE,
     "Auron's native shuffle; ends a stage.",
     EXCHANGE_CHECK},
    {"NativeBroadcastExchange", AURON, "BroadcastExchange", PHYS, CAT_BROADCAST, NOJ, BCAST,
     "Auron's native broadcast of the small side of a join.",
     BCAST_CHECK},
    {"NativeSort", AURON, "Sort", PHYS, CAT_SORT, NOJ, NARROW,
     "Auron's native sort.",
     SORT_CHECK},
    {"NativeTakeOrdered", AURON, "TakeOrderedAndProject", PHYS, CAT_LIMIT, NOJ, GATHER,
     "Auron's native ORDER BY ... LIMIT n.",
     "limit and orderBy."},
    {"NativeUnion", AURON, "Union", PHYS, CAT_SET, NOJ, NARROW,
     "Auron's native UNION ALL.", "Nothing special."},
    {"NativeWindow", AURON, "Window", PHYS, CAT_WINDOW, NOJ, NARROW,
     "Auron's native window operator.",
     "partitionBy keys: without them one task gets every row."},
    {"NativeWindowGroupLimit", AURON, "WindowGroupLimit", PHYS, CAT_WINDOW, NOJ, NARROW,
     "Auron's native WindowGroupLimit: drops rows early for top-N per group.",
     "The Window above it still runs."},
    {"NativeExpand", AURON, "Expand", PHYS, CAT_EXPAND, NOJ, NARROW,
     "Auron's native Expand.", "The number of projections multiplies the rows."},
    {"NativeGenerate", AURON, "Generate", PHYS, CAT_EXPAND, NOJ, NARROW,
     "Auron's native Generate (explode...).", "Exploding big arrays multiplies the rows."},
    {"NativeGlobalLimit", AURON, "GlobalLimit", PHYS, CAT_LIMIT, NOJ, NARROW,
     "Auron's native global limit.", "Runs after a single-partition shuffle."},
    {"NativeLocalLimit", AURON, "LocalLimit", PHYS, CAT_LIMIT, NOJ, NARROW,
     "Auron's native per-partition limit.", "Pairs with a global limit."},
    {"NativeRenameColumns", AURON, "Project", PHYS, CAT_PROJECT, NOJ, NARROW,
     "Renames columns between Auron native operators.", "Nothing to check."},
    {"ConvertToNative", AURON, "RowToColumnar", PHYS, CAT_TRANSITION, NOJ, NARROW,
     "Converts Spark rows into Auron's native batches so native operators can continue.",
     TRANSITION_CHECK " It often marks an operator Auron could not run natively."},
};

const size_t catalog_n_entries = sizeof catalog_entries / sizeof catalog_entries[0];
