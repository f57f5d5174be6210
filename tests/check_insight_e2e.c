/* End-to-end, in a real terminal (tmux): the teaching keys of the explorer as a workshop
 * uses them — findings in the gutter and their list (! f), the operator explanation (i), an
 * expression id traced through the plan (* n), the flipped tree (r) and the guided walk (w).
 * The plans are the built-in samples (--sample), so the screens show what the samples hold.
 * Each test ends its program with SIGTERM (it leaves as on q) and fails unless it exits with
 * status 0 and wrote no sanitizer report (the sanitizer pass runs the binary built with
 * ASan + UBSan).  Skipped with a message when tmux is missing.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pollwait.h"
#include "testutil.h"
#include "tmuxterm.h"

/* A formatted plan of n scans and exchanges under one Union (tu_union_plan), written to
 * the test directory as name; its path in path. */
static void write_union_plan(const char *name, unsigned n, char *path, size_t cap)
{
    size_t len;
    char *text = tu_union_plan(n, false, "", &len);
    snprintf(path, cap, "%s/%s", tmx_dir(), name);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(text, 1, len, f), len);
    ck_assert_int_eq(fclose(f), 0);
    free(text);
}


static bool skipped(void)
{
    return !tmx_ready();
}

static void setup(void)
{
    tmx_setup("insight");
}

static void teardown(void)
{
    tmx_teardown();
}

START_TEST(findings_are_marked_in_the_gutter_listed_and_stepped)
{
    if (skipped())
        return;
    struct tmx tm;
    tmx_start(&tm, "findings", 130, 30, "", "--sample window-partitioning");
    tmx_wait_for(&tm, "Exchange hashpartitioning(customer_id#13L, 200)");
    tmx_keys(&tm, "Tab"); /* the second plan: the window without partitionBy */
    char *s = TMX_WAIT(&tm, false, ROW_SHOWS("Exchange SinglePartition", "!"),
                       ROW_LACKS("Sort [amount#14 DESC NULLS LAST]", "!"));
    char *ex = pw_line(s, "Exchange SinglePartition"); /* the mark is in the gutter */
    ck_assert_msg(strncmp(ex, "   !", 4) == 0, "no warning mark in the gutter: '%s'", ex);
    free(ex), free(s);

    tmx_keys(&tm, "f");
    tmx_wait_for(&tm,
                 "SP002 warning: one task receives every row: a window without partitionBy");
    /* the details list the node's findings and the advice */
    TMX_EXPECT(&tm, false, SHOWS("Findings"), SHOWS("Give the window a partitionBy"));

    tmx_keys(&tm, "!");
    TMX_EXPECT(&tm, false, SHOWS("Findings: 3 (Enter goes to one, q closes)"),
               SHOWS("4 i SP001 shuffle by hash of customer_id#13L"));
    tmx_keys(&tm, "q"); /* the list closes: the tree is back */
    TMX_EXPECT(&tm, false, LACKS("Findings: 3"), SHOWS("Exchange SinglePartition"));
    tmx_stop(&tm);
}
END_TEST

START_TEST(i_explains_the_selected_operator_beside_its_details)
{
    if (skipped())
        return;
    struct tmx tm;
    tmx_start(&tm, "explain", 130, 40, "", "--sample join-simple");
    tmx_wait_for(&tm, "SortMergeJoin [customer_id#13L]");
    tmx_keys(&tm, "j"); /* the SortMergeJoin */
    tmx_wait_for(&tm, " SortMergeJoin  stage *(5)");
    tmx_keys(&tm, "i");
    TMX_EXPECT(&tm, false, SHOWS("SortMergeJoin  (Spark physical operator)"),
               SHOWS("Join strategy: sort-merge"), SHOWS("What to check"),
               SHOWS("operator explanations on"));
    tmx_keys(&tm, "j"); /* follows the selection */
    tmx_wait_for(&tm, "Sort  (Spark logical and physical operator)");
    tmx_keys(&tm, "i");
    TMX_EXPECT(&tm, false, SHOWS("operator explanations off"), LACKS("What to check"));
    tmx_stop(&tm);
}
END_TEST

