/* The explorer's reading aids, end to end in tmux: details wrapping, copying and piping,
 * pastes typed without bracketed paste, and the smaller aids (stage '*', Home/End,
 * the wait for standard input).  See tests/tmuxterm.h for the harness. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pollwait.h"
#include "testutil.h"
#include "tmuxterm.h"

static bool skip_test(void)
{
    return !tmx_ready();
}

/* A formatted plan whose Output list wraps in the details. */
static void write_wide_plan(void)
{
    char text[4096];
    size_t n = (size_t)snprintf(text, sizeof text,
                                "== Physical Plan ==\n"
                                "* Project (2)\n"
                                "+- Scan parquet default.wide (1)\n"
                                "\n\n"
                                "(1) Scan parquet default.wide\n"
                                "Output [12]: [");
    for (int i = 1; i <= 12; i++)
        n += (size_t)snprintf(text + n, sizeof text - n, "%sa_long_column_name_%02d#%d",
                              i > 1 ? ", " : "", i, 100 + i);
    n += (size_t)snprintf(text + n, sizeof text - n,
                          "]\nLocation: InMemoryFileIndex [file:/data/warehouse/sales/"
                          "year=2024/month=01/day=01/part-00000.parquet]\n"
                          "\n"
                          "(2) Project [codegen id : 1]\n"
                          "Output [1]: [a_long_column_name_01#101]\n");
    tmx_write_file("wide.txt", text);
}

static void suite_setup(void)
{
    if (!tmx_setup("explore"))
        return;
    write_wide_plan();
    tmx_write_file("clip.conf", "set -g remain-on-exit on\nset -g status off\n"
                                "set -g default-terminal xterm-256color\n"
                                "set -g set-clipboard on\n");
}

static void suite_teardown(void)
{
    tmx_teardown();
}

START_TEST(details_wrap_between_names_and_align_under_the_value)
{
    if (skip_test())
        return;
    struct tmx x;
    tmx_start(&x, "wrap", 90, 30, "", "wide.txt");
    tmx_wait_for(&x, "Scan parquet default.wide (1)");
    tmx_keys(&x, "j");
    char *s = TMX_WAIT(&x, false, SHOWS(" Output [12]: [a_long_column_name_01#101,"));
    /* Every name whole on screen: no break inside an identifier. */
    for (int i = 1; i <= 12; i++) {
        char name[64];
        snprintf(name, sizeof name, "a_long_column_name_%02d#%d", i, 100 + i);
        ck_assert_msg(strstr(s, name), "%s is cut:\n%s", name, s);
    }
    /* Continuations start under the list's first name (" Output [12]: [" is 15 columns). */
    char *cont = pw_line(s, "a_long_column_name_04#");
    ck_assert_msg(strncmp(cont, "               a_long", 21) == 0, "not aligned: '%s'", cont);
    free(cont);
    free(s);
    tmx_stop(&x);
}
END_TEST

