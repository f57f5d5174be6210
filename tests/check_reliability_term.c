/* The explorer leaves the terminal as it found it on every path, and its exit status says
 * how it ended: a missing TERM, Ctrl-z then bg / kill %1 / kill -CONT / fg, SIGQUIT,
 * SIGINT / SIGTERM / SIGHUP (128 + n); pastes that are empty or cut say so; a walk ends
 * with its document; bidi controls in plan text are shown by name.
 *
 * Each test runs an interactive bash in a private tmux server (its own socket, no user
 * configuration, remain-on-exit), starts the explorer from it as people do, and reads the
 * terminal's modes from tmux: cursor visible (#{cursor_flag}), mouse reporting off
 * (#{mouse_any_flag}), normal screen (#{alternate_on}).  Skipped when tmux or bash is
 * missing.  In the sanitizer pass the explorer is the sanitized build; a report fails the
 * test. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pollwait.h"
#include "testutil.h"
#include "tmuxterm.h"

/* The shell-driven tests' words for the shared harness (tmuxterm.h). */
#define SEE(p, ...) TMX_EXPECT((p), false, __VA_ARGS__)

static void open_shell(struct tmx *p, const char *name, const char *env)
{
    tmx_start_shell(p, name, 100, 30, env);
}

static char *capture(struct tmx *p)
{
    return tmx_capture(p, false);
}

static char *format(struct tmx *p, const char *fmt)
{
    return tmx_format(p, fmt);
}

static void write_file(const char *name, const char *text, size_t len)
{
    ck_assert_uint_eq(strlen(text), len); /* plain text only */
    tmx_write_file(name, text);
}

/* A line for the shell, typed literally, then Enter. */
static void cmd(struct tmx *p, const char *line)
{
    free(tmx_sh("tmux -S %s send-keys -l '%s' && tmux -S %s send-keys Enter", p->sock, line,
                p->sock));
}

static bool skipped(void)
{
    return !tmx_ready();
}

/* The terminal as the shell had it: cursor shown, no mouse reports, normal screen. */
#define RESTORED "#{cursor_flag} #{mouse_any_flag} #{alternate_on}", "1 0 0"
#define EXPLORING "#{mouse_any_flag} #{alternate_on}", "1 1"

/* The explorer on the sample plan, from the shell; its first screen. */
static void explore(struct tmx *p, const char *args)
{
    char line[512];
    snprintf(line, sizeof line, "$SP %s", args);
    cmd(p, line);
    SEE(p, SHOWS("SortMergeJoin"), SHOWS("?:help"));
    tmx_wait_format(p, EXPLORING);
}

/* A shell whose explorer on plan.txt was just stopped with Ctrl-z. */
static void explore_then_stop(struct tmx *p, const char *name)
{
    open_shell(p, name, "");
    SEE(p, SHOWS("READY$"));
    explore(p, "plan.txt");
    tmx_keys(p, "C-z");
    SEE(p, SHOWS("Stopped"));
}

/* ---- fixtures --------------------------------------------------------------------------- */

static void setup(void)
{
    if (system("command -v bash >/dev/null 2>&1") != 0) {
        fprintf(stderr, "SKIP: bash not found; terminal reliability tests skipped\n");
        return;
    }
    if (!tmx_setup("relterm"))
        return;
    size_t len;
    char *plan = tu_read_file("samples/join-formatted.txt", &len);
    ck_assert_ptr_nonnull(plan);
    tmx_write_file("plan.txt", plan);
    free(plan);
}

static void teardown(void)
{
    tmx_teardown();
}

START_TEST(a_missing_term_is_said_and_exits_1)
{
    if (skipped())
        return;
    struct tmx p;
    open_shell(&p, "noterm", "");
    SEE(&p, SHOWS("READY$"));
    cmd(&p, "ulimit -c 0; (unset TERM; exec $SP plan.txt); echo EXIT=$?");
    SEE(&p, SHOWS("\nEXIT="));
    char *screen = capture(&p);
    ck_assert_msg(strstr(screen, "\nsparkplan: TERM is not set: cannot open the explorer\nEXIT=1\n"),
                  "the screen:\n%s", screen);
    free(screen);
    tmx_wait_format(&p, RESTORED);
    /* A terminal type that is an escape sequence is named, not sent.  (Not under the
       sanitizers: ncurses keeps its pre-screen after a failed newterm, a leak of its own.) */
    if (!getenv("SPARKPLAN_SANITIZED")) {
        cmd(&p, "clear; TERM=$(printf \"x\\033[2Jy\") $SP plan.txt; echo EXIT=$?");
        SEE(&p, SHOWS("sparkplan: unknown terminal type 'x^[[2Jy'"), SHOWS("EXIT=1"));
        tmx_wait_format(&p, RESTORED);
    }
    tmx_stop(&p);
}
END_TEST

/* Ctrl-z, bg: the job runs on in the background without touching the terminal (no modes
 * back on, no stop on output), and kill %1 ends it with 143. */
