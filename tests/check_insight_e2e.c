/* End-to-end, in a real terminal (tmux): the teaching keys of the explorer as a workshop
 * uses them — findings in the gutter and their list (! f), the operator explanation (i), an
 * expression id traced through the plan (* n), the flipped tree (r) and the guided walk (w).
 * The plans are the built-in samples (--sample), so the screens show what the samples hold.
 * Each test ends its program with SIGTERM (it leaves as on q) and fails unless it exits with
 * status 143 (or 0, after q) and wrote no sanitizer report (the sanitizer pass runs the
 * binary built with ASan + UBSan).  Skipped with a message when tmux is missing.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pollwait.h"
#include "testutil.h"

static char dir[64];
static bool have_tmux;

struct term {
    char sock[160];
};

/* A shell command's output (the shared runner; it fails the test if no shell starts). */
#define sh(...) tu_runf(NULL, __VA_ARGS__)

/* `sparkplan ARGS` alone in a private tmux server, in a W x H UTF-8 terminal, with the
 * environment variables ENV ("NAME=value ...", may be empty) added. */
/* Where a sanitized binary writes its reports: dir/sanitizer.PID. */
static const char *report_prefix(void)
{
    static char prefix[96];
    snprintf(prefix, sizeof prefix, "%s/sanitizer", dir);
    return prefix;
}

static void open_term_env(struct term *tm, const char *name, int w, int h, const char *env,
                          const char *args)
{
    snprintf(tm->sock, sizeof tm->sock, "%s/%s.sock", dir, name);
    char san[512];
    tu_san_env(san, sizeof san, report_prefix());
    char *out = sh("tmux -S %s -f %s/tmux.conf new-session -d -x %d -y %d "
                   "'exec env -u NO_COLOR TERM=xterm-256color LC_ALL=C.UTF-8 %s %s %s %s' 2>&1",
                   tm->sock, dir, w, h, san, env, tu_binary(), args);
    ck_assert_msg(out[0] == '\0', "tmux failed: %s", out);
    free(out);
}

static void open_term(struct term *tm, const char *name, int w, int h, const char *args)
{
    open_term_env(tm, name, w, h, "", args);
}

static char *screen(struct term *tm)
{
    return sh("tmux -S %s capture-pane -p 2>/dev/null", tm->sock);
}

struct screen_probe {
    struct term *tm;
    const struct pw_cond *conds;
    char *last;
    const struct pw_cond *failed;
    double since;
};

static void fail_on_sanitizer_report(struct term *tm);
static void fail_if_gone(struct term *tm, const char *screen);

/* A program that died (a sanitizer stopped it) draws nothing more: after a second without
 * the screen, the wait ends with its report or its last screen. */
static bool probe(void *ctx)
{
    struct screen_probe *p = ctx;
    if (tu_san_reported(report_prefix()))
        fail_on_sanitizer_report(p->tm);
    free(p->last);
    p->last = screen(p->tm);
    p->failed = pw_unmet(p->last, p->conds);
    if (p->failed && pollwait_now() - p->since > 1.0)
        fail_if_gone(p->tm, p->last);
    return p->failed == NULL;
}

/* Polls until every condition holds on one screen (never reads a screen once and hopes);
 * returns that screen (the caller frees it).  Fails after POLLWAIT_SECONDS. */
static char *until_all(struct term *tm, const struct pw_cond *conds)
{
    struct screen_probe p = {tm, conds, NULL, NULL, pollwait_now()};
    if (!pollwait(probe, &p))
        ck_abort_msg("the screen never %s '%s'%s%s; it shows:\n%s",
                     p.failed->absent ? "lost" : "showed", p.failed->text,
                     p.failed->row ? " on the line of " : "", p.failed->row ? p.failed->row : "",
                     p.last);
    return p.last;
}
#define UNTIL(tm, ...) until_all((tm), PW_CONDS(__VA_ARGS__))
#define SEE_ALL(tm, ...) free(UNTIL((tm), __VA_ARGS__))

/* Polls until needle is on screen; returns that screen (the caller frees it). */
static char *until(struct term *tm, const char *needle)
{
    return UNTIL(tm, SHOWS(needle));
}

static void see(struct term *tm, const char *needle)
{
    free(until(tm, needle));
}

static void press(struct term *tm, const char *k)
{
    free(sh("tmux -S %s send-keys %s", tm->sock, k));
}

struct exit_probe {
    struct term *tm;
    int status;
};

static bool probe_exit(void *ctx)
{
    struct exit_probe *p = ctx;
    char *st = sh("tmux -S %s display -p '" TU_PANE_EXIT "'", p->tm->sock);
    bool over = tu_pane_exit(st, &p->status);
    free(st);
    return over;
}

