/* End-to-end: the explorer in a real terminal (tmux), asserting what a person sees —
 * the tree after folds, colours of Exchange lines and stage tints, jumps and details,
 * search counters, sections, resizing, pastes, and the terminal left as it was.
 *
 * Each test runs the binary as the only program of a private tmux server (its own socket
 * in a per-run directory, no user configuration, remain-on-exit so the last screen and
 * the exit status can be read).  Each test ends its program as a signal would (SIGTERM:
 * the explorer leaves as on q) and fails unless it exits with status 143 and without a
 * sanitizer report: in the sanitizer pass the binary is built with ASan + UBSan, and an
 * error or memory left allocated at exit is written to a file of the run directory.  The
 * suite's unchecked teardown kills every server, also after a failed test.  Skipped with a
 * message when tmux is missing.
 */
#include <check.h>
#include <dirent.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "pollwait.h"
#include "testutil.h"
#include "tmuxterm.h"

/* ---- the plans ---------------------------------------------------------------------- */

/* A formatted-mode plan as Spark prints it (modelled on TPC-DS q1): codegen stages 1
 * and 2, a shuffle, a broadcast, a ReusedExchange of the subquery's broadcast. */
static const char plan_formatted[] =
    "== Physical Plan ==\n"
    "* Project (11)\n"
    "+- * BroadcastHashJoin Inner BuildRight (10)\n"
    "   :- * HashAggregate (7)\n"
    "   :  +- Exchange (6)\n"
    "   :     +- * HashAggregate (5)\n"
    "   :        +- * BroadcastHashJoin Inner BuildRight (4)\n"
    "   :           :- * Filter (2)\n"
    "   :           :  +- Scan parquet default.sales (1)\n"
    "   :           +- ReusedExchange (3)\n"
    "   +- BroadcastExchange (9)\n"
    "      +- Scan parquet default.items (8)\n"
    "\n\n"
    "(1) Scan parquet default.sales\n"
    "Output [3]: [item#1, amount#2, day#3]\n"
    "Batched: true\n"
    "Location: InMemoryFileIndex [file:/data/sales]\n"
    "PartitionFilters: [isnotnull(day#3), dynamicpruningexpression(day#3 IN dynamicpruning#4)]\n"
    "ReadSchema: struct<item:int,amount:decimal(7,2)>\n"
    "\n"
    "(2) Filter [codegen id : 1]\n"
    "Input [3]: [item#1, amount#2, day#3]\n"
    "Condition : isnotnull(item#1)\n"
    "\n"
    "(3) ReusedExchange [Reuses operator id: 14]\n"
    "Output [1]: [day#5]\n"
    "\n"
    "(4) BroadcastHashJoin [codegen id : 1]\n"
    "Left keys [1]: [day#3]\n"
    "Right keys [1]: [day#5]\n"
    "Join type: Inner\n"
    "Join condition: None\n"
    "\n"
    "(5) HashAggregate [codegen id : 1]\n"
    "Input [2]: [item#1, amount#2]\n"
    "Keys [1]: [item#1]\n"
    "Functions [1]: [partial_sum(amount#2)]\n"
    "Aggregate Attributes [1]: [sum#6]\n"
    "Results [2]: [item#1, sum#7]\n"
    "\n"
    "(6) Exchange\n"
    "Input [2]: [item#1, sum#7]\n"
    "Arguments: hashpartitioning(item#1, 200), ENSURE_REQUIREMENTS, [plan_id=1]\n"
    "\n"
    "(7) HashAggregate [codegen id : 2]\n"
    "Input [2]: [item#1, sum#7]\n"
    "Keys [1]: [item#1]\n"
    "Functions [1]: [sum(amount#2)]\n"
    "Aggregate Attributes [1]: [sum(amount#2)#8]\n"
    "Results [2]: [item#1, sum(amount#2)#8 AS total#9]\n"
    "\n"
    "(8) Scan parquet default.items\n"
    "Output [2]: [item#10, name#11]\n"
    "Batched: true\n"
    "Location: InMemoryFileIndex [file:/data/items]\n"
    "ReadSchema: struct<item:int,name:string>\n"
    "\n"
    "(9) BroadcastExchange\n"
    "Input [2]: [item#10, name#11]\n"
    "Arguments: HashedRelationBroadcastMode(List(cast(input[0, int, false] as bigint)),false), "
    "[plan_id=2]\n"
    "\n"
    "(10) BroadcastHashJoin [codegen id : 2]\n"
    "Left keys [1]: [item#1]\n"
    "Right keys [1]: [item#10]\n"
    "Join type: Inner\n"
    "Join condition: None\n"
    "\n"
    "(11) Project [codegen id : 2]\n"
    "Output [2]: [name#11, total#9]\n"
    "Input [4]: [item#1, total#9, item#10, name#11]\n"
    "\n"
    "===== Subqueries =====\n"
    "\n"
    "Subquery:1 Hosting operator id = 1 Hosting Expression = day#3 IN dynamicpruning#4\n"
    "BroadcastExchange (14)\n"
    "+- * Filter (13)\n"
    "   +- Scan parquet default.dates (12)\n"
    "\n\n"
    "(12) Scan parquet default.dates\n"
    "Output [2]: [day#5, year#12]\n"
    "Batched: true\n"
    "Location: InMemoryFileIndex [file:/data/dates]\n"
    "PushedFilters: [IsNotNull(year), EqualTo(year,2024)]\n"
    "ReadSchema: struct<day:int,year:int>\n"
    "\n"
    "(13) Filter [codegen id : 1]\n"
    "Input [2]: [day#5, year#12]\n"
    "Condition : ((isnotnull(year#12) AND (year#12 = 2024)) AND isnotnull(day#5))\n"
    "\n"
    "(14) BroadcastExchange\n"
    "Input [1]: [day#5]\n"
    "Arguments: HashedRelationBroadcastMode(List(cast(input[0, int, true] as bigint)),false), "
    "[plan_id=3]\n";