START_TEST(y_and_Y_copy_by_osc52_and_pipe_shows_in_the_pager)
{
    if (skip_test())
        return;
    struct tmx x;
    char env[256], script[300];
    snprintf(script, sizeof script, "#!/bin/sh\ncat > %s/paged.txt\n", tmx_dir());
    tmx_write_file("pager.sh", script);
    free(tmx_sh("chmod +x %s/pager.sh", tmx_dir()));
    snprintf(env, sizeof env, "PAGER=%s/pager.sh", tmx_dir());
    tmx_start_conf(&x, "clip.conf", "clip", 100, 30, env, "wide.txt");
    tmx_wait_for(&x, "Scan parquet default.wide (1)");
    tmx_keys(&x, "j y");
    tmx_wait_for(&x, "copied the node's text (29 bytes) to the clipboard");
    char *buf = tmx_sh("tmux -S %s show-buffer", x.sock);
    ck_assert_str_eq(buf, "Scan parquet default.wide (1)");
    free(buf);
    tmx_keys(&x, "k Y"); /* the whole tree, prefixes as Spark printed them */
    tmx_wait_for(&x, "copied the subtree (");
    buf = tmx_sh("tmux -S %s show-buffer", x.sock);
    ck_assert_str_eq(buf, "* Project (2)\n+- Scan parquet default.wide (1)");
    free(buf);
    tmx_keys(&x, "'|'");
    char path[256];
    snprintf(path, sizeof path, "%s/paged.txt", tmx_dir());
    size_t len = 0;
    char *paged = NULL;
    for (int i = 0; i < 200 && !(paged && len); i++) { /* the pager runs on its own */
        free(paged);
        struct timespec ts = {0, 20000000};
        nanosleep(&ts, NULL);
        paged = tu_read_file(path, &len);
    }
    ck_assert_ptr_nonnull(paged);
    ck_assert_str_eq(paged, "* Project (2)\n+- Scan parquet default.wide (1)");
    free(paged);
    tmx_wait_for(&x, "?:help"); /* back in the explorer */
    tmx_keys(&x, "Enter");
    tmx_wait_for(&x, "Esc: back to the tree");
    remove(path);
    tmx_keys(&x, "'|'"); /* from the details: the details, lines joined again */
    paged = NULL;
    len = 0;
    for (int i = 0; i < 200 && !(paged && len); i++) {
        free(paged);
        struct timespec ts = {0, 20000000};
        nanosleep(&ts, NULL);
        paged = tu_read_file(path, &len);
    }
    ck_assert_ptr_nonnull(paged);
    ck_assert_msg(strstr(paged, "(2) Project [codegen id : 1]\n"), "details: %s", paged);
    ck_assert_msg(strstr(paged, "Output [1]: [a_long_column_name_01#101]\n"), "details: %s",
                  paged);
    free(paged);
    tmx_wait_for(&x, "?:help");
    tmx_stop(&x);
}
END_TEST


START_TEST(a_paste_typed_as_keys_opens_whole_and_runs_no_command)
{
    if (skip_test())
        return;
    struct tmx x;
    tmx_start(&x, "typed", 100, 30, "", "wide.txt");
    tmx_wait_for(&x, "Scan parquet default.wide (1)");
    /* Letters that are keys (h folds, i explains, p pastes, q quits) inside two plans,
     * typed by tmux with no bracketed paste around them. */
    tmx_keys(&x, "-l '== Physical Plan ==\n"
                 "*(1) Project [hash#1]\n"
                 "+- *(1) Filter (quit#1 > 0)\n"
                 "   +- FileScan parquet t[hash#1,quit#1]\n"
                 "\n"
                 "== Physical Plan ==\n"
                 "*(2) HashAggregate(keys=[p#2], functions=[])\n"
                 "+- Exchange hashpartitioning(p#2, 200)\n"
                 "   +- FileScan parquet u[p#2]\n'");
    TMX_EXPECT(&x, false, SHOWS("paste 1 [2/2]"), SHOWS("[1:Physical]  2:Physical"),
               SHOWS("Filter (quit#1 > 0)"), SHOWS("FileScan parquet t[hash#1,quit#1]"),
               LACKS("operator explanations"), LACKS("[+"));
    tmx_keys(&x, "Tab"); /* the second plan, whole */
    TMX_EXPECT(&x, false, SHOWS("HashAggregate(keys=[p#2], functions=[])"),
               SHOWS("Exchange hashpartitioning(p#2, 200)"), SHOWS("FileScan parquet u[p#2]"));
    tmx_keys(&x, "j"); /* a single key is still a key */
    tmx_wait_for(&x, "2/3  ?:help");
    tmx_stop(&x);
}
END_TEST


START_TEST(a_stage_without_a_number_shows_as_a_star_and_each_run_is_its_own)
{
    if (skip_test())
        return;
    tmx_write_file("spark2.txt", "== Physical Plan ==\n"
                                 "*Project [a#1]\n"
                                 "+- *Filter (a#1 > 0)\n"
                                 "   +- Exchange hashpartitioning(a#1, 200)\n"
                                 "      +- *Project [a#1]\n"
                                 "         +- *FileScan parquet t[a#1]\n");
    struct tmx x;
    tmx_start(&x, "star", 110, 30, "", "spark2.txt");
    TMX_EXPECT(&x, false, SHOWS("Filter (a#1 > 0)"), SHOWS(" Project  stage *  "),
               LACKS("*(0)"), LACKS("  0 "));
    char *s = tmx_capture(&x, true);
    /* The run above the Exchange and the run below it: two tints, the band on one. */
    char *top = pw_line(s, "Filter (a#1 > 0)"), *bottom = pw_line(s, "FileScan parquet t");
    const char *tint_top = strstr(top, "48;5;"), *tint_bottom = strstr(bottom, "48;5;");
    ck_assert_ptr_nonnull(tint_top);
    ck_assert_ptr_nonnull(tint_bottom);
    ck_assert_msg(strncmp(tint_top, tint_bottom, 9) != 0, "one tint for two runs:\n%s\n%s",
                  top, bottom);
    ck_assert_msg(strstr(top, "48;5;235m"), "the selected run is not highlighted: %s", top);
    ck_assert_msg(!strstr(bottom, "48;5;235m"), "the other run is highlighted: %s", bottom);
    free(top), free(bottom), free(s);
    tmx_keys(&x, "Enter");
    tmx_wait_for(&x, "Codegen stage: * (its number");
    tmx_stop(&x);
}
END_TEST

