/* The operator catalogue: lookups tolerate what plans print, and every operator name in the
 * corpus has an entry (the corpus is scanned with the same extraction as
 * scripts/corpus-operators.py). */
#include "testutil.h"

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sparkplan/catalog.h"
#include "sparkplan/insight.h"
#include "sparkplan/opclass.h"

static const char *entry_name(const char *text)
{
    const struct catalog_entry *e = catalog_lookup(text);
    return e ? e->name : "(none)";
}

START_TEST(lookup_tolerates_markers_prefixes_and_multiword_names)
{
    ck_assert_str_eq(entry_name("*(3) BroadcastHashJoin [a#1], [b#2], Inner, BuildRight, false"),
                     "BroadcastHashJoin");
    ck_assert_str_eq(entry_name("* HashAggregate (12)"), "HashAggregate");
    ck_assert_str_eq(entry_name("^(2) ProjectExecTransformer [a#1]"), "ProjectExecTransformer");
    ck_assert_str_eq(entry_name("^ FilterExecTransformer (4)"), "FilterExecTransformer");
    ck_assert_str_eq(entry_name("*Filter isnotnull(a#1)"), "Filter");  /* Spark 2 */
    ck_assert_str_eq(entry_name("'UnresolvedRelation [t], [], false"), "UnresolvedRelation");
    ck_assert_str_eq(entry_name("!GpuProject [o_orderpriority#5]"), "GpuProject");
    ck_assert_str_eq(entry_name("~StreamingRelationV2 t"), "StreamingRelationV2");
    ck_assert_str_eq(entry_name("(7) Scan parquet spark_catalog.default.store_sales"), "FileScan");
    ck_assert_str_eq(entry_name("FileScan parquet default.t[a#1] Batched: true"), "FileScan");
    ck_assert_str_eq(entry_name("Scan orc  (1)"), "FileScan");
    ck_assert_str_eq(entry_name("Scan hive spark_catalog.default.tbl [col1#11], HiveTableRelation"),
                     "Scan hive");
    ck_assert_str_eq(entry_name("Scan In-memory table t [a#1]"), "InMemoryTableScan");
    ck_assert_str_eq(entry_name("Scan JDBCRelation(TBLS) [numPartitions=1]  (1)"),
                     "Scan JDBCRelation");
    ck_assert_str_eq(entry_name("Scan ExistingRDD[id#0L]"), "Scan ExistingRDD");
    ck_assert_str_eq(entry_name("Scan[obj#27]"), "Scan");
    ck_assert_str_eq(entry_name("Scan MyCustomRelation t[a#1]"), "RowDataSourceScan");
    ck_assert_str_eq(entry_name("BatchScan cat.db.t[a#1] ParquetScan"), "BatchScan");
    ck_assert_str_eq(entry_name("Execute InsertIntoHadoopFsRelationCommand file:/x, false"),
                     "InsertIntoHadoopFsRelationCommand");
    ck_assert_str_eq(entry_name("Execute SomeNewCommand"), "Execute");
    ck_assert_str_eq(entry_name("SortMergeJoin(skew=true) [a#1], [b#2], Inner"), "SortMergeJoin");
    ck_assert_str_eq(entry_name("HashAggregate(keys=[a#1], functions=[])"), "HashAggregate");
    ck_assert_str_eq(entry_name("VeloxColumnarToRowExec"), "VeloxColumnarToRow");
    ck_assert_str_eq(entry_name("CometNativeScan:  (1)"), "CometNativeScan");
    ck_assert_str_eq(entry_name("InputIteratorTransformer[col1#11]"), "InputIteratorTransformer");
    ck_assert_ptr_null(catalog_lookup("org.apache.spark.sql.AnalysisException: boom"));
    ck_assert_ptr_null(catalog_lookup("== Physical Plan =="));
    ck_assert_ptr_null(catalog_lookup("TotallyUnknownOperator [a#1]"));
}
END_TEST