/* Extended mode: four sections. */
static const char plan_extended[] =
    "== Parsed Logical Plan ==\n"
    "'Project ['item]\n"
    "+- 'UnresolvedRelation [sales], [], false\n"
    "\n"
    "== Analyzed Logical Plan ==\n"
    "item: int\n"
    "Project [item#1]\n"
    "+- SubqueryAlias spark_catalog.default.sales\n"
    "   +- Relation spark_catalog.default.sales[item#1,amount#2] parquet\n"
    "\n"
    "== Optimized Logical Plan ==\n"
    "Project [item#1]\n"
    "+- Relation spark_catalog.default.sales[item#1,amount#2] parquet\n"
    "\n"
    "== Physical Plan ==\n"
    "*(1) Project [item#1]\n"
    "+- *(1) ColumnarToRow\n"
    "   +- FileScan parquet spark_catalog.default.sales[item#1] Batched: true, DataFilters: [], "
    "Format: Parquet, Location: InMemoryFileIndex(1 paths)[file:/data/sales], PartitionFilters: "
    "[], PushedFilters: [], ReadSchema: struct<item:int>\n";

/* A plan carrying terminal escape sequences in its text. */
static const char plan_hostile[] =
    "== Physical Plan ==\n"
    "*(1) Project [a#1]\n"
    "+- *(1) Filter (a#1 = \x1b[31mEVIL\x1b[0m\x07)\n"
    "   +- FileScan parquet t[a#1] Location: x[file:/x\x1b]0;owned\x07]\n";

/* ---- helpers ------------------------------------------------------------------------ */

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* Any SGR colour other than the defaults (39, 49): 30-38, 40-48, 90-107. */
static bool has_colour_code(const char *s)
{
    for (const char *p = s; (p = strstr(p, "\x1b[")) != NULL; p++) {
        const char *q = p + 2;
        while (*q && *q != 'm') { /* one SGR sequence: numbers separated by ; */
            long v = strtol(q, (char **)&q, 10);
            if ((v >= 30 && v <= 38) || (v >= 40 && v <= 48) || (v >= 90 && v <= 107))
                return true;
            if (*q == ';')
                q++;
            else if (*q != 'm')
                break;
        }
    }
    return false;
}

/* A made-up notebook: two code cells whose outputs are plans, the second shortened. */
static const char notebook_elided[] =
    "{\n \"cells\": [\n"
    "  {\n   \"cell_type\": \"code\",\n   \"execution_count\": 1,\n"
    "   \"outputs\": [\n    {\n     \"output_type\": \"stream\",\n     \"text\": [\n"
    "      \"== Physical Plan ==\\n\",\n      \"LocalTableScan [a#1]\\n\"\n     ]\n    }\n   ],\n"
    "   \"source\": [\"small.explain()\"]\n  },\n"
    "  {\n   \"cell_type\": \"code\",\n   \"execution_count\": 7,\n"
    "   \"outputs\": [\n    {\n     \"output_type\": \"stream\",\n     \"text\": [\n"
    "      \"== Physical Plan ==\\n\",\n"
    "      \"*(2) HashAggregate(keys=[k#1], functions=[count(1)])\\n\",\n"
    "      \"+- ...\\n\",\n"
    "      \"   +- Exchange hashpartitioning(k#1, 200), ENSURE_REQUIREMENTS, [plan_id=5]\\n\",\n"
    "      \"      +- *(1) Scan parquet default.t[k#1]\\n\"\n     ]\n    }\n   ],\n"
    "   \"source\": [\"big.explain()\"]\n  }\n ],\n \"nbformat\": 4\n}\n";

static bool skip_test(void)
{
    return !tmx_ready();
}

/* ---- fixtures ----------------------------------------------------------------------- */

static void suite_setup(void)
{
    if (!tmx_setup("e2e"))
        return;
    tmx_write_file("formatted.txt", plan_formatted);
    tmx_write_file("extended.txt", plan_extended);
    tmx_write_file("hostile.txt", plan_hostile);
    tmx_write_file("elided.ipynb", notebook_elided);
}

/* Runs in the parent once the tests are done, failed or not: no tmux server outlives the
 * run (each test also stops its own when it passes). */
static void suite_teardown(void)
{
    tmx_teardown();
}

/* ---- the tests ---------------------------------------------------------------------- */

START_TEST(tree_folds_and_unfolds)
{
    if (skip_test())
        return;
    struct tmx x;
    tmx_start(&x, "fold", 100, 30, "", "formatted.txt");
    tmx_wait_for(&x, "Exchange (6)");
    tmx_keys(&x, "j j"); /* HashAggregate (7) */
    tmx_wait_for(&x, " HashAggregate (7)  stage *(2)");
    tmx_keys(&x, "Space"); /* the folded subtree goes, the rest stays */
    TMX_EXPECT(&x, false, SHOWS("[+6] HashAggregate (7)"), SHOWS("BroadcastExchange (9)"),
               LACKS("Exchange (6)"));
    tmx_keys(&x, "l"); /* unfolds */
    TMX_EXPECT(&x, false, SHOWS("Exchange (6)"), LACKS("[+6]"));
    tmx_keys(&x, "C");
    TMX_EXPECT(&x, false, SHOWS("[+10] Project (11)"), LACKS("BroadcastHashJoin Inner"));
    tmx_keys(&x, "2");
    TMX_EXPECT(&x, false, SHOWS("[+9] BroadcastHashJoin Inner BuildRight (10)"),
               LACKS("Exchange (6)"));
    tmx_keys(&x, "E");
    TMX_EXPECT(&x, false, SHOWS("Scan parquet default.items (8)"), SHOWS("Exchange (6)"),
               LACKS("[+"));
    tmx_stop(&x);
}
END_TEST

START_TEST(exchange_lines_have_their_colours)
{
    if (skip_test())
        return;
    struct tmx x;
    tmx_start(&x, "colour", 100, 30, "", "formatted.txt");
    /* Exchange bold 203-red, broadcast 75, reused 110; a Project is none of them. */
    TMX_EXPECT(&x, true, SHOWS("\x1b[1m\x1b[38;5;203mExchange (6)"),
               ROW_SHOWS("BroadcastExchange (9)", "38;5;75m"),
               ROW_SHOWS("ReusedExchange (3)", "38;5;110m"),
               ROW_LACKS("Project (11)", "38;5;203"), ROW_LACKS("Project (11)", "38;5;75m"));
    tmx_stop(&x);
}
END_TEST

/* A plan of a million operators numbers its codegen stages past 999: the gutter's three
 * columns show the last two digits after an ellipsis (stage 317928 once read as "3179"),
 * small ids stay whole, and the status line names the selected node's whole stage. */