START_TEST(the_walk_names_job_and_codegen_stages_and_logical_plans_do_not_run)
{
    if (skip_test())
        return;
    tmx_write_file("logical.txt", "== Optimized Logical Plan ==\n"
                                  "Project [a#1]\n"
                                  "+- Filter (a#1 > 0)\n"
                                  "   +- Relation t[a#1] parquet\n");
    struct tmx x;
    tmx_start(&x, "walkwords", 200, 30, "", "--sample join-simple");
    tmx_wait_for(&x, "SortMergeJoin");
    tmx_keys(&x, "w Space");
    tmx_wait_for(&x, "walk 2/12 (Space b q) \xC2\xB7 job stage 1/3: ColumnarToRow "
                     "(codegen stage *(1))");
    tmx_stop(&x);
    /* Narrow: the status line keeps the counter and the keys, the details the sentence. */
    tmx_start(&x, "walknarrow", 60, 30, "", "--sample join-simple");
    tmx_wait_for(&x, "SortMergeJoin");
    tmx_keys(&x, "w G k k k");
    TMX_EXPECT(&x, false, SHOWS("walk 9/12 (Space b q)"), SHOWS("Step 9 of 12, job stage 3 of 3"),
               SHOWS("(reads the shuffle of job"));
    tmx_stop(&x);
    tmx_start(&x, "walklogical", 100, 30, "", "logical.txt");
    tmx_wait_for(&x, "Relation t[a#1] parquet");
    tmx_keys(&x, "w");
    TMX_EXPECT(&x, false, SHOWS("walk 1/3 (Space b q) \xC2\xB7 logical plan: Relation"),
               SHOWS("Step 1 of 3. A logical plan does not run: this walk follows its data flow"),
               LACKS("job stage"));
    tmx_keys(&x, "q");
    TMX_EXPECT(&x, false, SHOWS("walk ended"), LACKS("Step 1 of 3"));
    tmx_stop(&x);
}
END_TEST


START_TEST(home_and_end_work_in_both_escape_forms)
{
    if (skip_test())
        return;
    struct tmx x;
    tmx_start(&x, "homeend", 100, 30, "", "wide.txt");
    tmx_wait_for(&x, "Scan parquet default.wide (1)");
    tmx_send_bytes(&x, "\x1b[4~"); /* End, VT220 form */
    tmx_wait_for(&x, "2/2  ?:help");
    tmx_send_bytes(&x, "\x1b[1~"); /* Home, VT220 form */
    tmx_wait_for(&x, "1/2  ?:help");
    tmx_send_bytes(&x, "\x1b[F"); /* End, xterm form */
    tmx_wait_for(&x, "2/2  ?:help");
    tmx_send_bytes(&x, "\x1b[H"); /* Home, xterm form */
    tmx_wait_for(&x, "1/2  ?:help");
    tmx_stop(&x);
}
END_TEST

START_TEST(standard_input_on_a_terminal_says_what_it_waits_for)
{
    if (skip_test())
        return;
    struct tmx x;
    tmx_start(&x, "stdin", 100, 30, "", "-");
    tmx_wait_for(&x, "sparkplan: reading a plan from standard input; Ctrl-d to end");
    tmx_keys(&x, "-l '== Physical Plan ==\n*(1) Project [a#1]\n+- FileScan parquet t[a#1]\n'");
    tmx_keys(&x, "C-d");
    tmx_wait_for(&x, "FileScan parquet t[a#1]");
    tmx_wait_for(&x, "?:help");
    tmx_stop(&x);
}
END_TEST

