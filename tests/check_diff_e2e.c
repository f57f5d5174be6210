/* End-to-end, in a real terminal (tmux): the explorer's plan diff — = compares two plans,
 * picked in the plan picker (Esc cancels), the diff a tab to leave and come back to (t, D,
 * Tab), I an adaptive plan's Initial and Final plans; marks in the gutter, the summary in the
 * header, side by side at 160 columns, n from difference to difference, Enter for both
 * sides' fields, w walking the differences, Space unfolding an unchanged subtree.
 * Each test ends its program with SIGTERM and fails unless it exits with status 143
 * (128 + SIGTERM; 0 when it had ended) and wrote no sanitizer report.  Skipped with a
 * message when tmux is missing.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pollwait.h"
#include "testutil.h"
#include "tmuxterm.h"

static void setup(void)
{
    tmx_setup("diff");
}

static void teardown(void)
{
    tmx_teardown();
}

START_TEST(equals_compares_two_plans_marks_them_and_steps_between_differences)
{
    if (!tmx_ready())
        return;
    struct tmx tm;
    tmx_start(&tm, "merged", 120, 30, "", "--sample broadcast-vs-sortmerge");
    tmx_wait_for(&tm, "SortMergeJoin [customer_id#13L]");
    tmx_keys(&tm, "=");
    /* The picker starts on the next tab: Enter takes it. */
    TMX_EXPECT(&tm, false, SHOWS("Compare this tab with"));
    tmx_keys(&tm, "Enter");
    char *s = TMX_WAIT(&tm, false, SHOWS("Diff  A: broadcast-vs-sortmerge.txt 1:Physical"),
                       SHOWS("SortMergeJoin\xe2\x86\x92" "BroadcastHashJoin \xc3\x97" "1"));
    /* One merged tree below 160 columns: the mark, then the row. */
    char *join = pw_line(s, "BroadcastHashJoin [customer_id#64L]");
    ck_assert_msg(strncmp(join, "\xe2\x87\x84   ", 6) == 0, "no replaced mark: '%s'", join);
    ck_assert_ptr_nonnull(strstr(join, "[was: SortMergeJoin"));
    free(join);
    char *sort = pw_line(s, "Sort [customer_id#13L ASC NULLS FIRST]");
    ck_assert_msg(sort[0] == '-', "no removed mark: '%s'", sort);
    free(sort);
    /* The unchanged Filter subtrees fold into one row each. */
    ck_assert_ptr_nonnull(strstr(s, "isnotnull(customer_id#64L))  [=2]"));
    free(s);
    /* The selection starts on the first difference; n goes to the next one. */
    TMX_EXPECT(&tm, false, SHOWS("Replaced: SortMergeJoin became BroadcastHashJoin"));
    tmx_keys(&tm, "n");
    TMX_EXPECT(&tm, false, SHOWS("Removed: Sort"));
    tmx_keys(&tm, "N");
    TMX_EXPECT(&tm, false, SHOWS("Replaced: SortMergeJoin became BroadcastHashJoin"));
    /* Enter: both sides' fields. */
    tmx_keys(&tm, "Enter");
    TMX_EXPECT(&tm, false, SHOWS("Fields of the selected node, A against B"),
               SHOWS("  A arguments: [customer_id#13L], [customer_id#16L], Inner"),
               SHOWS("  B arguments: [customer_id#64L], [customer_id#67L], Inner, BuildRight"));
    /* q closes the diff: the tree is back. */
    tmx_keys(&tm, "q");
    TMX_EXPECT(&tm, false, LACKS("Diff  A:"), SHOWS("SortMergeJoin [customer_id#13L]"));
    tmx_stop(&tm);
}
END_TEST