START_TEST(stage_ids_past_999_are_cut_visibly_in_the_gutter)
{
    if (skip_test())
        return;
    tmx_write_file("stages.txt", "== Physical Plan ==\n"
                                 "*(317928) Project [a#1]\n"
                                 "+- *(317928) Filter (a#1 > 1)\n"
                                 "   +- Exchange hashpartitioning(a#1, 200)\n"
                                 "      +- *(7) Project [a#1]\n"
                                 "         +- *(7) ColumnarToRow\n"
                                 "            +- FileScan parquet t[a#1]\n");
    struct tmx x;
    tmx_start(&x, "stages", 100, 20, "", "stages.txt");
    char *s = TMX_WAIT(&x, false, SHOWS("FileScan parquet t"), SHOWS("stage *(317928)"),
                       ROW_SHOWS("Filter (a#1 > 1)", "\xE2\x80\xA6" "28"),
                       ROW_SHOWS("ColumnarToRow", "  7"), ROW_LACKS("Filter (a#1 > 1)", "3179"));
    free(s);
    tmx_stop(&x);
}
END_TEST

START_TEST(no_color_uses_attributes)
{
    if (skip_test())
        return;
    struct tmx x;
    tmx_start(&x, "mono", 100, 30, "NO_COLOR=1", "formatted.txt");
    char *s = TMX_WAIT(&x, true, SHOWS("Exchange (6)"), SHOWS("?:help"), LACKS("38;5;"),
                       LACKS("48;5;"), ROW_SHOWS("Exchange (6)", "\x1b[1m"));
    /* tmux writes bold+underline as 1;4 or 4;1 */
    char *broadcast = pw_line(s, "BroadcastExchange (9)");
    ck_assert_msg(strstr(broadcast, "\x1b[1;4m") || strstr(broadcast, "\x1b[4;1m"),
                  "BroadcastExchange not bold+underlined: %s", broadcast);
    free(broadcast), free(s);
    tmx_stop(&x);
}
END_TEST

START_TEST(stage_tints_and_highlight)
{
    if (skip_test())
        return;
    struct tmx x;
    tmx_start(&x, "stages", 100, 30, "", "formatted.txt");
    /* Gutter: stage 1 on tint 58, stage 2 on tint 89, the number in the tint.  The
     * selection (Project, stage 2) lights up stage 2's rows, not stage 1's. */
    TMX_EXPECT(&x, true, ROW_SHOWS("Filter (2)", "48;5;58m  1"),
               ROW_SHOWS("HashAggregate (7)", "48;5;89m  2"),
               ROW_SHOWS("HashAggregate (7)", "48;5;235m"),
               ROW_LACKS("Filter (2)", "48;5;235m"),
               ROW_LACKS("Scan parquet default.sales (1)", "48;5;235m"));
    tmx_keys(&x, "s");
    TMX_EXPECT(&x, true, SHOWS("highlight off"), LACKS("48;5;235m"));
    tmx_stop(&x);
}
END_TEST

START_TEST(goto_id_shows_details_and_follows_references)
{
    if (skip_test())
        return;
    struct tmx x;
    tmx_start(&x, "goto", 100, 30, "", "formatted.txt");
    tmx_wait_for(&x, "Exchange (6)");
    tmx_keys(&x, "C : 3 Enter");
    TMX_EXPECT(&x, false, SHOWS(" ReusedExchange (3)  went to (3)"),
               SHOWS("(3) ReusedExchange [Reuses operator id: 14]"),
               SHOWS("Output [1]: [day#5]"));
    tmx_keys(&x, "Enter"); /* focus the details: the cursor starts on the reference */
    tmx_wait_for(&x, "Esc: back to the tree");
    tmx_keys(&x, "Enter");
    TMX_EXPECT(&x, false, SHOWS(" BroadcastExchange (14)  went to (14)"), SHOWS("[Subquery:1]"),
               SHOWS("Subquery:1 Hosting operator id = 1"));
    tmx_keys(&x, "BSpace");
    TMX_EXPECT(&x, false, SHOWS("[Physical]"), SHOWS(" ReusedExchange (3)  "),
               LACKS("went to (14)"));
    tmx_keys(&x, ": 9 9 Enter");
    tmx_wait_for(&x, "no node (99) in this plan");
    tmx_stop(&x);
}
END_TEST

/* The details name the node once (QA #4): the formatted header line as the heading, no
 * tree line or section header repeating it, and a long source path broken at a '/'. */
START_TEST(details_name_the_node_once_and_wrap_paths_whole)
{
    if (skip_test())
        return;
    struct tmx x;
    char args[256];
    snprintf(args, sizeof args, "%s/formatted.txt", tmx_dir()); /* the Source line: a path */
    tmx_start(&x, "details", 44, 30, "", args);
    tmx_wait_for(&x, "Exchange (6)");
    tmx_keys(&x, "j"); /* (10) BroadcastHashJoin, stage 2 */
    /* One heading: the header's id, name and stage with what the tree line adds. */
    char *s = TMX_WAIT(&x, false, SHOWS(" BroadcastHashJoin (10)  stage"),
                       SHOWS(" (10) BroadcastHashJoin Inner BuildRight\n   [codegen id : 2]"),
                       SHOWS("Left keys [1]:"));
    const char *pane = strstr(s, "Details (Enter)");
    ck_assert_ptr_nonnull(pane);
    pane = strchr(pane, '\n');
    ck_assert_msg(strstr(pane, "BroadcastHashJoin Inner BuildRight (10)") == NULL,
                  "the tree line repeated in the details:\n%s", s);
    ck_assert_msg(strstr(pane, "(10) BroadcastHashJoin [codegen") == NULL &&
                      strstr(pane, "\n (10) BroadcastHashJoin\n") == NULL &&
                      strstr(pane, "\n Details\n") == NULL,
                  "a second title in the details:\n%s", s);
    free(s);
    tmx_keys(&x, "Enter G"); /* the last lines: where the node comes from */
    s = TMX_WAIT(&x, false, SHOWS("Esc: back to the tree"),
                 SHOWS("Input line: 3 (details at line 63)"), SHOWS(" Source: /tmp/"));
    char *src = pw_line(s, " Source: /tmp/");
    size_t len = strlen(src);
    while (len && src[len - 1] == ' ')
        len--;
    ck_assert_msg(len && src[len - 1] == '/', "path not broken at a '/': '%s'", src);
    /* The continuation under the value: " Source: " is 9 columns. */
    ck_assert_msg(strstr(s, "\n         formatted.txt") != NULL, "file name not whole, aligned:\n%s",
                  s);
    free(src), free(s);
    tmx_stop(&x);
}
END_TEST