START_TEST(explain_node_ignores_case_and_suggests_close_names)
{
    int st = 0;
    char *out = tu_runf(&st, "%s --explain-node sortmergejoin", tu_binary());
    ck_assert_int_eq(st, 0);
    ck_assert_msg(strncmp(out, "SortMergeJoin  (Spark physical operator)", 40) == 0, "%s", out);
    free(out);
    out = tu_runf(&st, "%s --explain-node brodcasthashjoin", tu_binary());
    ck_assert_int_ne(st, 0);
    ck_assert_msg(strstr(out, "Did you mean: BroadcastHashJoin?"), "%s", out);
    free(out);
}
END_TEST


static const char subquery_plan[] =
    "== Physical Plan ==\n"
    "* Filter (2)\n"
    "+- Scan parquet default.t (1)\n"
    "\n"
    "\n"
    "(1) Scan parquet default.t\n"
    "Output [1]: [a#1]\n"
    "\n"
    "(2) Filter [codegen id : 1]\n"
    "Input [1]: [a#1]\n"
    "Condition : (a#1 > Subquery scalar-subquery#5, [id=#9])\n"
    "\n"
    "===== Subqueries =====\n"
    "\n"
    "Subquery:1 Hosting operator id = 2 Hosting Expression = Subquery scalar-subquery#5, [id=#9]\n"
    "* HashAggregate (4)\n"
    "+- Scan parquet default.u (3)\n"
    "\n"
    "\n"
    "(3) Scan parquet default.u\n"
    "Output [1]: [b#2]\n"
    "\n"
    "(4) HashAggregate [codegen id : 1]\n"
                  "Input [1]: [b#2]\n";

START_TEST(the_active_section_is_always_on_screen)
{
    if (skip_test())
        return;
    free(tmx_sh("mkdir -p %s/a/very/long/directory", tmx_dir()));
    tmx_write_file("a/very/long/directory/tpcds-query-64-formatted-explain.txt", subquery_plan);
    static const int sizes[][2] = {{80, 24}, {40, 12}};
    for (size_t i = 0; i < 2; i++) {
        struct tmx x;
        char name[32];
        snprintf(name, sizeof name, "where-%d", sizes[i][0]);
        tmx_start(&x, name, sizes[i][0], sizes[i][1], "",
                  "a/very/long/directory/tpcds-query-64-formatted-explain.txt");
        bool wide = sizes[i][0] >= 60; /* the status line names it too */
        TMX_EXPECT(&x, false, LINE_SHOWS(0, "[Physical]"),
                   SHOWS(wide ? "Physical \xC2\xB7 1/2  ?:help" : "1/2  ?:help"));
        tmx_keys(&x, "Tab");
        TMX_EXPECT(&x, false, LINE_SHOWS(0, "[Subquery:1]"),
                   SHOWS(wide ? "Subquery:1 \xC2\xB7 1/2  ?:help" : "1/2  ?:help"));
        tmx_stop(&x);
    }
}
END_TEST


START_TEST(f_and_F_visit_every_finding_also_several_on_one_node)
{
    if (skip_test())
        return;
    struct tmx x;
    tmx_start(&x, "findings", 160, 30, "", "--sample window-partitioning");
    tmx_wait_for(&x, "Window");
    /* Line 12's Exchange has two findings: [2/3] and [3/3] are both reached. */
    tmx_keys(&x, "f");
    tmx_wait_for(&x, "[1/3] SP001");
    tmx_keys(&x, "f");
    tmx_wait_for(&x, "[2/3] SP001");
    tmx_keys(&x, "f");
    tmx_wait_for(&x, "[3/3] SP002");
    tmx_keys(&x, "F");
    tmx_wait_for(&x, "[2/3] SP001");
    tmx_keys(&x, "f f");
    tmx_wait_for(&x, "[1/3] SP001");
    tmx_stop(&x);
}
END_TEST