START_TEST(ctrl_z_then_bg_stays_quiet_and_kill_ends_it)
{
    if (skipped())
        return;
    struct tmx p;
    explore_then_stop(&p, "bg");
    tmx_wait_format(&p, RESTORED);
    cmd(&p, "bg");
    cmd(&p, "sleep 1; jobs");
    SEE(&p, SHOWS("Running"), LACKS("SortMergeJoin"));
    tmx_wait_format(&p, RESTORED);
    cmd(&p, "clear; kill %1; wait %1; echo EXIT=$?");
    SEE(&p, SHOWS("EXIT=143"));
    tmx_wait_format(&p, RESTORED);
    tmx_stop(&p);
}
END_TEST

/* kill %1 on the stopped explorer (bash sends SIGTERM, then SIGCONT): it ends with 143
 * without touching the terminal the shell has. */
START_TEST(ctrl_z_then_kill_ends_the_stopped_explorer)
{
    if (skipped())
        return;
    struct tmx p;
    explore_then_stop(&p, "stopkill");
    /* Not "wait %1": bash may still hold the job for stopped (148) or have reaped it already;
       its own report says how the job ended ("Exit 143"), at jobs or at the next prompt. */
    cmd(&p, "clear; kill %1; sleep 2; jobs");
    SEE(&p, SHOWS("Exit 143"));
    tmx_wait_format(&p, RESTORED);
    tmx_stop(&p);
}
END_TEST

/* kill -CONT wakes a stopped explorer in the background: quiet again; fg brings it back;
 * q then leaves with 0. */
START_TEST(kill_cont_in_the_background_stays_quiet_and_fg_resumes)
{
    if (skipped())
        return;
    struct tmx p;
    explore_then_stop(&p, "cont");
    cmd(&p, "kill -CONT %1; sleep 1; jobs");
    SEE(&p, SHOWS("Running"), LACKS("SortMergeJoin"));
    tmx_wait_format(&p, RESTORED);
    cmd(&p, "fg");
    SEE(&p, SHOWS("SortMergeJoin"), SHOWS("?:help"));
    tmx_wait_format(&p, EXPLORING);
    tmx_keys(&p, "j");
    SEE(&p, SHOWS("2/"));
    tmx_keys(&p, "q");
    tmx_wait_format(&p, RESTORED);
    cmd(&p, "echo EXIT=$?");
    SEE(&p, SHOWS("EXIT=0"));
    tmx_wait_format(&p, RESTORED);
    tmx_stop(&p);
}
END_TEST

/* The explorer killed by sig from another process: terminal restored, exit 128 + sig. */
static void killed_by(const char *name, const char *sig, const char *want_exit)
{
    struct tmx p;
    open_shell(&p, name, "");
    SEE(&p, SHOWS("READY$"));
    cmd(&p, "ulimit -c 0"); /* SIGQUIT: no core file left behind */
    explore(&p, "plan.txt");
    /* The explorer is the shell's only child: its pid from the process table. */
    char *pane_pid = format(&p, "#{pane_pid}");
    char *pid = tmx_sh("ps -o pid= --ppid %s | head -n 1", pane_pid);
    pid[strcspn(pid, "\n")] = '\0';
    ck_assert_msg(atoi(pid) > 0, "no explorer under %s", pane_pid);
    free(tmx_sh("kill -%s %s", sig, pid));
    tmx_wait_format(&p, RESTORED); /* then the keys are the shell's, not the explorer's */
    cmd(&p, "echo EXIT=$?");
    SEE(&p, SHOWS(want_exit));
    tmx_wait_format(&p, RESTORED);
    free(pane_pid);
    free(pid);
    tmx_stop(&p);
}

START_TEST(int_term_and_hup_restore_the_terminal_and_exit_128_plus_n)
{
    if (skipped())
        return;
    killed_by("sigint", "INT", "EXIT=130");
    killed_by("sigterm", "TERM", "EXIT=143");
    killed_by("sighup", "HUP", "EXIT=129");
}
END_TEST

START_TEST(sigquit_restores_the_terminal_then_quits_as_usual)
{
    if (skipped())
        return;
    killed_by("sigquit", "QUIT", "EXIT=131");
}
END_TEST

/* ---- the data on screen ----------------------------------------------------------------- */

START_TEST(bidi_controls_are_shown_by_name_in_the_explorer)
{
    if (skipped())
        return;
    const char plan[] = "== Physical Plan ==\n*(1) Filter (name#1 = evil\xe2\x80\xaetxt.exe)\n"
                        "+- *(1) Scan parquet t\xe2\x81\xa6[name#1]\n";
    write_file("bidi.txt", plan, sizeof plan - 1);
    struct tmx p;
    open_shell(&p, "bidi", "");
    SEE(&p, SHOWS("READY$"));
    cmd(&p, "$SP bidi.txt");
    SEE(&p, SHOWS("evil<U+202E>txt.exe"), SHOWS("t<U+2066>[name#1]"), SHOWS("?:help"));
    tmx_keys(&p, "q");
    tmx_stop(&p);
}
END_TEST