/* Screen line as code points, one per column (the tree's characters are all narrow). */
static size_t columns(const char *line, unsigned *cp, size_t cap)
{
    size_t n = 0;
    const unsigned char *p = (const unsigned char *)line;
    while (*p && n < cap) {
        unsigned c = *p;
        int extra = c < 0x80 ? 0 : c < 0xE0 ? 1 : c < 0xF0 ? 2 : 3;
        c &= extra == 0 ? 0x7F : extra == 1 ? 0x1F : extra == 2 ? 0x0F : 0x07;
        p++;
        for (int k = 0; k < extra && (*p & 0xC0) == 0x80; k++)
            c = (c << 6) | (*p++ & 0x3F);
        cp[n++] = c;
    }
    return n;
}

/* At 40x12 on TPC-DS q31 (QA #5): no compression at depth 9; deeper screens hide the same
 * levels on every row, so each guide going down meets one on the next row; the finding
 * mark of Exchange (89) is in the gutter on the first screen. */
START_TEST(narrow_terminal_keeps_deep_guides_in_line)
{
    if (skip_test())
        return;
    const char *corpus = tu_corpus_dir();
    if (!corpus)
        return;
    char rel[1024], path[PATH_MAX];
    snprintf(rel, sizeof rel, "%s/spark-tpcds-v1_4/q31.explain.txt", corpus);
    if (!realpath(rel, path)) { /* the explorer runs in the run directory */
        fprintf(stderr, "SKIP: %s missing; narrow terminal test skipped\n", rel);
        return;
    }
    struct tmx x;
    tmx_start(&x, "narrow", 40, 12, "", path);
    /* The gutter marks arrive with the analysis, right after the first frame. */
    char *s =
        TMX_WAIT(&x, false, SHOWS("Sort (90)"), SHOWS("1/90"),
                 /* one column a level: 40 columns cannot give the names room with two */
                 ROW_SHOWS("Project (44)", "\xE2\x94\x82\xE2\x94\x9C\xE2\x96\xBE"), /* │├▾ */
                 ROW_SHOWS("Exchange (89)", "   i"));
    char *ex = pw_line(s, "Exchange (89)");
    ck_assert_msg(strncmp(ex, "   i", 4) == 0, "no finding mark in the gutter: '%s'", ex);
    ck_assert_msg(strstr(s, "depth") == NULL && strstr(s, " \xE2\x80\xA6") == NULL,
                  "compressed at depth 9 already:\n%s", s);
    free(ex), free(s);
    for (int page = 0; page < 6; page++) {
        tmx_keys(&x, "C-d");
        char want[32];
        snprintf(want, sizeof want, "%d/90  ?:help", 4 * (page + 1) + 1); /* half of 9 rows */
        s = TMX_WAIT(&x, false, SHOWS(want));
        unsigned cp[12][80];
        size_t n[12];
        for (int i = 2; i < 11; i++) {
            char *line = pw_line_no(s, i);
            n[i] = columns(line, cp[i], 80);
            free(line);
        }
        for (int i = 2; i + 1 < 11; i++) {
            /* Both rows past the gutter (4 columns) start with the same hint. */
            size_t h = 4;
            while (h < n[i] && cp[i][h] != 0x2502 && cp[i][h] != 0x251C && cp[i][h] != 0x2514 &&
                   cp[i][h] != 0x25BE && cp[i][h] != 0x25B8 && cp[i][h] != 0x2500)
                h++;
            for (size_t c = 4; c < h; c++)
                ck_assert_msg(cp[i][c] == cp[i + 1][c] && cp[i][c] != '(',
                              "page %d: rows %d-%d differ in the hint:\n%s", page, i, i + 1, s);
            for (size_t c = h; c < n[i]; c++) {
                bool down = cp[i][c] == 0x2502 || cp[i][c] == 0x251C; /* │ ├ */
                /* a glyph ▾ hangs its children below it too */
                if (!down || c >= n[i + 1])
                    continue;
                unsigned b = cp[i + 1][c];
                ck_assert_msg(b == 0x2502 || b == 0x251C || b == 0x2514,
                              "page %d: the guide at column %zu of row %d stops:\n%s", page, c, i, s);
            }
        }
        free(s);
    }
    tmx_stop(&x);
}
END_TEST

/* Between the frame's sides of the line holding needle, after needle's row text, only
 * blanks: the overlay clears its box (QA #10). */
static void assert_boxed_row(const char *screen, const char *needle)
{
    char *line = pw_line(screen, needle);
    const char *left = strstr(line, "\xE2\x94\x82");         /* │ */
    const char *at = strstr(line, needle);
    ck_assert_msg(left && at && left < at, "no frame left of '%s': '%s'", needle, line);
    const char *p = at + strlen(needle);
    while (*p == ' ')
        p++;
    ck_assert_msg(strncmp(p, "\xE2\x94\x82", 3) == 0, "not blank up to the frame: '%s'", line);
    free(line);
}

START_TEST(overlays_are_framed_boxes_with_their_own_background)
{
    if (skip_test())
        return;
    struct tmx x;
    tmx_start(&x, "boxes", 100, 24, "", "formatted.txt extended.txt hostile.txt");
    tmx_wait_for(&x, "Exchange (6)");
    tmx_keys(&x, "D");
    char *s = TMX_WAIT(
        &x, false,
        SHOWS("\xE2\x94\x8C\xE2\x94\x80 Documents (Enter opens, q closes) \xE2\x94\x80"),
        SHOWS("hostile.txt   1 plan, 3 nodes"), SHOWS("\xE2\x94\x94\xE2\x94\x80"));
    assert_boxed_row(s, "*1  formatted.txt   1 plan, 14 nodes");
    assert_boxed_row(s, " 2  extended.txt   1 plan, 10 nodes");
    free(s);
    tmx_keys(&x, "q !");
    s = TMX_WAIT(&x, false, SHOWS("Findings: "), LACKS("Documents"));
    char *title = pw_line(s, "Findings: ");
    ck_assert_msg(strstr(title, "\xE2\x94\x8C\xE2\x94\x80 Findings: ") != NULL, "no frame: %s", title);
    assert_boxed_row(s, "SP001 shuffle by hash of item#1; needed by HashAggregate on line 4");
    free(title), free(s);
    tmx_stop(&x);
}
END_TEST