START_TEST(enter_on_a_subquery_name_goes_to_its_section)
{
    if (skip_test())
        return;
    free(tmx_sh("mkdir -p %s/a/very/long/directory", tmx_dir()));
    tmx_write_file("a/very/long/directory/tpcds-query-64-formatted-explain.txt", subquery_plan);
    struct tmx x;
    tmx_start(&x, "subquery", 100, 30, "",
              "a/very/long/directory/tpcds-query-64-formatted-explain.txt");
    tmx_wait_for(&x, "Scan parquet default.t (1)");
    tmx_keys(&x, "Enter"); /* the cursor starts on the line naming scalar-subquery#5 */
    tmx_wait_for(&x, "Esc: back to the tree");
    tmx_keys(&x, "Enter");
    TMX_EXPECT(&x, false, LINE_SHOWS(0, "[Subquery:1]"), SHOWS("went to (4)"),
               SHOWS(" HashAggregate (4)"));
    tmx_keys(&x, "BSpace");
    tmx_wait_for(&x, "Physical \xC2\xB7 1/2");
    tmx_stop(&x);
}
END_TEST


/* The column of the pane border on the line holding row (-1: none). */
static int border_column(const char *screen, const char *row)
{
    char *line = pw_line(screen, row);
    int col = 0, found = -1;
    for (const unsigned char *p = (const unsigned char *)line; *p; p++) {
        if ((*p & 0xC0) == 0x80)
            continue;
        if (strncmp((const char *)p, "\xE2\x94\x82", 3) == 0 && col > 10) {
            found = col;
            break;
        }
        col++;
    }
    free(line);
    return found;
}

START_TEST(the_split_follows_the_content_and_the_keys_and_is_kept)
{
    if (skip_test())
        return;
    tmx_write_file("simple.txt", "== Physical Plan ==\n"
                                 "*(1) Project [a#1, b#2]\n"
                                 "+- *(1) Filter (isnotnull(a#1) AND (a#1 > 0))\n"
                                 "   +- FileScan parquet t[a#1,b#2] Batched: true\n");
    struct tmx x;
    tmx_start(&x, "split-simple", 120, 30, "", "simple.txt");
    char *s = TMX_WAIT(&x, false, SHOWS("FileScan parquet t"));
    int simple_col = border_column(s, "FileScan parquet t");
    free(s);
    tmx_stop(&x);
    tmx_start(&x, "split", 120, 30, "", "wide.txt"); /* formatted: longer details */
    s = TMX_WAIT(&x, false, SHOWS("Scan parquet default.wide (1)"));
    int formatted_col = border_column(s, "Scan parquet default.wide (1)");
    free(s);
    ck_assert_msg(simple_col > formatted_col && formatted_col > 0,
                  "tree widths: simple plan %d, formatted plan %d", simple_col, formatted_col);
    tmx_keys(&x, "+");
    tmx_wait_for(&x, "tree 65%, details 35%");
    s = tmx_capture(&x, false);
    ck_assert_int_gt(border_column(s, "Scan parquet default.wide (1)"), formatted_col);
    free(s);
    tmx_wait_for(&x, "(2) Project [codegen id : 1]");
    tmx_keys(&x, "z"); /* the tree takes the screen */
    TMX_EXPECT(&x, false, SHOWS("zoom: one pane"), LACKS("(2) Project [codegen id : 1]"));
    tmx_keys(&x, "z");
    TMX_EXPECT(&x, false, SHOWS("zoom off"), SHOWS("(2) Project [codegen id : 1]"));
    tmx_stop(&x);
    char path[300];
    snprintf(path, sizeof path, "%s/xdg-split/sparkplan/config", tmx_dir());
    size_t len;
    char *text = tu_read_file(path, &len);
    ck_assert_ptr_nonnull(text);
    ck_assert_str_eq(text, "split = 65\n");
    free(text);
}
END_TEST


START_TEST(the_help_has_a_legend_page)
{
    if (skip_test())
        return;
    struct tmx x;
    tmx_start(&x, "legend", 100, 40, "", "wide.txt");
    tmx_wait_for(&x, "Scan parquet default.wide (1)");
    tmx_keys(&x, "?");
    tmx_wait_for(&x, "sparkplan keys (j/k scroll, Tab: legend, q closes)");
    tmx_keys(&x, "Tab");
    TMX_EXPECT(&x, false, SHOWS("Marks and glyphs (Tab: the keys)"),
               SHOWS("\xE2\x96\xB8 [+6]               a folded node hiding 6 nodes"),
               SHOWS("\xE2\x80\xA6" "7                   7 levels hidden at the left"),
               SHOWS("\xE2\x97\x86                    gutter: the node that produces"),
               SHOWS("Colours of this theme"));
    /* One sample per role, in its role's colours: the Exchange red of the dark theme. */
    TMX_EXPECT(&x, true, ROW_SHOWS("a shuffle", "38;5;203m"), ROW_SHOWS("a broadcast", "38;5;75m"));
    tmx_keys(&x, "Tab");
    tmx_wait_for(&x, "move down one row");
    tmx_stop(&x);
}
END_TEST