START_TEST(wide_terminals_show_both_trees_side_by_side_and_w_walks)
{
    if (!tmx_ready())
        return;
    struct tmx tm;
    tmx_start(&tm, "wide", 200, 30, "", "--sample diff-pushdown");
    tmx_wait_for(&tm, "Filter (isnotnull(country#18)");
    tmx_keys(&tm, "=");
    TMX_EXPECT(&tm, false, SHOWS("Compare this tab with"));
    tmx_keys(&tm, "Enter");
    char *s = TMX_WAIT(&tm, false, SHOWS("2 changed"));
    /* A's text on the left, the mark between, B's on the right, on one line. */
    char *row = pw_line(s, "Filter (isnotnull(country#18) AND (country#18 = DE))");
    char *mark = strstr(row, " ~ ");
    ck_assert_msg(mark && strstr(mark, "Filter (isnotnull(country#36) AND (upper(country#36)"),
                  "not side by side: '%s'", row);
    free(row), free(s);
    tmx_keys(&tm, "w");
    TMX_EXPECT(&tm, false, SHOWS("Changed: Filter: arguments"), SHOWS("(walk: Space next"));
    tmx_keys(&tm, "Space");
    TMX_EXPECT(&tm, false, SHOWS("Changed: FileScan: DataFilters, PushedFilters"),
               SHOWS("  A PushedFilters: [IsNotNull(country), EqualTo(country,DE)]"),
               SHOWS("  B PushedFilters: [IsNotNull(country)]"));
    tmx_keys(&tm, "q"); /* ends the walk */
    TMX_EXPECT(&tm, false, SHOWS("n/N difference"), SHOWS("Diff  A:"));
    tmx_keys(&tm, "q");
    TMX_EXPECT(&tm, false, LACKS("Diff  A:"));
    tmx_stop(&tm);
}
END_TEST

START_TEST(capital_i_shows_an_adaptive_plan_initial_against_final)
{
    if (!tmx_ready())
        return;
    struct tmx tm;
    tmx_start(&tm, "aqe", 120, 30, "", "--sample join-aqe-final");
    tmx_wait_for(&tm, "AdaptiveSparkPlan");
    tmx_keys(&tm, "I");
    char *s = TMX_WAIT(&tm, false, SHOWS("Initial plan  B: Final plan"),
                       SHOWS("+2 ColumnarToRow \xc2\xb7 +2 ShuffleQueryStage \xc2\xb7 +2 AQEShuffleRead"),
                       SHOWS("Added: AQEShuffleRead (a wrapper: what it wraps is unchanged)"));
    /* The query stages are added; the Exchange they wrap is the same, not moved. */
    char *stage = pw_line(s, "ShuffleQueryStage 0");
    ck_assert_msg(stage[0] == '+', "no added mark: '%s'", stage);
    free(stage);
    char *ex = pw_line(s, "Exchange hashpartitioning(customer_id#105L, 200)");
    ck_assert_msg(ex[0] == ' ', "the Exchange is not the same: '%s'", ex);
    free(ex), free(s);
    tmx_stop(&tm);
}
END_TEST

START_TEST(equals_says_why_when_there_is_nothing_to_compare_with)
{
    if (!tmx_ready())
        return;
    struct tmx tm;
    tmx_start(&tm, "alone", 120, 30, "", "--sample join-simple");
    tmx_wait_for(&tm, "SortMergeJoin");
    tmx_keys(&tm, "I");
    TMX_EXPECT(&tm, false, SHOWS("diff: this document has no adaptive plan"));
    tmx_keys(&tm, "=");
    TMX_EXPECT(&tm, false, SHOWS("diff: open a second plan"));
    tmx_stop(&tm);
}
END_TEST

START_TEST(equals_picks_side_b_in_the_picker_and_escape_cancels)
{
    if (!tmx_ready())
        return;
    struct tmx tm;
    tmx_start(&tm, "pick", 120, 30, "", "--sample diff-analyzed-optimized");
    tmx_wait_for(&tm, "?:help");
    tmx_keys(&tm, "=");
    /* Every other tab is offered, not this one. */
    char *s = TMX_WAIT(&tm, false, SHOWS("Compare this tab with"), SHOWS("Optimized"),
                       SHOWS("Parsed"));
    ck_assert_msg(!strstr(s, " * "), "the current tab is offered:\n%s", s);
    free(s);
    tmx_keys(&tm, "Escape");
    TMX_EXPECT(&tm, false, LACKS("Compare this tab with"), LACKS("Diff  A:"));
    /* Typing filters; Enter compares with the one left. */
    tmx_keys(&tm, "=");
    TMX_EXPECT(&tm, false, SHOWS("Compare this tab with"));
    tmx_keys(&tm, "-l 'optimized logical'");
    TMX_EXPECT(&tm, false, SHOWS("filter: optimized logical_   1 of 3"));
    tmx_keys(&tm, "Enter");
    TMX_EXPECT(&tm, false, SHOWS("Diff  A: diff-analyzed-optimized.txt Physical  B: "
                                 "diff-analyzed-optimized.txt Optimized"));
    tmx_stop(&tm);
}
END_TEST

