/* The teaching features on the command line: --lint (format and exit status), --summary,
 * --rules, --explain-node, --samples and --sample. */
#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sparkplan/sample.h"
#include "testutil.h"

static size_t count_lines(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

START_TEST(lint_prints_file_line_rule_severity_and_exits_0_without_warnings)
{
    int st;
    char *out = tu_runf(&st, "%s --lint samples/join-simple.txt", tu_binary());
    ck_assert_int_eq(st, 0);
    ck_assert_str_eq(out,
        "samples/join-simple.txt:5: SP001 info: shuffle by hash of customer_id#13L; needed by "
        "SortMergeJoin on line 3\n"
        "samples/join-simple.txt:10: SP001 info: shuffle by hash of customer_id#16L; needed by "
        "SortMergeJoin on line 3\n");
    free(out);
}
END_TEST

START_TEST(lint_exits_1_on_a_warning_and_2_on_an_unreadable_file)
{
    int st;
    char *out = tu_runf(&st, "%s --lint samples/join-cost.txt", tu_binary());
    ck_assert_int_eq(st, 1);
    ck_assert_ptr_nonnull(strstr(out, "samples/join-cost.txt:11: SP012 warning: sort-merge join "
                                      "whose right side is 107.4 KiB (estimated)"));
    free(out);

    /* Standard input is named "stdin". */
    out = tu_runf(&st, "printf 'CartesianProduct\\n:- LocalTableScan [a#1]\\n+- LocalTableScan [b#2]\\n'"
                   " | %s --lint", tu_binary());
    ck_assert_int_eq(st, 1);
    ck_assert_str_eq(out, "stdin:1: SP011 warning: CartesianProduct: no join condition\n");
    free(out);

    out = tu_runf(&st, "%s --lint samples/join-simple.txt /nonexistent/plan.txt 2>&1", tu_binary());
    ck_assert_int_eq(st, 2);
    ck_assert_ptr_nonnull(strstr(out, "sparkplan: /nonexistent/plan.txt: "));
    ck_assert_ptr_nonnull(strstr(out, "samples/join-simple.txt:5: SP001"));
    free(out);
}
END_TEST

START_TEST(summary_counts_what_a_reader_checks_first)
{
    int st;
    char *out = tu_runf(&st, "%s --summary samples/join-formatted.txt", tu_binary());
    ck_assert_int_eq(st, 0);
    ck_assert_ptr_nonnull(strstr(out, "Plans: 1, nodes: 12"));
    ck_assert_ptr_nonnull(strstr(out, "Exchanges: 2 shuffles (2 hash), 0 broadcasts, 0 reused\n"));
    ck_assert_ptr_nonnull(strstr(out, "Codegen stages: 5\n"));
    ck_assert_ptr_nonnull(strstr(out, "Joins: 1 (1 sort-merge)\n"));
    ck_assert_ptr_nonnull(strstr(out, "line 8: Scan parquet spark_catalog.default.orders, 4 columns "
                                      "read, 3 pushed filters\n"));
    ck_assert_ptr_nonnull(strstr(out, "Findings: 0 warnings, 2 info (SP001 shuffle x2)\n"));
    free(out);

    out = tu_runf(&st, "%s --summary samples/join-simple.txt samples/join-codegen.txt", tu_binary());
    ck_assert_int_eq(st, 0);
    ck_assert_ptr_nonnull(strstr(out, "==> samples/join-simple.txt <==\n"));
    ck_assert_ptr_nonnull(strstr(out, "\n==> samples/join-codegen.txt <==\n"));
    ck_assert_ptr_nonnull(strstr(out, "Joins: 1 (1 broadcast hash)"));
    free(out);
}
END_TEST

/* QA #6: an RDD scan ("Scan ExistingRDD[...]" of a DataFrame made from Python rows) names
 * what it reads in its operator name; it has no table, so the name is printed once. */
START_TEST(summary_names_an_rdd_scan_once)
{
    int st;
    char *out = tu_runf(&st, "printf '== Physical Plan ==\n"
                         "*(1) Project [customer_id#10856, state#10860]\n"
                         "+- *(1) Scan ExistingRDD[customer_id#10856,name#10857,email#10858,"
                         "city#10859,state#10860,signup_date#10861]\n' | %s --summary",
                    tu_binary());
    ck_assert_int_eq(st, 0);
    ck_assert_ptr_nonnull(strstr(out, "  line 3: Scan ExistingRDD, 6 columns read\n"));
    ck_assert_ptr_null(strstr(out, "ExistingRDD ExistingRDD"));
    free(out);
}
END_TEST

/* The scan lines are put together in place when the names are short printable ASCII, and
 * piece by piece (sanitized) otherwise: both ways print what fprintf did. */
START_TEST(summary_scan_lines_with_odd_names_print_as_before)
{
    int st;
    char *out = tu_runf(&st, "t=$(printf '%%0300d' 0 | tr 0 t); printf '== Physical Plan ==\nUnion\n"
        ":- *(1) ColumnarToRow\n"
        ":  +- FileScan parquet db.caf\303\251[a#1,p#2] Batched: true, DataFilters: [], Format: Parquet, "
        "PartitionFilters: [isnotnull(p#2), dynamicpruningexpression(p#2 IN dynamicpruning#9)], "
        "PushedFilters: [IsNotNull(a)], ReadSchema: struct<a:int>\n"
        ":- *(2) ColumnarToRow\n"
        ":  +- FileScan parquet db.'$t'[a#3] Batched: true, DataFilters: [], Format: Parquet, "
        "PartitionFilters: [], PushedFilters: [], ReadSchema: struct<a:int>\n"
        "+- *(3) ColumnarToRow\n"
        "   +- FileScan parquet db.red[a#4] Batched: true, DataFilters: [], Format: Parquet, "
        "PartitionFilters: [p#5], PushedFilters: [], ReadSchema: struct<a:int>\n' | %s --summary",
        tu_binary());
    ck_assert_int_eq(st, 0);
    ck_assert_ptr_nonnull(strstr(out, "  line 4: FileScan db.caf\303\251, 1 column read, 1 pushed "
                                      "filter, 2 partition filters (dynamic pruning)\n"));
    char want[512];
    snprintf(want, sizeof want, "  line 6: FileScan db.%0300d, 1 column read, 0 pushed filters\n", 0);
    for (char *p = strstr(want, "db.") + 3; *p == '0'; p++)
        *p = 't';
    ck_assert_ptr_nonnull(strstr(out, want));
    ck_assert_ptr_nonnull(strstr(out, "  line 8: FileScan db.red, 1 column read, 0 pushed filters, "
                                      "1 partition filter\n"));
    free(out);
}
END_TEST

/* A formatted scan's fields are read once for the filter over it and for its own line: a
 * PushedFilters given twice counts as its first ("[]": the filter warns), a scan without one
 * reads 0 pushed filters (its block has a ReadSchema), and a PartitionFilters inside another
 * field's value is found there, as before. */
START_TEST(summary_reads_each_scan_s_fields_once_as_before)
{
    int st;
    char *out = tu_runf(&st, "printf '== Physical Plan ==\nUnion (6)\n:- * Filter (3)\n"
        ":  +- * ColumnarToRow (2)\n:     +- Scan parquet db.t (1)\n+- * ColumnarToRow (5)\n"
        "   +- Scan parquet db.u (4)\n\n\n(1) Scan parquet db.t\nOutput [2]: [a#1, p#2]\n"
        "PushedFilters: []\nPushedFilters: [IsNotNull(a)]\nReadSchema: struct<a:int>\n\n"
        "(2) ColumnarToRow [codegen id : 1]\nInput [2]: [a#1, p#2]\n\n"
        "(3) Filter [codegen id : 1]\nInput [2]: [a#1, p#2]\nCondition : (a#1 > 1)\n\n"
        "(4) Scan parquet db.u\nOutput [1]: [b#3]\n"
        "Location: InMemoryFileIndex [file:/w/u], PartitionFilters: [isnotnull(q#4)]\n"
        "ReadSchema: struct<b:int>\n\n(5) ColumnarToRow [codegen id : 2]\nInput [1]: [b#3]\n\n"
        "(6) Union\n' | %s --summary", tu_binary());
    ck_assert_int_eq(st, 0);
    ck_assert_ptr_nonnull(strstr(out, "Scans: 2\n"
                                      "  line 5: Scan parquet db.t, 1 column read, 0 pushed filters\n"
                                      "  line 7: Scan parquet db.u, 1 column read, 0 pushed filters, "
                                      "1 partition filter\n"
                                      "Findings: 1 warning, 2 info (SP020 filter not pushed down x1, "
                                      "SP021 partition pruning x1, SP023 every partition read x1)\n"));
    free(out);
}
END_TEST

START_TEST(rules_lists_every_rule_id)
{
    int st;
    char *out = tu_runf(&st, "%s --rules", tu_binary());
    ck_assert_int_eq(st, 0);
    static const char *const ids[] = {"SP001", "SP002", "SP003", "SP010", "SP011", "SP012",
                                      "SP013", "SP014", "SP020", "SP021", "SP022", "SP030",
                                      "SP031", "SP040", "SP041", "SP042", "SP050", "SP051",
                                      "SP060", "SP061", "SP070"};
    for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++)
        ck_assert_msg(strstr(out, ids[i]), "%s missing from --rules", ids[i]);
    ck_assert_ptr_nonnull(strstr(out, "SP002 warning single partition\n"));
    free(out);
}
END_TEST