/* The program's exit status once it is gone (remain-on-exit keeps the pane); fails the
 * test when it is still running after POLLWAIT_SECONDS. */
static int exit_status(struct term *tm)
{
    struct exit_probe p = {tm, -1};
    if (!pollwait(probe_exit, &p))
        ck_abort_msg("the program did not end within %.0f s", POLLWAIT_SECONDS);
    return p.status;
}

/* Fails the test when the sanitized program wrote a report (and clears it for the next),
 * once the program is over and the report whole. */
static void fail_on_sanitizer_report(struct term *tm)
{
    if (!tu_san_reported(report_prefix()))
        return;
    exit_status(tm);
    tu_san_fail_on_report(report_prefix());
}

/* The program ended while the test waited for its screen: fail now, saying how.  (GCC's
 * UBSan writes its report to the terminal, whatever the log path: it is on the screen.) */
static void fail_if_gone(struct term *tm, const char *screen)
{
    char *st = sh("tmux -S %s display -p '#{pane_dead}'", tm->sock);
    bool dead = st[0] == '1';
    free(st);
    if (!dead)
        return;
    int status = exit_status(tm);
    fail_on_sanitizer_report(tm);
    ck_abort_msg("the program ended with status %d before the screen came; it shows:\n%s",
                 status, screen);
}

/* Ends the test: the program, if still running, gets SIGTERM and must leave with status 143
 * (128 + SIGTERM; 0 when it had ended), without a sanitizer report (an error, or memory
 * left allocated at exit). */
static void close_term(struct term *tm)
{
    char *pane = sh("tmux -S %s display -p '#{pane_dead} #{pane_pid}' 2>/dev/null", tm->sock);
    pane[strcspn(pane, "\n")] = '\0';
    if (pane[0] == '0')
        free(sh("kill -TERM %.20s 2>/dev/null", pane + 2));
    free(pane);
    int status = exit_status(tm);
    fail_on_sanitizer_report(tm);
    if (status != 0 && status != 143) {
        char *s = screen(tm);
        ck_abort_msg("the program exited with status %d; it shows:\n%s", status, s);
    }
    free(sh("tmux -S %s kill-server 2>/dev/null", tm->sock));
}

/* A formatted plan of n scans and exchanges under one Union (tu_union_plan), written to
 * the test directory as name; its path in path. */
static void write_union_plan(const char *name, unsigned n, char *path, size_t cap)
{
    size_t len;
    char *text = tu_union_plan(n, false, "", &len);
    snprintf(path, cap, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(text, 1, len, f), len);
    ck_assert_int_eq(fclose(f), 0);
    free(text);
}


static bool skipped(void)
{
    return !have_tmux;
}