START_TEST(accelerator_variants_map_to_their_spark_operator)
{
    const struct catalog_entry *e = catalog_lookup("CometBroadcastHashJoin (104)");
    ck_assert_ptr_nonnull(e);
    ck_assert_str_eq(e->stands_for, "BroadcastHashJoin");
    ck_assert_int_eq(e->join, JOIN_BROADCAST_HASH);
    e = catalog_lookup("NativeShuffleExchange (53)");
    ck_assert_int_eq(e->engine, ENGINE_AURON);
    ck_assert_int_eq(e->role, CAT_SHUFFLE);
    ck_assert_int_eq(e->movement, MOVE_SHUFFLE);
    e = catalog_lookup("PhotonShuffleExchangeSink (28)");
    ck_assert_int_eq(e->role, CAT_SHUFFLE);
    e = catalog_lookup("GpuColumnarExchange gpuhashpartitioning(o_orderkey#0L, 200), true");
    ck_assert_int_eq(e->engine, ENGINE_RAPIDS);

    /* An accelerator operator the table lacks is explained through its Spark counterpart. */
    struct catalog_match m = catalog_match(slice_cstr("GpuSortMergeJoin [a#1], [b#2], Inner"));
    ck_assert_ptr_nonnull(m.entry);
    ck_assert(!m.exact);
    ck_assert_str_eq(m.entry->name, "SortMergeJoin");
    ck_assert_int_eq(m.guessed_engine, ENGINE_RAPIDS);
    m = catalog_match(slice_cstr("WindowGroupLimitExecTransformer"));
    ck_assert_str_eq(m.entry->name, "WindowGroupLimit");
    ck_assert_int_eq(m.guessed_engine, ENGINE_GLUTEN);
}
END_TEST

START_TEST(every_entry_is_complete_and_names_are_unique)
{
    ck_assert_uint_lt(catalog_n_entries, 512);  /* the lookup index has room for 512 */
    for (size_t i = 0; i < catalog_n_entries; i++) {
        const struct catalog_entry *e = &catalog_entries[i];
        ck_assert_msg(e->what && strlen(e->what) > 10, "%s: no description", e->name);
        ck_assert_msg(e->check && strlen(e->check) > 5, "%s: nothing to check", e->name);
        ck_assert_msg(catalog_lookup(e->name) == e || slice_starts_with(slice_cstr(e->name), "Execute"),
                      "%s: lookup finds %s", e->name, entry_name(e->name));
        ck_assert_msg(e->engine == ENGINE_SPARK || e->stands_for || e->role == CAT_TRANSITION ||
                          e->role == CAT_SHUFFLE_READ,
                      "%s: accelerator entry without the Spark operator it stands for", e->name);
        if (e->stands_for)
            ck_assert_msg(catalog_lookup(e->stands_for), "%s stands for unknown %s", e->name,
                          e->stands_for);
        if (e->role == CAT_JOIN)
            ck_assert_msg(e->join != JOIN_NONE, "%s: join without a strategy", e->name);
    }
}
END_TEST

/* ---- corpus scan --------------------------------------------------------------------------- */

#define MAX_MISSING 64
static char missing[MAX_MISSING][96];
static size_t n_missing, n_names_seen;

static bool is_plan_header(const char *l, const char **kind)
{
    while (*l == ' ')
        l++;
    if (strncmp(l, "+- ", 3) == 0)
        l += 3;
    static const char *const headers[] = {
        "== Parsed Logical Plan ==", "== Analyzed Logical Plan ==", "== Optimized Logical Plan ==",
        "== Physical Plan ==",       "== Final Plan ==",            "== Current Plan ==",
        "== Initial Plan ==",
    };
    for (size_t i = 0; i < sizeof headers / sizeof headers[0]; i++) {
        size_t n = strlen(headers[i]);
        if (strncmp(l, headers[i], n) == 0 && l[n + strspn(l + n, " \r")] == '\0') {
            *kind = headers[i];
            return true;
        }
    }
    if (strncmp(l, "== Subtree ", 11) == 0) {
        *kind = "subtree";
        return true;
    }
    return false;
}

static void note_name(struct slice candidate)
{
    struct slice name = catalog_operator_name(candidate);
    if (!name.len)
        return;
    n_names_seen++;
    if (catalog_lookup_slice(name))
        return;
    for (size_t i = 0; i < n_missing; i++)
        if (slice_eq_cstr(name, missing[i]))
            return;
    if (n_missing < MAX_MISSING) {
        size_t n = name.len < sizeof missing[0] - 1 ? name.len : sizeof missing[0] - 1;
        memcpy(missing[n_missing], name.ptr, n);
        missing[n_missing][n] = '\0';
        n_missing++;
    }
}