/* A left-deep chain as Spark prints it (simple mode): 40 levels, a Project above each
 * BroadcastHashJoin, whose right side is a BroadcastExchange of a scan. */
static char *left_deep_chain(int levels)
{
    size_t cap = 1 << 20, len = 0;
    char *t = malloc(cap);
    ck_assert_ptr_nonnull(t);
    len += (size_t)snprintf(t + len, cap - len, "== Physical Plan ==\n");
    /* Segment for the ancestor at depth j: ":  " when it is a join's left child. */
    char prefix[4096] = "";
    size_t plen = 0;
    for (int d = 0; d < levels; d++) {
        bool join = d % 2 == 1, parent_join = d > 0 && (d - 1) % 2 == 1;
        len += (size_t)snprintf(t + len, cap - len, "%s%s", prefix,
                                d == 0 ? "" : parent_join ? ":- " : "+- ");
        if (join)
            len += (size_t)snprintf(t + len, cap - len,
                                    "BroadcastHashJoin [a#%d], [b#%d], Inner, BuildRight\n", d, d);
        else
            len += (size_t)snprintf(t + len, cap - len, "Project [c#%d, a#%d]\n", d, d + 1);
        if (d > 0)
            plen += (size_t)snprintf(prefix + plen, sizeof prefix - plen, "%s",
                                     parent_join ? ":  " : "   ");
    }
    /* The right sides, deepest join first (after its left subtree). */
    for (int d = levels - 1; d >= 1; d--) {
        if (d % 2 == 0)
            continue;
        /* The prefix of a child of the join at depth d: segments for depths 1..d. */
        size_t seg = (size_t)d * 3;
        len += (size_t)snprintf(t + len, cap - len, "%.*s+- BroadcastExchange "
                                "HashedRelationBroadcastMode(List(input[0, int, true]),false)\n",
                                (int)seg, prefix);
        len += (size_t)snprintf(t + len, cap - len, "%.*s   +- FileScan parquet t%d[b#%d]\n",
                                (int)seg, prefix, d, d);
    }
    return t;
}

START_TEST(a_forty_level_chain_shows_every_operator_name_whole)
{
    if (skip_test())
        return;
    char *text = left_deep_chain(41);
    tmx_write_file("chain.txt", text);
    free(text);
    struct tmx x;
    tmx_start(&x, "chain", 120, 40, "", "chain.txt");
    tmx_wait_for(&x, "Project [c#0, a#1]");
    for (int page = 0; page < 4; page++) {
        char *s = TMX_WAIT(&x, false, SHOWS("?:help"));
        for (char *line = s; line && *line;) {
            char *nl = strchr(line, '\n');
            size_t n = nl ? (size_t)(nl - line) : strlen(line);
            char *row = strndup(line, n);
            /* Every operator on screen: its name whole and its first argument. */
            bool tree_row = strstr(row, "\xE2\x96\xBE ") || strstr(row, "\xE2\x94\x80 ");
            bool broadcast = tree_row && strstr(row, "Broad") != NULL;
            bool whole = strstr(row, "BroadcastHashJoin [a#") ||
                         strstr(row, "BroadcastExchange HashedRelation");
            if (broadcast && !whole)
                fprintf(stderr, "%s\n", s); /* the whole screen: too long for a message */
            ck_assert_msg(!broadcast || whole, "page %d: a name is cut: '%s'", page, row);
            if (strstr(row, "\xE2\x94\x80 Proj") || strstr(row, "\xE2\x96\xBE Proj"))
                ck_assert_msg(strstr(row, "Project [c#"), "page %d: cut: '%s'", page, row);
            free(row);
            line = nl ? nl + 1 : NULL;
        }
        /* The guides stay truthful: no row is moved out of its column by a depth hint. */
        if (strstr(s, "(depth "))
            fprintf(stderr, "%s\n", s);
        ck_assert_msg(!strstr(s, "(depth "), "page %d: a row lost its guides", page);
        free(s);
        tmx_keys(&x, "PageDown");
        struct timespec ts = {0, 100000000};
        nanosleep(&ts, NULL);
    }
    tmx_stop(&x);
}
END_TEST