START_TEST(explain_node_prints_the_entry_and_says_when_it_does_not_know)
{
    int st;
    char *out = tu_runf(&st, "%s --explain-node BroadcastHashJoin", tu_binary());
    ck_assert_int_eq(st, 0);
    ck_assert(strncmp(out, "BroadcastHashJoin  (Spark physical operator)\n", 45) == 0);
    ck_assert_ptr_nonnull(strstr(out, "Join strategy: broadcast hash\n"));
    ck_assert_ptr_nonnull(strstr(out, "\nWhat it does\n  "));
    ck_assert_ptr_nonnull(strstr(out, "\nWhat to check\n  "));
    char *p = out;  /* wrapped to 80 columns */
    while (*p) {
        char *nl = strchr(p, '\n');
        ck_assert_ptr_nonnull(nl);
        ck_assert_int_le(nl - p, 80);
        p = nl + 1;
    }
    free(out);

    /* The whole node line works too, markers and all; accelerators name their Spark operator. */
    out = tu_runf(&st, "%s --explain-node '*(3) CometBroadcastHashJoin (104)'", tu_binary());
    ck_assert_int_eq(st, 0);
    ck_assert_ptr_nonnull(strstr(out, "CometBroadcastHashJoin  (Comet (DataFusion) physical operator)"));
    ck_assert_ptr_nonnull(strstr(out, "Stands for Spark's BroadcastHashJoin"));
    free(out);

    out = tu_runf(&st, "%s --explain-node GpuSortMergeJoin", tu_binary());
    ck_assert_int_eq(st, 0);
    ck_assert(strncmp(out, "GpuSortMergeJoin is not in the catalogue; it looks like the", 59) == 0);
    ck_assert_ptr_nonnull(strstr(out, "RAPIDS (GPU) version\nof Spark's SortMergeJoin"));
    ck_assert_ptr_nonnull(strstr(out, "SortMergeJoin  (Spark physical operator)"));
    free(out);

    out = tu_runf(&st, "%s --explain-node 'FrobnicateExec [a#1]'", tu_binary());
    ck_assert_int_eq(st, 1);
    ck_assert_str_eq(out, "FrobnicateExec: not in the catalogue.\n");
    free(out);
}
END_TEST