/* At 40 columns the help keeps its title and its descriptions whole, under the keys. */
START_TEST(help_fits_a_narrow_terminal)
{
    if (skip_test())
        return;
    struct tmx x;
    tmx_start(&x, "narrowhelp", 40, 12, "", "formatted.txt");
    tmx_wait_for(&x, "Exchange (6)");
    tmx_keys(&x, "?");
    char *s = TMX_WAIT(&x, false, SHOWS(" keys (j/k scroll, q closes) "),
                       SHOWS("move down one row"), SHOWS("move down one page"));
    ck_assert_msg(strstr(s, "\xE2\x80\xA6") == NULL, "something is cut:\n%s", s);
    free(s);
    tmx_keys(&x, "Space Space"); /* two pages down: a description on two lines */
    s = TMX_WAIT(&x, false, SHOWS("   h, Left   "), SHOWS("fold the selected node, or go  "),
                 SHOWS("     to its parent  "));
    ck_assert_msg(strstr(s, "\xE2\x80\xA6") == NULL, "something is cut:\n%s", s);
    free(s);
    tmx_stop(&x);
}
END_TEST

START_TEST(search_counts_matches)
{
    if (skip_test())
        return;
    struct tmx x;
    tmx_start(&x, "search", 100, 30, "", "formatted.txt");
    tmx_wait_for(&x, "Exchange (6)");
    tmx_keys(&x, "C / s c a n Enter");
    /* The status line names the operator as Spark does: "Scan parquet" (QA #9). */
    TMX_EXPECT(&x, false, SHOWS("[1/2 \xC2\xB7 Physical]"), SHOWS(" Scan parquet (1)  "),
               SHOWS("Scan parquet default.sales (1)"));
    tmx_keys(&x, "n");
    TMX_EXPECT(&x, false, SHOWS("[2/2 \xC2\xB7 Physical]"), SHOWS(" Scan parquet (8)  "));
    tmx_keys(&x, "n"); /* past the last: on into the next section with a match */
    TMX_EXPECT(&x, false, SHOWS("[1/1 \xC2\xB7 Subquery:1]"), SHOWS("1 match in Subquery:1"));
    tmx_keys(&x, "N"); /* and back */
    tmx_wait_for(&x, "[2/2 \xC2\xB7 Physical]");
    tmx_keys(&x, "N");
    tmx_wait_for(&x, "[1/2 \xC2\xB7 Physical]");
    /* Details are searched too: only (1)'s block names file:/data/sales. */
    tmx_keys(&x, "/ f i l e : / d a t a / s a l e s Enter");
    tmx_wait_for(&x, "[1/1 \xC2\xB7 Physical]");
    tmx_keys(&x, "/ n o t h e r e Enter");
    tmx_wait_for(&x, "not found in this section: nothere");
    tmx_stop(&x);
}
END_TEST

START_TEST(tab_switches_sections)
{
    if (skip_test())
        return;
    struct tmx x;
    tmx_start(&x, "sections", 100, 30, "", "extended.txt");
    TMX_EXPECT(&x, false, SHOWS("[Physical]"), SHOWS(" Parsed "), SHOWS(" Analyzed "),
               SHOWS(" Optimized "), SHOWS("ColumnarToRow"));
    tmx_keys(&x, "Tab");
    TMX_EXPECT(&x, false, SHOWS("[Parsed]"), SHOWS("'UnresolvedRelation [sales]"));
    tmx_keys(&x, "Tab");
    TMX_EXPECT(&x, false, SHOWS("[Analyzed]"),
               SHOWS("SubqueryAlias spark_catalog.default.sales"));
    tmx_keys(&x, "BTab BTab");
    TMX_EXPECT(&x, false, SHOWS("[Physical]"), SHOWS("ColumnarToRow"));
    tmx_stop(&x);
}
END_TEST

/* A plan of 120 subqueries has 121 tabs: the header shows the active one whatever its place
 * (from the first of them, "‹" saying some are left of the screen) and is cut at its end. */
START_TEST(many_tabs_keep_the_active_one_in_the_header)
{
    if (skip_test())
        return;
    const unsigned n = 120;
    size_t cap = 256 + (size_t)n * 256, len = 0;
    char *text = malloc(cap);
    ck_assert_ptr_nonnull(text);
    len += (size_t)sprintf(text + len, "== Physical Plan ==\n* Project (1)\n\n"
                                       "(1) Project [codegen id : 1]\nOutput [1]: [a#1]\n\n"
                                       "===== Subqueries =====\n\n");
    for (unsigned i = 1; i <= n; i++)
        len += (size_t)sprintf(text + len,
                               "Subquery:%u Hosting operator id = 1 Hosting Expression = "
                               "Subquery scalar-subquery#%u, [id=#%u]\n* Project (%u)\n\n"
                               "(%u) Project [codegen id : 1]\nOutput [1]: [b#%u]\n\n",
                               i, i + 1, i + 1, i + 1, i + 1, i + 1);
    tmx_write_file("tabs.txt", text);
    free(text);
    struct tmx x;
    tmx_start(&x, "tabs", 100, 24, "", "tabs.txt");
    TMX_EXPECT(&x, false, SHOWS("[Physical]"), SHOWS(" Subquery:1 "), LACKS("Subquery:120"),
               LACKS("\xE2\x80\xB9"));
    tmx_keys(&x, "BTab");
    TMX_EXPECT(&x, false, SHOWS("[Subquery:120]"), SHOWS("\xE2\x80\xB9 "),
               LACKS("[Physical]"));
    tmx_keys(&x, "Tab");
    TMX_EXPECT(&x, false, SHOWS("[Physical]"), LACKS("\xE2\x80\xB9"));
    tmx_stop(&x);
}
END_TEST

START_TEST(resize_relayouts_down_to_tiny)
{
    if (skip_test())
        return;
    struct tmx x;
    tmx_start(&x, "resize", 130, 30, "", "formatted.txt");
    /* Wide: the details sit beside the tree, on the same line. */
    TMX_EXPECT(&x, false, SHOWS("Exchange (6)"), ROW_SHOWS("Project (11)", "\xE2\x94\x82"));
    free(tmx_sh("tmux -S %s resize-window -x 70 -y 20", x.sock));
    tmx_wait_for(&x, "Details (Enter)"); /* narrow: below, under a rule */
    free(tmx_sh("tmux -S %s resize-window -x 20 -y 5", x.sock));
    /* 20x5 stays usable: the status line is redrawn at the new width. */
    TMX_EXPECT(&x, false, SHOWS("Project"), SHOWS("1/11  ?:help"), LACKS("too small"));
    tmx_keys(&x, "j");
    tmx_wait_for(&x, "2/11");
    free(tmx_sh("tmux -S %s resize-window -x 19 -y 5", x.sock));
    tmx_wait_for(&x, "terminal too small");
    free(tmx_sh("tmux -S %s resize-window -x 10 -y 3", x.sock));
    TMX_EXPECT(&x, false, SHOWS("too small"), LACKS("terminal")); /* the short notice, whole */
    free(tmx_sh("tmux -S %s resize-window -x 1 -y 1", x.sock));
    sleep_ms(200);
    free(tmx_sh("tmux -S %s resize-window -x 80 -y 24", x.sock));
    TMX_EXPECT(&x, false, SHOWS("Exchange (6)"), LACKS("too small"));
    tmx_wait_format(&x, "#{pane_dead}", "0");
    tmx_stop(&x);
}
END_TEST