START_TEST(a_match_shows_in_the_tree_row_and_in_the_details)
{
    if (skip_test())
        return;
    struct tmx x;
    tmx_start(&x, "match", 80, 30, "", "--theme dark --sample join-extended");
    tmx_wait_for(&x, "SortMergeJoin");
    tmx_keys(&x, "/ R e a d S c h e m a Enter");
    /* The FileScan's row is scrolled so its match shows, highlighted; so is the details'. */
    char *s = TMX_WAIT(&x, true, SHOWS("\x1b[48;5;220mReadSchema"));
    int rows = 0;
    for (const char *p = s; (p = strstr(p, "\x1b[48;5;220mReadSchema")) != NULL; p++)
        rows++;
    ck_assert_msg(rows >= 2, "the match is highlighted %d time(s), not in the tree row and the "
                             "details", rows);
    free(s);
    tmx_stop(&x);
}
END_TEST


START_TEST(braces_go_to_the_next_and_previous_document)
{
    if (skip_test())
        return;
    tmx_write_file("second.txt", "== Physical Plan ==\n*(1) Project [z#9]\n"
                                 "+- FileScan parquet zz[z#9]\n");
    struct tmx x;
    tmx_start(&x, "docs", 100, 30, "", "wide.txt second.txt");
    tmx_wait_for(&x, "wide.txt [1/2]");
    tmx_keys(&x, "}");
    TMX_EXPECT(&x, false, SHOWS("second.txt [2/2]"), SHOWS("FileScan parquet zz[z#9]"));
    tmx_keys(&x, "}"); /* round the list */
    tmx_wait_for(&x, "wide.txt [1/2]");
    tmx_keys(&x, "{");
    tmx_wait_for(&x, "second.txt [2/2]");
    tmx_stop(&x);
}
END_TEST


START_TEST(t_picks_any_section_of_any_document_filtered_as_typed)
{
    if (skip_test())
        return;
    free(tmx_sh("mkdir -p %s/a/very/long/directory", tmx_dir()));
    tmx_write_file("a/very/long/directory/tpcds-query-64-formatted-explain.txt", subquery_plan);
    struct tmx x;
    tmx_start(&x, "picker", 120, 30, "",
              "wide.txt a/very/long/directory/tpcds-query-64-formatted-explain.txt");
    tmx_wait_for(&x, "wide.txt [1/2]");
    tmx_keys(&x, "t");
    TMX_EXPECT(&x, false, SHOWS("Plans and sections"), SHOWS("3 of 3"),
               SHOWS("2 nodes    0 shuffles  Physical      wide.txt:1"),
               SHOWS("Subquery:1    tpcds-query-64-formatted-explain.txt:"));
    tmx_keys(&x, "s u b"); /* letters filter, they are not keys here */
    TMX_EXPECT(&x, false, SHOWS("filter: sub_   1 of 3"), LACKS("wide.txt:1"));
    tmx_keys(&x, "Enter");
    TMX_EXPECT(&x, false, LINE_SHOWS(0, "[Subquery:1]"), LINE_SHOWS(0, "[2/2]"),
               LACKS("Plans and sections"));
    tmx_stop(&x);
}
END_TEST