START_TEST(a_diff_is_a_tab_to_leave_and_come_back_to)
{
    if (!tmx_ready())
        return;
    struct tmx tm;
    tmx_start(&tm, "subject", 120, 30, "", "--sample broadcast-vs-sortmerge");
    tmx_wait_for(&tm, "SortMergeJoin [customer_id#13L]");
    tmx_keys(&tm, "=");
    TMX_EXPECT(&tm, false, SHOWS("Compare this tab with"));
    tmx_keys(&tm, "Enter");
    TMX_EXPECT(&tm, false, SHOWS("Diff  A: broadcast-vs-sortmerge.txt 1:Physical"));
    tmx_keys(&tm, "q"); /* leaves the diff: side A's tab */
    TMX_EXPECT(&tm, false, LACKS("Diff  A:"), SHOWS("SortMergeJoin [customer_id#13L]"));
    /* The document list names it, the picker lists it and shows it again. */
    tmx_keys(&tm, "D");
    TMX_EXPECT(&tm, false, SHOWS("diffs: =2:Physical"));
    tmx_keys(&tm, "q");
    TMX_EXPECT(&tm, false, LACKS("Documents (Enter"));
    tmx_keys(&tm, "t");
    TMX_EXPECT(&tm, false, SHOWS("Plans and sections"), SHOWS("=2:Physical"));
    tmx_keys(&tm, "-l =2");
    TMX_EXPECT(&tm, false, SHOWS("filter: =2_   1 of"));
    tmx_keys(&tm, "Enter");
    TMX_EXPECT(&tm, false, SHOWS("Diff  A: broadcast-vs-sortmerge.txt 1:Physical"),
               SHOWS("SortMergeJoin\xe2\x86\x92" "BroadcastHashJoin \xc3\x97" "1"));
    /* Tab from side A reaches it too, among the document's tabs; = again keeps one tab. */
    tmx_keys(&tm, "q");
    TMX_EXPECT(&tm, false, LACKS("Diff  A:"));
    tmx_keys(&tm, "=");
    TMX_EXPECT(&tm, false, SHOWS("Compare this tab with"));
    tmx_keys(&tm, "Enter");
    TMX_EXPECT(&tm, false, SHOWS("Diff  A:"));
    tmx_keys(&tm, "q");
    TMX_EXPECT(&tm, false, LACKS("Diff  A:"));
    tmx_keys(&tm, "Tab");
    TMX_EXPECT(&tm, false, LACKS("Diff  A:"), SHOWS("BroadcastHashJoin [customer_id#64L]"));
    tmx_keys(&tm, "Tab");
    TMX_EXPECT(&tm, false, SHOWS("Diff  A: broadcast-vs-sortmerge.txt 1:Physical"));
    tmx_keys(&tm, "q");
    tmx_keys(&tm, "D");
    char *s = TMX_WAIT(&tm, false, SHOWS("diffs: =2:Physical"));
    ck_assert_msg(!strstr(s, "=2:Physical =2:Physical"), "the same diff twice:\n%s", s);
    free(s);
    tmx_stop(&tm);
}
END_TEST

Suite *diff_e2e_suite(void)
{
    Suite *s = suite_create("diff_e2e");
    TCase *tc = tcase_create("tmux");
    tcase_add_unchecked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 240);
    tcase_add_test(tc, equals_compares_two_plans_marks_them_and_steps_between_differences);
    tcase_add_test(tc, wide_terminals_show_both_trees_side_by_side_and_w_walks);
    tcase_add_test(tc, capital_i_shows_an_adaptive_plan_initial_against_final);
    tcase_add_test(tc, equals_says_why_when_there_is_nothing_to_compare_with);
    tcase_add_test(tc, equals_picks_side_b_in_the_picker_and_escape_cancels);
    tcase_add_test(tc, a_diff_is_a_tab_to_leave_and_come_back_to);
    suite_add_tcase(s, tc);
    return s;
}