START_TEST(quit_restores_the_terminal)
{
    if (skip_test())
        return;
    struct tmx x;
    tmx_start_cmd(&x, "quit", 100, 30, "", "formatted.txt", true);
    tmx_wait_for(&x, "Exchange (6)");
    tmx_wait_format(&x, "#{alternate_on} #{mouse_sgr_flag} #{mouse_standard_flag}", "1 1 1");
    tmx_keys(&x, "?");
    tmx_wait_for(&x, "sparkplan keys");
    tmx_keys(&x, "q"); /* q closes the overlay first */
    TMX_EXPECT(&x, false, LACKS("sparkplan keys"), SHOWS("Exchange (6)"));
    tmx_keys(&x, "q");
    tmx_wait_for(&x, "EXIT=0");
    tmx_wait_format(&x,
                    "#{alternate_on} #{mouse_sgr_flag} #{mouse_standard_flag} "
                    "#{keypad_flag} #{cursor_flag}",
                    "0 0 0 0 1");
    tmx_stop(&x);
}
END_TEST

START_TEST(signals_restore_the_terminal)
{
    if (skip_test())
        return;
    struct tmx x;
    tmx_start(&x, "sigterm", 100, 30, "", "formatted.txt");
    tmx_wait_for(&x, "Exchange (6)");
    char *pid = tmx_format(&x, "#{pane_pid}");
    free(tmx_sh("kill -TERM %s", pid));
    int status = tmx_wait_exit(&x);
    tmx_fail_on_sanitizer_report(&x);
    /* 143 (128 + SIGTERM) is what the explorer exits with; tmux under load has been seen to
       report 0 for it, so the status is asserted through a shell's $? in
       check_reliability_term.c (int_term_and_hup_restore_the_terminal_and_exit_128_plus_n). */
    ck_assert_msg(status == 143 || status == 0, "status %d", status);
    tmx_wait_format(&x, "#{alternate_on} #{mouse_sgr_flag}", "0 0");
    free(pid);
    tmx_stop(&x);
}
END_TEST

/* Job control needs a shell: the explorer runs under an interactive bash, as people run it. */
START_TEST(ctrl_z_suspends_and_fg_resumes)
{
    if (skip_test())
        return;
    if (system("command -v bash >/dev/null 2>&1") != 0) {
        fprintf(stderr, "SKIP: bash not found; Ctrl-z test skipped\n");
        return;
    }
    struct tmx x = {.program = false}; /* the pane is the shell */
    snprintf(x.sock, sizeof x.sock, "%s/suspend.sock", tmx_dir());
    char san[512];
    tu_san_env(san, sizeof san, tmx_report_prefix());
    free(tmx_sh("cd %s && tmux -S %s -f %s/tmux.conf new-session -d -x 100 -y 30 "
                "'exec env -u NO_COLOR TERM=xterm-256color LC_ALL=C.UTF-8 %s PS1=READY$ "
                "bash --norc --noprofile -i'",
                tmx_dir(), x.sock, tmx_dir(), san));
    tmx_wait_for(&x, "READY$");
    char cmd[512];
    snprintf(cmd, sizeof cmd, "'%s formatted.txt' Enter", tu_binary());
    tmx_keys(&x, cmd);
    tmx_wait_for(&x, "Exchange (6)");
    tmx_keys(&x, "C-z");
    tmx_wait_for(&x, "Stopped");
    tmx_wait_format(&x, "#{alternate_on} #{mouse_sgr_flag}", "0 0"); /* the screen is left */
    tmx_keys(&x, "fg Enter");
    tmx_wait_for(&x, "Exchange (6)");
    tmx_wait_format(&x, "#{alternate_on} #{mouse_sgr_flag}", "1 1");
    tmx_keys(&x, "j");
    tmx_wait_for(&x, "2/11");
    tmx_keys(&x, "q");
    TMX_EXPECT(&x, false, LACKS("Exchange (6)"), SHOWS("READY$"));
    tmx_stop(&x);
}
END_TEST

START_TEST(escape_sequences_are_shown_not_sent)
{
    if (skip_test())
        return;
    struct tmx x;
    tmx_start(&x, "hostile", 100, 30, "", "hostile.txt");
    TMX_EXPECT(&x, false, SHOWS("^[[31mEVIL^[[0m^G"), SHOWS("^[]0;owned^G"), SHOWS("?:help"));
    char *title = tmx_format(&x, "#{pane_title}");
    ck_assert_msg(strstr(title, "owned") == NULL, "the plan set the title: %s", title);
    free(title);
    tmx_stop(&x);
}
END_TEST

START_TEST(pastes_open_as_new_documents)
{
    if (skip_test())
        return;
    struct tmx x;
    tmx_start(&x, "paste", 100, 30, "", "formatted.txt");
    tmx_wait_for(&x, "Exchange (6)");
    /* A bracketed paste whose text has key letters (q, x, C): none acts as a key. */
    tmx_write_file("paste1.txt",
                   "== Physical Plan ==\n*(1) Project [q#1]\n"
                   "+- *(1) Filter (x#2 = 'C q')\n   +- FileScan parquet qq[q#1]\n");
    free(tmx_sh("tmux -S %s load-buffer -b p1 %s/paste1.txt", x.sock, tmx_dir()));
    free(tmx_sh("tmux -S %s paste-buffer -p -b p1", x.sock));
    TMX_EXPECT(&x, false, SHOWS("paste 1 [2/2]"), SHOWS("Filter (x#2 = 'C q')"));
    /* p, then an unbracketed paste, then Ctrl-d. */
    tmx_keys(&x, "p");
    tmx_wait_for(&x, "PASTE: paste a plan now");
    tmx_write_file("paste2.txt", "== Physical Plan ==\nExchange SinglePartition\n"
                                 "+- LocalTableScan [q#1]\n");
    free(tmx_sh("tmux -S %s load-buffer -b p2 %s/paste2.txt", x.sock, tmx_dir()));
    free(tmx_sh("tmux -S %s paste-buffer -b p2", x.sock));
    tmx_keys(&x, "C-d");
    TMX_EXPECT(&x, false, SHOWS("paste 2 [3/3]"), SHOWS("LocalTableScan [q#1]"));
    tmx_keys(&x, "D");
    TMX_EXPECT(&x, false, SHOWS("Documents"), SHOWS("formatted.txt   1 plan"),
               SHOWS("paste 1   1 plan"), SHOWS("paste 2   1 plan"));
    tmx_keys(&x, "k k Enter");
    TMX_EXPECT(&x, false, SHOWS("formatted.txt [1/3]"), LACKS("Documents"));
    tmx_wait_format(&x, "#{pane_dead}", "0");
    tmx_stop(&x);
}
END_TEST