START_TEST(search_goes_on_into_other_sections_and_documents)
{
    if (skip_test())
        return;
    tmx_write_file("extended.txt", "== Parsed Logical Plan ==\n"
                                   "'Project ['item]\n"
                                   "+- 'UnresolvedRelation [sales], [], false\n"
                                   "\n"
                                   "== Analyzed Logical Plan ==\n"
                                   "item: int\n"
                                   "Project [item#1]\n"
                                   "+- SubqueryAlias spark_catalog.default.sales\n"
                                   "   +- Relation spark_catalog.default.sales[item#1] parquet\n"
                                   "\n"
                                   "== Optimized Logical Plan ==\n"
                                   "Relation spark_catalog.default.sales[item#1] parquet\n"
                                   "\n"
                                   "== Physical Plan ==\n"
                                   "*(1) ColumnarToRow\n"
                                   "+- FileScan parquet spark_catalog.default.sales[item#1]\n");
    struct tmx x;
    tmx_start(&x, "searchall", 120, 30, "", "wide.txt extended.txt");
    tmx_wait_for(&x, "wide.txt [1/2]");
    /* Only in the second document's Analyzed plan. */
    tmx_keys(&x, "/ S u b q u e r y A l i a s Enter");
    TMX_EXPECT(&x, false, SHOWS("extended.txt [2/2]"), SHOWS("[1/1 \xC2\xB7 Analyzed]"),
               SHOWS("1 match in Analyzed of extended.txt"), LINE_SHOWS(0, "[Analyzed]"));
    tmx_keys(&x, "N"); /* back through the others: none has one, so it stays */
    tmx_wait_for(&x, "[1/1 \xC2\xB7 Analyzed]");
    /* In two sections of one document: n goes on from the last match to the next section. */
    tmx_keys(&x, "/ R e l a t i o n Enter");
    tmx_wait_for(&x, "\xC2\xB7 Analyzed]");
    tmx_keys(&x, "n");
    TMX_EXPECT(&x, false, SHOWS("\xC2\xB7 Optimized]"), LINE_SHOWS(0, "[Optimized]"));
    tmx_stop(&x);
}
END_TEST


START_TEST(the_picker_says_where_a_plan_comes_from)
{
    if (skip_test())
        return;
    tmx_write_file("golden.sql.out", "-- !query\nEXPLAIN SELECT a\n  FROM t\n"
                                     "-- !query schema\nstruct<plan:string>\n"
                                     "-- !query output\n== Physical Plan ==\n"
                                     "*(1) Project [a#1]\n+- FileScan parquet t[a#1]\n");
    struct tmx x;
    tmx_start(&x, "provenance", 160, 30, "", "golden.sql.out");
    tmx_wait_for(&x, "FileScan parquet t[a#1]");
    tmx_keys(&x, "t");
    tmx_wait_for(&x, "golden.sql.out:7 query: EXPLAIN SELECT a FROM t");
    tmx_stop(&x);
}
END_TEST

Suite *explore_suite(void)
{
    Suite *s = suite_create("explore");
    TCase *tc = tcase_create("tmux");
    tcase_add_unchecked_fixture(tc, suite_setup, suite_teardown);
    tcase_set_timeout(tc, 240);
    tcase_add_test(tc, details_wrap_between_names_and_align_under_the_value);
    tcase_add_test(tc, y_and_Y_copy_by_osc52_and_pipe_shows_in_the_pager);
    tcase_add_test(tc, a_paste_typed_as_keys_opens_whole_and_runs_no_command);
    tcase_add_test(tc, a_stage_without_a_number_shows_as_a_star_and_each_run_is_its_own);
    tcase_add_test(tc, the_walk_names_job_and_codegen_stages_and_logical_plans_do_not_run);
    tcase_add_test(tc, home_and_end_work_in_both_escape_forms);
    tcase_add_test(tc, standard_input_on_a_terminal_says_what_it_waits_for);
    tcase_add_test(tc, explain_node_ignores_case_and_suggests_close_names);
    tcase_add_test(tc, the_active_section_is_always_on_screen);
    tcase_add_test(tc, f_and_F_visit_every_finding_also_several_on_one_node);
    tcase_add_test(tc, enter_on_a_subquery_name_goes_to_its_section);
    tcase_add_test(tc, the_split_follows_the_content_and_the_keys_and_is_kept);
    tcase_add_test(tc, the_help_has_a_legend_page);
    tcase_add_test(tc, a_forty_level_chain_shows_every_operator_name_whole);
    tcase_add_test(tc, a_match_shows_in_the_tree_row_and_in_the_details);
    tcase_add_test(tc, braces_go_to_the_next_and_previous_document);
    tcase_add_test(tc, t_picks_any_section_of_any_document_filtered_as_typed);
    tcase_add_test(tc, search_goes_on_into_other_sections_and_documents);
    tcase_add_test(tc, the_picker_says_where_a_plan_comes_from);
    suite_add_tcase(s, tc);
    return s;
}