START_TEST(star_traces_an_expression_id_to_its_producer)
{
    if (skipped())
        return;
    struct tmx tm;
    tmx_start(&tm, "trace", 130, 30, "", "--sample join-formatted");
    tmx_wait_for(&tm, "SortMergeJoin Inner (11)");
    tmx_keys(&tm, "j"); /* SortMergeJoin (11): both join keys */
    tmx_wait_for(&tm, " SortMergeJoin (11)");
    tmx_keys(&tm, "'*'");
    TMX_EXPECT(&tm, false, SHOWS("Expression ids of this node"), SHOWS("customer_id#13L"),
               SHOWS("customer_id#16L"));
    tmx_keys(&tm,
             "Enter"); /* the first: orders' customer_id#13L; the producer gets a diamond */
    TMX_EXPECT(
        &tm, false, SHOWS("produced by Scan parquet on line 8"),
        SHOWS("customer_id#13L: 7 nodes here"),
        ROW_SHOWS("\xE2\x94\x80 Scan parquet spark_catalog.default.orders (1)", /* ─ leaf */
                  "\xE2\x97\x86"),
        ROW_LACKS("\xE2\x94\x80 Scan parquet spark_catalog.default.customers (6)",
                  "\xE2\x97\x86"));
    tmx_keys(&tm, "n");
    tmx_wait_for(&tm, "[1/7 \xC2\xB7 Physical]");
    tmx_keys(&tm, "n");
    tmx_wait_for(&tm, "[2/7 \xC2\xB7 Physical]");
    tmx_stop(&tm);
}
END_TEST

START_TEST(r_flips_the_tree_so_scans_are_on_top)
{
    if (skipped())
        return;
    struct tmx tm;
    tmx_start(&tm, "flip", 130, 30, "", "--sample join-simple");
    TMX_EXPECT(&tm, false, SHOWS("FileScan parquet spark_catalog.default.customers"),
               LINE_SHOWS(2, "Project [order_id#12L"));
    tmx_keys(&tm, "r"); /* the scan on top with an upside-down corner, the root at the bottom */
    TMX_EXPECT(&tm, false, SHOWS("flipped: scans on top"),
               LINE_SHOWS(2, "FileScan parquet spark_catalog.default.customers"),
               LINE_SHOWS(2, "\xE2\x94\x8C"), LINE_SHOWS(13, "Project [order_id#12L"));
    /* Down on the screen is towards the root: from the Project, k goes up to the join. */
    tmx_keys(&tm, "k");
    tmx_wait_for(&tm, " SortMergeJoin  stage *(5)");
    tmx_keys(&tm, "r");
    TMX_EXPECT(&tm, false, SHOWS("tree as Spark prints it"),
               LINE_SHOWS(2, "Project [order_id#12L"));
    tmx_stop(&tm);
}
END_TEST