START_TEST(mouse_clicks_select_and_toggle)
{
    if (skip_test())
        return;
    struct tmx x;
    tmx_start(&x, "mouse", 100, 30, "", "formatted.txt");
    char *s = TMX_WAIT(&x, false, SHOWS("HashAggregate (7)"), SHOWS("1/11  ?:help"));
    /* Find the screen position of "HashAggregate (7)" and of its fold glyph. */
    int row = 0;
    const char *line = s, *hit = NULL;
    while ((hit = strstr(line, "HashAggregate (7)")) != NULL) {
        const char *nl = strchr(line, '\n');
        if (!nl || hit < nl)
            break;
        line = nl + 1;
        row++;
    }
    ck_assert_ptr_nonnull(hit);
    int col = 0; /* display columns up to the text: count UTF-8 lead bytes */
    for (const char *p = line; p < hit; p++)
        col += ((unsigned char)*p & 0xC0) != 0x80;
    free(s);
    /* SGR click (1-based coordinates) on the text: selects. */
    char report[64];
    snprintf(report, sizeof report, "\x1b[<0;%d;%dM\x1b[<0;%d;%dm", col + 3, row + 1, col + 3,
             row + 1);
    tmx_send_bytes(&x, report);
    tmx_wait_for(&x, " HashAggregate (7)  stage *(2)");
    /* On the fold glyph, two columns left of the text: folds. */
    snprintf(report, sizeof report, "\x1b[<0;%d;%dM\x1b[<0;%d;%dm", col - 1, row + 1, col - 1,
             row + 1);
    tmx_send_bytes(&x, report);
    tmx_wait_for(&x, "[+6] HashAggregate (7)");
    /* The wheel: the whole tree fits, so nothing moves. */
    tmx_send_bytes(&x, "\x1b[<65;5;5M");
    tmx_keys(&x, "j");
    tmx_wait_for(&x, "10/11  ?:help"); /* BroadcastExchange (9), below the fold */
    tmx_stop(&x);
}
END_TEST

START_TEST(eight_colours_and_vt100_keep_the_distinctions)
{
    if (skip_test())
        return;
    struct tmx x;
    /* tmx_start() sets TERM=xterm-256color; a later TERM= in env wins. */
    tmx_start(&x, "eight", 100, 30, "TERM=xterm", "formatted.txt");
    /* 8 colours: Exchange bold red, and no 256-colour codes. */
    TMX_EXPECT(&x, true, SHOWS("\x1b[1m\x1b[31mExchange (6)"), SHOWS("?:help"), LACKS("38;5;"));
    tmx_stop(&x);
    tmx_start(&x, "vt100", 100, 30, "TERM=vt100", "formatted.txt");
    char *s = TMX_WAIT(&x, true, SHOWS("\x1b[1mExchange (6)"),
                       SHOWS("\x1b[4mBroadcastHashJoin Inner BuildRight (4)"), SHOWS("?:help"));
    ck_assert_msg(!has_colour_code(s), "colours on a vt100:\n%s", s);
    free(s);
    tmx_stop(&x);
}
END_TEST

START_TEST(x_and_brackets_jump_between_exchanges_and_stages)
{
    if (skip_test())
        return;
    struct tmx x;
    tmx_start(&x, "jumps", 100, 30, "", "formatted.txt");
    tmx_wait_for(&x, "Exchange (6)");
    /* The status line ends with the position: "4/11" is Exchange (6), and so on. */
    tmx_keys(&x, "x");
    tmx_wait_for(&x, "4/11  ?:help");
    tmx_keys(&x, "x");
    tmx_wait_for(&x, "9/11  ?:help"); /* ReusedExchange (3) */
    tmx_keys(&x, "x");
    tmx_wait_for(&x, "10/11  ?:help"); /* BroadcastExchange (9) */
    tmx_keys(&x, "x");
    TMX_EXPECT(&x, false, SHOWS("search wrapped around"), SHOWS("4/11  ?:help"));
    tmx_keys(&x, "X");
    tmx_wait_for(&x, "10/11  ?:help");
    tmx_keys(&x, "g ]");
    tmx_wait_for(&x, " HashAggregate (5)  stage *(1)");
    tmx_keys(&x, "[");
    tmx_wait_for(&x, " Project (11)  stage *(2)");
    tmx_stop(&x);
}
END_TEST

/* A shortened plan shows a dim "…" row where operators were left out; a notebook's plans
   are named by their cells in the tabs and the details. */
START_TEST(elisions_and_notebook_cells_show)
{
    if (skip_test())
        return;
    struct tmx x;
    tmx_start(&x, "elided", 100, 30, "", "elided.ipynb");
    tmx_wait_for(&x, "c1:Physical");
    tmx_keys(&x, "Tab");
    TMX_EXPECT(&x, false, SHOWS("HashAggregate(keys=[k#1]"), SHOWS("\xe2\x80\xa6"),
               SHOWS("c2:Physical"), SHOWS("cell 2, output of [7] big.explain()"));
    tmx_stop(&x);
}
END_TEST