/* One file, line by line: tree lines (marker units), formatted details headers "(N) Name",
 * roots right after a plan header or "-- !query analysis" or at the top of the file, and every
 * line of a PlanStabilitySuite simplified tree. */
static void scan_file(const char *path)
{
    size_t len;
    char *text = tu_read_file(path, &len);
    if (!text)
        return;
    size_t plen = strlen(path);
    bool simplified = plen > 15 && strcmp(path + plen - 15, ".simplified.txt") == 0;
    const char *expect_root = "first";
    char *save = NULL;
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        /* strtok_r skips empty lines, which is what the root rule wants anyway. */
        char *l = line;
        if (*l == '|')
            l += l[1] == ' ' ? 2 : 1;
        if (l[0] >= '0' && l[0] <= '9' && l[1] >= '0' && l[1] <= '9' && l[2] == ' ')
            l += 3;                                  /* numberedTreeString "00 " */
        size_t i = 0;
        bool marked = false;
        for (;;) {  /* bounded by the line length: each step consumes 3 bytes */
            if (strncmp(l + i, "+- ", 3) == 0 || strncmp(l + i, ":- ", 3) == 0)
                marked = true;
            else if (strncmp(l + i, "   ", 3) != 0 && strncmp(l + i, ":  ", 3) != 0)
                break;
            i += 3;
        }
        const char *kind = NULL;
        bool header = is_plan_header(l, &kind);
        const char *cand = NULL;
        if (simplified)
            cand = l;
        else if (marked)
            cand = l + i;
        else if (l[0] == '(' && l[1] >= '0' && l[1] <= '9')
            cand = l;
        else if (expect_root && !header && strncmp(l, "--", 2) != 0 &&
                 strncmp(l, "Found ", 6) != 0 &&
                 !(strcmp(expect_root, "== Analyzed Logical Plan ==") == 0 && strstr(l, ": ")))
            cand = l;
        if (cand)
            note_name(slice_cstr(cand));
        if (header)
            expect_root = kind;
        else if (strncmp(l, "-- !query analysis", 18) == 0)
            expect_root = "analysis";
        else if (l[strspn(l, " \r")] != '\0')
            expect_root = NULL;
    }
    free(text);
}

static int visit(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)st;
    (void)ftw;
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    if (type == FTW_F && strcmp(base, "INDEX.tsv") != 0 && strcmp(base, "SOURCES.md") != 0)
        scan_file(path);
    return 0;
}

START_TEST(every_operator_in_the_corpus_has_an_entry)
{
    const char *dir = tu_corpus_dir();
    if (!dir)
        return;
    n_missing = n_names_seen = 0;
    ck_assert_int_eq(nftw(dir, visit, 16, FTW_PHYS), 0);
    ck_assert_uint_gt(n_names_seen, 100000);  /* the scan really read plans */
    for (size_t i = 0; i < n_missing; i++)
        fprintf(stderr, "catalog: no entry for operator \"%s\"\n", missing[i]);
    ck_assert_msg(n_missing == 0, "%zu operator names in the corpus have no catalogue entry "
                                  "(listed above)", n_missing);
}
END_TEST

/* QA #9: ExecutedCommandExec prints "Execute <Command>": the name shown is the whole name
 * (as --json gives it), and the explanation says the command runs on the driver. */