START_TEST(an_empty_paste_says_so)
{
    if (skipped())
        return;
    struct tmx p;
    open_shell(&p, "emptypaste", "");
    SEE(&p, SHOWS("READY$"));
    explore(&p, "plan.txt");
    tmx_send_bytes(&p, "\x1b[200~\x1b[201~");
    SEE(&p, SHOWS("empty paste: nothing to open"));
    tmx_keys(&p, "D");
    SEE(&p, SHOWS("Documents"), LACKS("paste 1"));
    tmx_keys(&p, "q q");
    tmx_wait_format(&p, RESTORED);
    cmd(&p, "echo EXIT=$?");
    SEE(&p, SHOWS("EXIT=0"));
    tmx_stop(&p);
}
END_TEST

/* SPARKPLAN_PASTE_MAX lowers the 64 MiB limit (a paste that big takes minutes in tmux). */
START_TEST(a_paste_over_the_limit_is_marked_and_said)
{
    if (skipped())
        return;
    size_t len;
    char *plan = tu_union_plan(60, false, "", &len);
    ck_assert_uint_gt(len, 3000);
    write_file("long.txt", plan, len);
    free(plan);
    struct tmx p;
    open_shell(&p, "longpaste", "SPARKPLAN_PASTE_MAX=2000");
    SEE(&p, SHOWS("READY$"));
    explore(&p, "plan.txt");
    free(tmx_sh("tmux -S %s load-buffer -b long %s/long.txt && tmux -S %s paste-buffer -p -b long",
            p.sock, tmx_dir(), p.sock));
    char want[96];
    snprintf(want, sizeof want, "paste cut at 2000 bytes: %zu bytes dropped", len - 2000);
    SEE(&p, SHOWS(want));
    tmx_keys(&p, "D");
    snprintf(want, sizeof want, "paste 1 [cut: %zu bytes dropped]", len - 2000);
    SEE(&p, SHOWS("Documents"), SHOWS(want));
    tmx_keys(&p, "q q");
    tmx_wait_format(&p, RESTORED);
    cmd(&p, "echo EXIT=$?");
    SEE(&p, SHOWS("EXIT=0"));
    tmx_stop(&p);
}
END_TEST

/* w starts a walk; a paste shows another document: the walk ends, and Space no longer
 * steps it. */
START_TEST(a_walk_ends_when_its_document_is_no_longer_shown)
{
    if (skipped())
        return;
    const char other[] = "== Physical Plan ==\n*(1) Project [q#1]\n+- *(1) Filter (q#1 > 0)\n"
                         "   +- FileScan parquet qq[q#1]\n";
    write_file("other.txt", other, sizeof other - 1);
    struct tmx p;
    open_shell(&p, "walk", "");
    SEE(&p, SHOWS("READY$"));
    explore(&p, "plan.txt");
    tmx_keys(&p, "w");
    SEE(&p, SHOWS("walk 1/"));
    free(tmx_sh("tmux -S %s load-buffer -b o %s/other.txt && tmux -S %s paste-buffer -p -b o",
            p.sock, tmx_dir(), p.sock));
    SEE(&p, SHOWS("paste 1: 3 nodes"), SHOWS("walk ended"), SHOWS("FileScan parquet qq"));
    tmx_keys(&p, "Space"); /* the tree's key again: it folds the root */
    SEE(&p, SHOWS("[+2] Project [q#1]"), LACKS("walk 2/"), LACKS("walk 1/"));
    tmx_keys(&p, "q");
    tmx_wait_format(&p, RESTORED);
    cmd(&p, "echo EXIT=$?");
    SEE(&p, SHOWS("EXIT=0"));
    tmx_stop(&p);
}
END_TEST

Suite *reliability_term_suite(void)
{
    Suite *s = suite_create("reliability_term");
    TCase *tc = tcase_create("tmux");
    tcase_add_unchecked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 240); /* a loaded machine; each wait gives up after 30 s */
    tcase_add_test(tc, a_missing_term_is_said_and_exits_1);
    tcase_add_test(tc, ctrl_z_then_bg_stays_quiet_and_kill_ends_it);
    tcase_add_test(tc, ctrl_z_then_kill_ends_the_stopped_explorer);
    tcase_add_test(tc, kill_cont_in_the_background_stays_quiet_and_fg_resumes);
    tcase_add_test(tc, int_term_and_hup_restore_the_terminal_and_exit_128_plus_n);
    tcase_add_test(tc, sigquit_restores_the_terminal_then_quits_as_usual);
    tcase_add_test(tc, bidi_controls_are_shown_by_name_in_the_explorer);
    tcase_add_test(tc, an_empty_paste_says_so);
    tcase_add_test(tc, a_paste_over_the_limit_is_marked_and_said);
    tcase_add_test(tc, a_walk_ends_when_its_document_is_no_longer_shown);
    suite_add_tcase(s, tc);
    return s;
}