START_TEST(aqe_plans_get_final_and_initial_tabs)
{
    if (skip_test())
        return;
    char path[1024];
    if (!getcwd(path, sizeof path - 64))
        return;
    strcat(path, "/samples/join-aqe-final.txt");
    if (access(path, R_OK) != 0) {
        fprintf(stderr, "SKIP: %s missing; AQE tab test skipped\n", path);
        return;
    }
    struct tmx x;
    tmx_start(&x, "aqe", 100, 40, "", path);
    TMX_EXPECT(&x, false, SHOWS("[Physical]"), SHOWS(" Final "), SHOWS(" Initial "),
               SHOWS("== Initial Plan =="));
    tmx_keys(&x, "Tab"); /* the Final tab: the plan that ran, without the initial plan */
    TMX_EXPECT(&x, false, SHOWS("[Final]"), SHOWS("ShuffleQueryStage"),
               LACKS("== Initial Plan =="));
    tmx_keys(&x, "Tab"); /* the Initial tab: no query stages */
    TMX_EXPECT(&x, false, SHOWS("[Initial]"), LACKS("ShuffleQueryStage"));
    tmx_stop(&x);
}
END_TEST

/* A plan too big to count before the first frame (more than 4,096 nodes in its tab):
 * the rows come first, the header says it is counting, the counts follow between frames,
 * and a key that needs the index (x) works at once. */
START_TEST(a_big_plan_counts_between_frames_and_jumps_at_once)
{
    if (skip_test())
        return;
    const unsigned n = 30000;
    size_t len;
    char *text = tu_union_plan(n, false, "", &len);
    tmx_write_file("big.txt", text);
    free(text);
    struct tmx x;
    tmx_start(&x, "big", 120, 30, "", "big.txt");
    tmx_keys(&x, "x");
    TMX_EXPECT(&x, false, SHOWS(" Exchange (3)  "), SHOWS("4/30001  ?:help"));
    /* The same counts --summary gives, once the pass between frames is over. */
    TMX_EXPECT(&x, false, SHOWS("30001 nodes \xC2\xB7 10000 shuffles \xC2\xB7 0 broadcasts"),
               LACKS("counting"));
    tmx_keys(&x, "x");
    tmx_wait_for(&x, "7/30001  ?:help");
    tmx_stop(&x);
}
END_TEST

/* A node whose text is longer than the details pane lays out (64 KB, as the tree's rows)
 * ends its details with how much is not shown: the pane wraps only what it can show. */
START_TEST(details_of_a_long_line_stop_at_64_kb_and_say_what_is_left)
{
    if (skip_test())
        return;
    const size_t cols = 20000;
    size_t cap = cols * 16 + 256, len = 0; /* ", c99#19999" is 11 bytes */
    char *text = malloc(cap);
    ck_assert_ptr_nonnull(text);
    len += (size_t)snprintf(text + len, cap - len, "== Physical Plan ==\nProject [");
    size_t line_at = strlen("== Physical Plan ==\n");
    for (size_t i = 0; i < cols; i++)
        len += (size_t)snprintf(text + len, cap - len, "%sc%zu#%zu", i ? ", " : "", i % 100, i);
    len += (size_t)snprintf(text + len, cap - len, "]");
    size_t node_len = len - line_at; /* the root's text: its whole line */
    len += (size_t)snprintf(text + len, cap - len, "\n+- Scan parquet t\n");
    tmx_write_file("longrow.txt", text);
    free(text);
    ck_assert_uint_gt(node_len, 65536);
    char want[64];
    snprintf(want, sizeof want, "(%zu more bytes not shown)", node_len - 65536);
    /* The findings come after Enter G (the analysis held back until then): the details are
     * rebuilt with them, and where they were read stays (it used to go back to the top,
     * and the test failed whenever the analysis was slower than the keys). */
    char gate[128], env[200];
    snprintf(gate, sizeof gate, "%s/gate-longrow", tmx_dir());
    snprintf(env, sizeof env, "SPARKPLAN_TEST_ANALYSIS_GATE=%s", gate);
    struct tmx x;
    tmx_start(&x, "longrow", 120, 30, env, "longrow.txt");
    tmx_wait_for(&x, "Scan parquet t");
    tmx_keys(&x, "Enter G");
    TMX_EXPECT(&x, false, SHOWS(want), SHOWS("analysing"));
    free(tmx_sh("touch %s", gate));
    TMX_EXPECT(&x, false, SHOWS(want), LACKS("analysing"));
    tmx_stop(&x);
}
END_TEST

Suite *e2e_suite(void)
{
    Suite *s = suite_create("e2e");
    TCase *tc = tcase_create("tmux");
    tcase_add_unchecked_fixture(tc, suite_setup, suite_teardown);
    tcase_set_timeout(tc, 240); /* a loaded machine; each wait gives up after 30 s */
    tcase_add_test(tc, tree_folds_and_unfolds);
    tcase_add_test(tc, exchange_lines_have_their_colours);
    tcase_add_test(tc, no_color_uses_attributes);
    tcase_add_test(tc, stage_ids_past_999_are_cut_visibly_in_the_gutter);
    tcase_add_test(tc, stage_tints_and_highlight);
    tcase_add_test(tc, goto_id_shows_details_and_follows_references);
    tcase_add_test(tc, details_name_the_node_once_and_wrap_paths_whole);
    tcase_add_test(tc, narrow_terminal_keeps_deep_guides_in_line);
    tcase_add_test(tc, overlays_are_framed_boxes_with_their_own_background);
    tcase_add_test(tc, help_fits_a_narrow_terminal);
    tcase_add_test(tc, search_counts_matches);
    tcase_add_test(tc, tab_switches_sections);
    tcase_add_test(tc, many_tabs_keep_the_active_one_in_the_header);
    tcase_add_test(tc, resize_relayouts_down_to_tiny);
    tcase_add_test(tc, quit_restores_the_terminal);
    tcase_add_test(tc, signals_restore_the_terminal);
    tcase_add_test(tc, ctrl_z_suspends_and_fg_resumes);
    tcase_add_test(tc, escape_sequences_are_shown_not_sent);
    tcase_add_test(tc, pastes_open_as_new_documents);
    tcase_add_test(tc, mouse_clicks_select_and_toggle);
    tcase_add_test(tc, eight_colours_and_vt100_keep_the_distinctions);
    tcase_add_test(tc, a_big_plan_counts_between_frames_and_jumps_at_once);
    tcase_add_test(tc, details_of_a_long_line_stop_at_64_kb_and_say_what_is_left);
    tcase_add_test(tc, x_and_brackets_jump_between_exchanges_and_stages);
    tcase_add_test(tc, aqe_plans_get_final_and_initial_tabs);
    tcase_add_test(tc, elisions_and_notebook_cells_show);
    suite_add_tcase(s, tc);
    return s;
}