START_TEST(execute_command_is_named_in_full_and_explained_as_a_driver_command)
{
    struct document *doc = tu_parse(
        "== Physical Plan ==\n"
        "Execute CreateDataSourceTableAsSelectCommand `default`.`final_results`, Overwrite, [col1, sum_col2, id, desc]\n"
        "+- *(1) Scan ExistingRDD[col1#1,sum_col2#2L,id#3L,desc#4]\n");
    struct plan_node *exec = tu_root(doc);
    struct slice w = op_word(exec);
    ck_assert_msg(slice_eq_cstr(w, "Execute CreateDataSourceTableAsSelectCommand"), "op_word: %.*s",
                  (int)w.len, w.ptr);
    ck_assert_int_eq(op_class_of(exec), OP_OTHER);
    w = op_word(tu_child(exec, 0));
    ck_assert_msg(slice_eq_cstr(w, "Scan ExistingRDD"), "op_word: %.*s", (int)w.len, w.ptr);
    ck_assert_int_eq(op_class_of(tu_child(exec, 0)), OP_SCAN);
    document_free(doc);

    const struct catalog_entry *e = catalog_lookup("Execute");
    ck_assert_int_eq(e->movement, MOVE_DRIVER);
    ck_assert_ptr_nonnull(strstr(catalog_movement_text(e->movement), "driver"));
    ck_assert_int_eq(catalog_lookup("ExecutedCommand")->movement, MOVE_DRIVER);

    /* The explanation of "Execute X": the operator (driver), then the command. */
    struct insight_text t;
    ck_assert(insight_format_entry(slice_cstr("Execute CreateDataSourceTableAsSelectCommand "
                                              "`default`.`t`, Overwrite"), 80, &t));
    ck_assert_str_eq(t.lines[0], "Execute  (Spark physical operator)");
    ck_assert_ptr_nonnull(strstr(t.lines[1], "driver"));
    bool command = false;
    for (size_t i = 1; i < t.n_lines; i++)
        command |= strcmp(t.lines[i], "CreateDataSourceTableAsSelectCommand  (Spark command)") == 0;
    ck_assert(command);
    insight_text_free(&t);
}
END_TEST

/* The exact lookup is a hash of the names: every name finds its own entry, and a name one
   byte short, one byte longer or with a byte changed finds what a scan of the table finds. */
START_TEST(every_name_and_its_near_misses_look_up_as_a_scan_finds_them)
{
    char buf[256];
    for (size_t i = 0; i < catalog_n_entries; i++) {
        const char *name = catalog_entries[i].name;
        size_t n = strlen(name);
        ck_assert_str_eq(catalog_lookup_slice(slice_make(name, n))->name, name);
        if (n + 2 > sizeof buf)
            continue;
        for (int v = 0; v < 3; v++) {
            memcpy(buf, name, n);
            size_t m = v == 0 ? n - 1 : v == 1 ? n + 1 : n;
            if (v == 1)
                buf[n] = 'q';
            if (v == 2)
                buf[n - 1] = (char)(buf[n - 1] == 'z' ? 'y' : 'z');
            buf[m] = '\0';
            const struct catalog_entry *want = NULL;
            for (size_t k = 0; k < catalog_n_entries; k++)
                if (strcmp(catalog_entries[k].name, buf) == 0)
                    want = &catalog_entries[k];
            const struct catalog_entry *got = catalog_lookup(buf);
            /* Shaped names ("...Exec", "Scan x", "Execute X") and aliases go further. */
            if (want)
                ck_assert_ptr_eq(got, want);
            else if (got)
                ck_assert(strstr(buf, "Exec") || strncmp(buf, "Scan", 4) == 0 ||
                          strncmp(buf, "Execute", 7) == 0 || strstr(buf, "Scan") ||
                          strcmp(buf, "RDDScan") == 0);
        }
    }
    ck_assert_ptr_null(catalog_lookup("NoSuchOperatorAtAll"));
    ck_assert_str_eq(catalog_lookup("HiveTableScan")->name, "Scan hive");
    ck_assert_str_eq(catalog_lookup("ShuffleExchangeExec")->name, "Exchange");
}
END_TEST

Suite *catalog_suite(void)
{
    Suite *s = suite_create("catalog");
    TCase *tc = tcase_create("lookup");
    tcase_add_test(tc, lookup_tolerates_markers_prefixes_and_multiword_names);
    tcase_add_test(tc, accelerator_variants_map_to_their_spark_operator);
    tcase_add_test(tc, every_entry_is_complete_and_names_are_unique);
    tcase_add_test(tc, execute_command_is_named_in_full_and_explained_as_a_driver_command);
    tcase_add_test(tc, every_name_and_its_near_misses_look_up_as_a_scan_finds_them);
    suite_add_tcase(s, tc);
    TCase *corpus = tcase_create("corpus");
    tcase_add_test(corpus, every_operator_in_the_corpus_has_an_entry);
    suite_add_tcase(s, corpus);
    return s;
}