START_TEST(w_walks_the_plan_in_execution_order_stage_by_stage)
{
    if (skipped())
        return;
    struct tmx tm;
    tmx_start(&tm, "walk", 130, 30, "", "--sample join-simple");
    tmx_wait_for(&tm, "SortMergeJoin [customer_id#13L]");
    /* A trace first: its counter belongs to the tree, not to the walk (QA #8). */
    tmx_keys(&tm, "'*'");
    tmx_wait_for(&tm, "Expression ids of this node");
    tmx_keys(&tm, "Enter");
    tmx_wait_for(&tm, "[2/2 \xC2\xB7 Physical]");
    tmx_keys(&tm, "w"); /* the first step, explained */
    TMX_EXPECT(&tm, false, SHOWS("walk 1/12 (Space b q) \xC2\xB7 job stage 1/3: FileScan: execution starts here"),
               SHOWS("FileScan  (Spark physical operator)"));
    tmx_keys(&tm, "Space Space Space"); /* no trace counter during the walk */
    TMX_EXPECT(&tm, false,
               SHOWS("walk 4/12 (Space b q) \xC2\xB7 job stage 1/3: Exchange: writes the shuffle, "
                     "job stage 1 ends here"),
               LACKS("/2 \xC2\xB7 Physical] "));
    /* The customers scan starts a stage; it crosses nothing (QA #8). */
    tmx_keys(&tm, "Space");
    tmx_wait_for(&tm, "job stage 2/3 (a new job stage starts at a scan): FileScan");
    tmx_keys(&tm, "Space Space Space Space");
    tmx_wait_for(
        &tm, "walk 9/12 (Space b q) \xC2\xB7 job stage 3/3 (reads the shuffle of job stage 1): "
             "Sort");
    tmx_keys(&tm, "Space");
    tmx_wait_for(
        &tm,
        "walk 10/12 (Space b q) \xC2\xB7 job stage 3/3 (reads the shuffle of job stage 2): "
        "Sort");
    tmx_keys(&tm, "g");
    tmx_wait_for(&tm, "walk 1/12");
    tmx_keys(&tm, "Space Space Space Space");
    tmx_wait_for(&tm, "walk 5/12");
    tmx_keys(&tm, "b");
    tmx_wait_for(&tm, "walk 4/12 (Space b q) \xC2\xB7 job stage 1/3: Exchange");
    tmx_keys(&tm, "G");
    tmx_wait_for(&tm, "walk 12/12 (Space b q) \xC2\xB7 job stage 3/3: Project (codegen stage *(5))");
    tmx_keys(&tm, "q"); /* explanations back off, the trace counter back */
    TMX_EXPECT(&tm, false, SHOWS("walk ended"), LACKS("What to check"), SHOWS("/2 \xC2\xB7 Physical] "));
    tmx_stop(&tm);
}
END_TEST

/* ---- the analysis runs beside the keys -------------------------------------------------- */

/* The analysis is held back (SPARKPLAN_TEST_ANALYSIS_GATE) until the test lets it go, so
 * what is shown meanwhile does not depend on the machine's speed: the first screen says
 * "analysing…", a key moves the selection at once, ! says it will open the list when the
 * findings are in; then they come, the list opens by itself, the gutter marks the
 * exchanges and the header counts the findings. */
/* An Exchange row with and without its gutter mark: " i" then the guide. */
#define EXCHANGE_T3 "\xE2\x94\x9C\xE2\x94\x80\xE2\x94\x80 Exchange t3 (3)"
#define MARKED_T3 "\n i" EXCHANGE_T3
#define UNMARKED_T3 "\n" EXCHANGE_T3

START_TEST(keys_are_answered_while_the_analysis_runs_and_the_findings_follow)
{
    if (skipped())
        return;
    char plan[128], gate[128], env[200];
    write_union_plan("union.txt", 30000, plan, sizeof plan);
    snprintf(gate, sizeof gate, "%s/gate-keys", tmx_dir());
    snprintf(env, sizeof env, "SPARKPLAN_TEST_ANALYSIS_GATE=%s", gate);
    struct tmx tm;
    tmx_start(&tm, "analysing", 160, 24, env, plan);
    TMX_EXPECT(&tm, false, SHOWS("analysing\xE2\x80\xA6  Physical \xC2\xB7 1/30001  ?:help"), SHOWS(UNMARKED_T3));
    tmx_keys(&tm, "j");
    TMX_EXPECT(&tm, false, SHOWS("analysing\xE2\x80\xA6  Physical \xC2\xB7 2/30001  ?:help"),
               SHOWS("Output [1]: [a#1]"));
    tmx_keys(&tm, "!");
    TMX_EXPECT(&tm, false, SHOWS("still analysing: the list opens when the findings are in"),
               LACKS("Findings: "));
    free(tmx_sh("touch %s", gate));
    TMX_EXPECT(&tm, false, SHOWS("Findings: 5000 (Enter goes to one, q closes)"),
               SHOWS("      5 i SP001 shuffle; needed by Union on line 2"), LACKS("analysing"));
    tmx_keys(&tm, "q");
    TMX_EXPECT(&tm, false, LACKS("Findings: 5000"), SHOWS("0 warnings, 5000 info (!)"),
               SHOWS(MARKED_T3),
               SHOWS("\n  \xE2\x94\x9C\xE2\x94\x80\xE2\x94\x80 Scan parquet t2 (2)"));
    tmx_keys(&tm, "q");
    int status = tmx_wait_exit(&tm);
    tmx_fail_on_sanitizer_report(&tm);
    ck_assert_int_eq(status, 0);
    tmx_stop(&tm);
}
END_TEST