static void setup(void)
{
    have_tmux = system("command -v tmux >/dev/null 2>&1") == 0;
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
    char *s = UNTIL(&tm, ROW_SHOWS("Exchange SinglePartition", "!"),
                    ROW_LACKS("Sort [amount#14 DESC NULLS LAST]", "!"));
    char *ex = pw_line(s, "Exchange SinglePartition"); /* the mark is in the gutter */
    ck_assert_msg(strncmp(ex, "   !", 4) == 0, "no warning mark in the gutter: '%s'", ex);
    free(ex), free(s);

    press(&tm, "f");
    see(&tm, "SP002 warning: one task receives every row: a window without partitionBy");
    /* the details list the node's findings and the advice */
    SEE_ALL(&tm, SHOWS("Findings"), SHOWS("Give the window a partitionBy"));

    press(&tm, "!");
    SEE_ALL(&tm, SHOWS("Findings: 3 (Enter goes to one, q closes)"),
            SHOWS("4 i SP001 shuffle by hash of customer_id#13L"));
    press(&tm, "q"); /* the list closes: the tree is back */
    SEE_ALL(&tm, LACKS("Findings: 3"), SHOWS("Exchange SinglePartition"));
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
    SEE_ALL(&tm, SHOWS("SortMergeJoin  (Spark physical operator)"),
            SHOWS("Join strategy: sort-merge"), SHOWS("What to check"),
            SHOWS("operator explanations on"));
    press(&tm, "j"); /* follows the selection */
    see(&tm, "Sort  (Spark logical and physical operator)");
    press(&tm, "i");
    SEE_ALL(&tm, SHOWS("operator explanations off"), LACKS("What to check"));
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
    SEE_ALL(&tm, SHOWS("Expression ids of this node"), SHOWS("customer_id#13L"),
            SHOWS("customer_id#16L"));
    press(&tm, "Enter"); /* the first: orders' customer_id#13L; the producer gets a diamond */
    SEE_ALL(&tm, SHOWS("produced by Scan parquet on line 8"),
            SHOWS("customer_id#13L: 7 nodes here"),
            ROW_SHOWS("\xE2\x94\x80 Scan parquet spark_catalog.default.orders (1)", /* ─ leaf */
                      "\xE2\x97\x86"),
            ROW_LACKS("\xE2\x94\x80 Scan parquet spark_catalog.default.customers (6)",
                      "\xE2\x97\x86"));
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
    SEE_ALL(&tm, SHOWS("FileScan parquet spark_catalog.default.customers"),
            LINE_SHOWS(2, "Project [order_id#12L"));
    press(&tm, "r"); /* the scan on top with an upside-down corner, the root at the bottom */
    SEE_ALL(&tm, SHOWS("flipped: scans on top"),
            LINE_SHOWS(2, "FileScan parquet spark_catalog.default.customers"),
            LINE_SHOWS(2, "\xE2\x94\x8C"), LINE_SHOWS(13, "Project [order_id#12L"));
    /* Down on the screen is towards the root: from the Project, k goes up to the join. */
    press(&tm, "k");
    see(&tm, " SortMergeJoin  stage *(5)");
    press(&tm, "r");
    SEE_ALL(&tm, SHOWS("tree as Spark prints it"), LINE_SHOWS(2, "Project [order_id#12L"));
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
    press(&tm, "w"); /* the first step, explained */
    SEE_ALL(&tm, SHOWS("walk 1/12, stage 1/3: FileScan: execution starts here"),
            SHOWS("FileScan  (Spark physical operator)"));
    press(&tm, "Space Space Space"); /* no trace counter during the walk */
    SEE_ALL(&tm, SHOWS("walk 4/12, stage 1/3: Exchange: writes the shuffle, stage 1 ends here"),
            LACKS("/2] "));
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
    press(&tm, "q"); /* explanations back off, the trace counter back */
    SEE_ALL(&tm, SHOWS("walk ended"), LACKS("What to check"), SHOWS("/2] "));
    close_term(&tm);
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
    snprintf(gate, sizeof gate, "%s/gate-keys", dir);
    snprintf(env, sizeof env, "SPARKPLAN_TEST_ANALYSIS_GATE=%s", gate);
    struct term tm;
    open_term_env(&tm, "analysing", 160, 24, env, plan);
    SEE_ALL(&tm, SHOWS("analysing\xE2\x80\xA6  1/30001  ?:help"), SHOWS(UNMARKED_T3));
    press(&tm, "j");
    SEE_ALL(&tm, SHOWS("analysing\xE2\x80\xA6  2/30001  ?:help"), SHOWS("Output [1]: [a#1]"));
    press(&tm, "!");
    SEE_ALL(&tm, SHOWS("still analysing: the list opens when the findings are in"),
            LACKS("Findings: "));
    free(sh("touch %s", gate));
    SEE_ALL(&tm, SHOWS("Findings: 5000 (Enter goes to one, q closes)"),
            SHOWS("      5 i SP001 shuffle; needed by Union on line 2"),
            LACKS("analysing"));
    press(&tm, "q");
    SEE_ALL(&tm, LACKS("Findings: 5000"), SHOWS("0 warnings, 5000 info (!)"), SHOWS(MARKED_T3),
            SHOWS("\n  \xE2\x94\x9C\xE2\x94\x80\xE2\x94\x80 Scan parquet t2 (2)"));
    press(&tm, "q");
    int status = exit_status(&tm);
    fail_on_sanitizer_report(&tm);
    ck_assert_int_eq(status, 0);
    close_term(&tm);
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
    struct term tm;
    open_term(&tm, "bigfindings", 160, 24, plan);
    see(&tm, " 1/90001  ?:help");
    press(&tm, "j");
    see(&tm, " 2/90001  ?:help");
    SEE_ALL(&tm, SHOWS("0 warnings, 5000 info (!)"), SHOWS(MARKED_T3), LACKS("analysing"));
    press(&tm, "f"); /* the first finding after the selection */
    see(&tm, "[1/5000] SP001 info: shuffle; needed by Union on line 2");
    close_term(&tm);
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
    snprintf(env, sizeof env, "SPARKPLAN_TEST_ANALYSIS_GATE=%s/never", dir);
    struct term tm;
    open_term_env(&tm, "quitting", 120, 24, env, plan);
    see(&tm, "analysing\xE2\x80\xA6  1/3001  ?:help");
    press(&tm, "q");
    int status = exit_status(&tm);
    fail_on_sanitizer_report(&tm);
    ck_assert_int_eq(status, 0);
    close_term(&tm);
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