START_TEST(samples_are_listed_with_their_descriptions_and_open_by_name)
{
    int st;
    char *out = tu_runf(&st, "%s --samples", tu_binary());
    ck_assert_int_eq(st, 0);
    ck_assert_uint_eq(count_lines(out), n_sample_files);
    /* "join-formatted", padding, then the description from samples/INDEX.tsv. */
    char *jf = strstr(out, "\njoin-formatted  ");
    ck_assert_ptr_nonnull(jf);
    jf += strlen("\njoin-formatted");
    jf += strspn(jf, " ");
    ck_assert(strncmp(jf, "df.explain('formatted') of the same join", 40) == 0);
    ck_assert_ptr_nonnull(strstr(out, "Workshop: rank() over a window with partitionBy"));
    for (size_t i = 0; i < n_sample_files; i++) {
        char name[128];
        snprintf(name, sizeof name, "%.*s  ", (int)strlen(sample_files[i].name) - 4,
                 sample_files[i].name);
        ck_assert_msg(strstr(out, name), "%s missing from --samples", sample_files[i].name);
    }
    free(out);

    /* Not a terminal: the sample is printed like a file would be. */
    char *want = tu_runf(&st, "%s --print samples/join-cost.txt", tu_binary());
    out = tu_runf(&st, "%s --sample join-cost | cat", tu_binary());
    ck_assert_int_eq(st, 0);
    ck_assert_str_eq(out, want);
    free(out);
    out = tu_runf(&st, "%s --lint --sample join-cost.txt", tu_binary());
    ck_assert_int_eq(st, 1);
    ck_assert(strncmp(out, "join-cost.txt:11: SP012 warning", 31) == 0);
    free(out);
    free(want);

    out = tu_runf(&st, "%s --sample no-such-sample 2>&1", tu_binary());
    ck_assert_int_eq(st, 2);
    ck_assert_ptr_nonnull(strstr(out, "no sample named 'no-such-sample'"));
    free(out);
}
END_TEST

Suite *insight_cli_suite(void)
{
    Suite *s = suite_create("insight_cli");
    TCase *tc = tcase_create("cli");
    tcase_add_test(tc, lint_prints_file_line_rule_severity_and_exits_0_without_warnings);
    tcase_add_test(tc, lint_exits_1_on_a_warning_and_2_on_an_unreadable_file);
    tcase_add_test(tc, summary_counts_what_a_reader_checks_first);
    tcase_add_test(tc, summary_names_an_rdd_scan_once);
    tcase_add_test(tc, summary_scan_lines_with_odd_names_print_as_before);
    tcase_add_test(tc, summary_reads_each_scan_s_fields_once_as_before);
    tcase_add_test(tc, rules_lists_every_rule_id);
    tcase_add_test(tc, explain_node_prints_the_entry_and_says_when_it_does_not_know);
    tcase_add_test(tc, samples_are_listed_with_their_descriptions_and_open_by_name);
    suite_add_tcase(s, tc);
    return s;
}