/* Without the gate, on a plan big enough to keep the analysis busy a while: a key right
 * after the first screen is answered, and the findings come afterwards by themselves. */
START_TEST(a_big_plan_shows_its_findings_after_the_first_screen_by_itself)
{
    if (skipped())
        return;
    char plan[128];
    write_union_plan("big.txt", 90000, plan, sizeof plan);
    struct tmx tm;
    tmx_start(&tm, "bigfindings", 160, 24, "", plan);
    tmx_wait_for(&tm, " 1/90001  ?:help");
    tmx_keys(&tm, "j");
    tmx_wait_for(&tm, " 2/90001  ?:help");
    TMX_EXPECT(&tm, false, SHOWS("0 warnings, 5000 info (!)"), SHOWS(MARKED_T3),
               LACKS("analysing"));
    tmx_keys(&tm, "f"); /* the first finding after the selection */
    tmx_wait_for(&tm, "[1/5000] SP001 info: shuffle; needed by Union on line 2");
    tmx_stop(&tm);
}
END_TEST

/* Quitting while the analysis runs (here: held back for good) ends the program, with
 * status 0: the analysis sees its cancel flag, and the quit does not wait for it. */
START_TEST(quitting_during_the_analysis_does_not_wait_for_it)
{
    if (skipped())
        return;
    char plan[128], env[200];
    write_union_plan("quit.txt", 3000, plan, sizeof plan);
    snprintf(env, sizeof env, "SPARKPLAN_TEST_ANALYSIS_GATE=%s/never", tmx_dir());
    struct tmx tm;
    tmx_start(&tm, "quitting", 120, 24, env, plan);
    tmx_wait_for(&tm, "analysing\xE2\x80\xA6  Physical \xC2\xB7 1/3001  ?:help");
    tmx_keys(&tm, "q");
    int status = tmx_wait_exit(&tm);
    tmx_fail_on_sanitizer_report(&tm);
    ck_assert_int_eq(status, 0);
    tmx_stop(&tm);
}
END_TEST

Suite *insight_e2e_suite(void)
{
    Suite *s = suite_create("insight_e2e");
    TCase *tc = tcase_create("tmux");
    tcase_add_unchecked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 240); /* a loaded machine; each wait gives up after 30 s */
    tcase_add_test(tc, findings_are_marked_in_the_gutter_listed_and_stepped);
    tcase_add_test(tc, i_explains_the_selected_operator_beside_its_details);
    tcase_add_test(tc, star_traces_an_expression_id_to_its_producer);
    tcase_add_test(tc, r_flips_the_tree_so_scans_are_on_top);
    tcase_add_test(tc, w_walks_the_plan_in_execution_order_stage_by_stage);
    tcase_add_test(tc, keys_are_answered_while_the_analysis_runs_and_the_findings_follow);
    tcase_add_test(tc, a_big_plan_shows_its_findings_after_the_first_screen_by_itself);
    tcase_add_test(tc, quitting_during_the_analysis_does_not_wait_for_it);
    suite_add_tcase(s, tc);
    return s;
}
