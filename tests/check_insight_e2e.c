/* End-to-end, in a real terminal (tmux): the teaching keys of the explorer as a workshop
 * uses them — findings in the gutter and their list (! f), the operator explanation (i), an
 * expression id traced through the plan (* n), the flipped tree (r) and the guided walk (w).
 * The plans are the built-in samples (--sample), so the screens show what the samples hold.
 * Skipped with a message when tmux is missing, and in the sanitizer pass (same binary).
 */
#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "testutil.h"

static char dir[64];
static bool have_tmux;

struct term {
    char sock[160];
};

static char *sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *sh(const char *fmt, ...)
{
    char cmd[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    char *out = tu_run(cmd, NULL);
    return out ? out : strdup("");
}

static void pause_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* `sparkplan ARGS` alone in a private tmux server, in a W x H UTF-8 terminal. */
static void open_term(struct term *tm, const char *name, int w, int h, const char *args)
{
    snprintf(tm->sock, sizeof tm->sock, "%s/%s.sock", dir, name);
    char *out = sh("tmux -S %s -f %s/tmux.conf new-session -d -x %d -y %d "
                   "'exec env -u NO_COLOR TERM=xterm-256color LC_ALL=C.UTF-8 %s %s' 2>&1",
                   tm->sock, dir, w, h, tu_binary(), args);
    ck_assert_msg(out[0] == '\0', "tmux failed: %s", out);
    free(out);
}

static char *screen(struct term *tm)
{
    return sh("tmux -S %s capture-pane -p 2>/dev/null", tm->sock);
}

/* Polls until needle is on screen; returns that screen (the caller frees it). */
static char *until(struct term *tm, const char *needle)
{
    char *s = NULL;
    for (int i = 0; i < 500; i++) {
        free(s);
        s = screen(tm);
        if (strstr(s, needle))
            return s;
        pause_ms(20);
    }
    ck_abort_msg("the screen never showed '%s'; it shows:\n%s", needle, s);
    return s;
}

/* Polls until needle has left the screen (a key's effect, not the screen before it). */
static char *until_gone(struct term *tm, const char *needle)
{
    char *s = NULL;
    for (int i = 0; i < 500; i++) {
        free(s);
        s = screen(tm);
        if (!strstr(s, needle))
            return s;
        pause_ms(20);
    }
    ck_abort_msg("'%s' never left the screen:\n%s", needle, s);
    return s;
}

static void see(struct term *tm, const char *needle)
{
    free(until(tm, needle));
}

static void press(struct term *tm, const char *k)
{
    free(sh("tmux -S %s send-keys %s", tm->sock, k));
}

static void close_term(struct term *tm)
{
    free(sh("tmux -S %s kill-server 2>/dev/null", tm->sock));
}

/* The screen line holding needle, or "" (malloc'd). */
static char *row_of(const char *s, const char *needle)
{
    const char *at = strstr(s, needle);
    if (!at)
        return strdup("");
    const char *b = at, *e = at;
    while (b > s && b[-1] != '\n')
        b--;
    while (*e && *e != '\n')
        e++;
    return strndup(b, (size_t)(e - b));
}

/* The n-th line of a screen (0-based), malloc'd. */
static char *line_no(const char *s, int n)
{
    for (; n > 0 && s; n--) {
        s = strchr(s, '\n');
        if (s)
            s++;
    }
    if (!s)
        return strdup("");
    return strndup(s, strcspn(s, "\n"));
}

static bool skipped(void)
{
    return getenv("SPARKPLAN_SANITIZED") || !have_tmux;
}

static void setup(void)
{
    have_tmux = system("command -v tmux >/dev/null 2>&1") == 0;
    if (getenv("SPARKPLAN_SANITIZED"))
        return;
    if (!have_tmux) {
        fprintf(stderr, "SKIP: tmux not found; insight terminal tests skipped\n");
        return;
    }
    snprintf(dir, sizeof dir, "/tmp/sparkplan-insight-XXXXXX");
    if (!mkdtemp(dir)) {
        have_tmux = false;
        return;
    }
    char path[128];
    snprintf(path, sizeof path, "%s/tmux.conf", dir);
    FILE *f = fopen(path, "w");
    if (f) {
        fputs("set -g remain-on-exit on\nset -g status off\nset -g default-terminal xterm-256color\n", f);
        fclose(f);
    }
}

static void teardown(void)
{
    if (!dir[0])
        return;
    free(sh("for s in %s/*.sock; do [ -S \"$s\" ] && tmux -S \"$s\" kill-server; done 2>/dev/null; "
            "rm -rf %s", dir, dir));
    dir[0] = '\0';
}

START_TEST(findings_are_marked_in_the_gutter_listed_and_stepped)
{
    if (skipped())
        return;
    struct term tm;
    open_term(&tm, "findings", 130, 30, "--sample window-partitioning");
    see(&tm, "Exchange hashpartitioning(customer_id#13L, 200)");
    press(&tm, "Tab"); /* the second plan: the window without partitionBy */
    char *s = until(&tm, "Exchange SinglePartition");
    char *ex = row_of(s, "Exchange SinglePartition");
    char *sort = row_of(s, "Sort [amount#14 DESC NULLS LAST]");
    ck_assert_msg(strncmp(ex, "   !", 4) == 0, "no warning mark in the gutter: '%s'", ex);
    ck_assert_msg(strstr(sort, "!") == NULL, "Sort marked: '%s'", sort);
    free(ex), free(sort), free(s);

    press(&tm, "f");
    see(&tm, "SP002 warning: one task receives every row: a window without partitionBy");
    s = until(&tm, "Findings");  /* the details list the node's findings and the advice */
    ck_assert_ptr_nonnull(strstr(s, "Give the window a partitionBy"));
    free(s);

    press(&tm, "!");
    s = until(&tm, "Findings: 3 (Enter goes to one, q closes)");
    ck_assert_ptr_nonnull(strstr(s, "4 i SP001 shuffle by hash of customer_id#13L"));
    free(s);
    press(&tm, "q");
    s = until_gone(&tm, "Findings: 3");  /* the list closes... */
    ck_assert_ptr_nonnull(strstr(s, "Exchange SinglePartition"));  /* ...over the tree */
    free(s);
    close_term(&tm);
}
END_TEST

START_TEST(i_explains_the_selected_operator_beside_its_details)
{
    if (skipped())
        return;
    struct term tm;
    open_term(&tm, "explain", 130, 40, "--sample join-simple");
    see(&tm, "SortMergeJoin [customer_id#13L]");
    press(&tm, "j"); /* the SortMergeJoin */
    see(&tm, " SortMergeJoin  stage *(5)");
    press(&tm, "i");
    char *s = until(&tm, "SortMergeJoin  (Spark physical operator)");
    ck_assert_ptr_nonnull(strstr(s, "Join strategy: sort-merge"));
    ck_assert_ptr_nonnull(strstr(s, "What to check"));
    ck_assert_ptr_nonnull(strstr(s, "operator explanations on"));
    free(s);
    press(&tm, "j"); /* follows the selection */
    see(&tm, "Sort  (Spark logical and physical operator)");
    press(&tm, "i");
    s = until(&tm, "operator explanations off");
    ck_assert_ptr_null(strstr(s, "What to check"));
    free(s);
    close_term(&tm);
}
END_TEST

START_TEST(star_traces_an_expression_id_to_its_producer)
{
    if (skipped())
        return;
    struct term tm;
    open_term(&tm, "trace", 130, 30, "--sample join-formatted");
    see(&tm, "SortMergeJoin Inner (11)");
    press(&tm, "j"); /* SortMergeJoin (11): both join keys */
    see(&tm, " SortMergeJoin (11)");
    press(&tm, "'*'");
    char *s = until(&tm, "Expression ids of this node");
    ck_assert_ptr_nonnull(strstr(s, "customer_id#13L"));
    ck_assert_ptr_nonnull(strstr(s, "customer_id#16L"));
    free(s);
    press(&tm, "Enter"); /* the first: orders' customer_id#13L */
    s = until(&tm, "produced by Scan parquet on line 8");
    char *scan = row_of(s, "\xE2\x94\x80 Scan parquet spark_catalog.default.orders (1)"); /* ─ leaf */
    ck_assert_msg(strstr(scan, "\xE2\x97\x86") != NULL, "producer not marked: '%s'", scan);
    char *cust = row_of(s, "\xE2\x94\x80 Scan parquet spark_catalog.default.customers (6)");
    ck_assert_msg(strstr(cust, "\xE2\x97\x86") == NULL, "wrong producer: '%s'", cust);
    ck_assert_ptr_nonnull(strstr(s, "customer_id#13L: 7 nodes here"));
    free(scan), free(cust), free(s);
    press(&tm, "n");
    see(&tm, "[1/7]");
    press(&tm, "n");
    see(&tm, "[2/7]");
    close_term(&tm);
}
END_TEST

START_TEST(r_flips_the_tree_so_scans_are_on_top)
{
    if (skipped())
        return;
    struct term tm;
    open_term(&tm, "flip", 130, 30, "--sample join-simple");
    char *s = until(&tm, "FileScan parquet spark_catalog.default.customers");
    char *first = line_no(s, 2);
    ck_assert_msg(strstr(first, "Project [order_id#12L") != NULL, "first row: %s", first);
    free(first), free(s);
    press(&tm, "r");
    s = until(&tm, "flipped: scans on top");
    first = line_no(s, 2);
    char *last = line_no(s, 13);
    ck_assert_msg(strstr(first, "FileScan parquet spark_catalog.default.customers") != NULL,
                  "first row when flipped: %s", first);
    ck_assert_msg(strstr(first, "\xE2\x94\x8C") != NULL, "no upside-down corner: %s", first);
    ck_assert_msg(strstr(last, "Project [order_id#12L") != NULL, "last row when flipped: %s", last);
    free(first), free(last), free(s);
    /* Down on the screen is towards the root: from the Project, k goes up to the join. */
    press(&tm, "k");
    see(&tm, " SortMergeJoin  stage *(5)");
    press(&tm, "r");
    s = until(&tm, "tree as Spark prints it");
    first = line_no(s, 2);
    ck_assert_msg(strstr(first, "Project [order_id#12L") != NULL, "first row: %s", first);
    free(first), free(s);
    close_term(&tm);
}
END_TEST

START_TEST(w_walks_the_plan_in_execution_order_stage_by_stage)
{
    if (skipped())
        return;
    struct term tm;
    open_term(&tm, "walk", 130, 30, "--sample join-simple");
    see(&tm, "SortMergeJoin [customer_id#13L]");
    /* A trace first: its counter belongs to the tree, not to the walk (QA #8). */
    press(&tm, "'*'");
    see(&tm, "Expression ids of this node");
    press(&tm, "Enter");
    see(&tm, "[2/2]");
    press(&tm, "w");
    char *s = until(&tm, "walk 1/12, stage 1/3: FileScan: execution starts here");
    ck_assert_ptr_nonnull(strstr(s, "FileScan  (Spark physical operator)")); /* explained */
    free(s);
    press(&tm, "Space Space Space");
    s = until(&tm, "walk 4/12, stage 1/3: Exchange: writes the shuffle, stage 1 ends here");
    ck_assert_msg(strstr(s, "/2] ") == NULL, "trace counter during the walk:\n%s", s);
    free(s);
    /* The customers scan starts a stage; it crosses nothing (QA #8). */
    press(&tm, "Space");
    see(&tm, "walk 5/12, stage 2/3 (a new stage starts at a scan): FileScan");
    press(&tm, "Space Space Space Space");
    see(&tm, "walk 9/12, stage 3/3 (crossed a stage boundary: reads the shuffle from stage 1): "
             "Sort");
    press(&tm, "Space");
    see(&tm, "walk 10/12, stage 3/3 (crossed a stage boundary: reads the shuffle from stage 2): "
             "Sort");
    press(&tm, "g");
    see(&tm, "walk 1/12");
    press(&tm, "Space Space Space Space");
    see(&tm, "walk 5/12");
    press(&tm, "b");
    see(&tm, "walk 4/12, stage 1/3: Exchange");
    press(&tm, "G");
    see(&tm, "walk 12/12, stage 3/3: Project");
    press(&tm, "q");
    s = until(&tm, "walk ended");
    ck_assert_ptr_null(strstr(s, "What to check")); /* explanations back off */
    ck_assert_ptr_nonnull(strstr(s, "/2] "));     /* the trace counter is back */
    free(s);
    close_term(&tm);
}
END_TEST

Suite *insight_e2e_suite(void)
{
    Suite *s = suite_create("insight_e2e");
    TCase *tc = tcase_create("tmux");
    tcase_add_unchecked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, findings_are_marked_in_the_gutter_listed_and_stepped);
    tcase_add_test(tc, i_explains_the_selected_operator_beside_its_details);
    tcase_add_test(tc, star_traces_an_expression_id_to_its_producer);
    tcase_add_test(tc, r_flips_the_tree_so_scans_are_on_top);
    tcase_add_test(tc, w_walks_the_plan_in_execution_order_stage_by_stage);
    suite_add_tcase(s, tc);
    return s;
}
