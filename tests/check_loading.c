/* The first screen before the whole load: a big plan file is shown from a preview of its
 * beginning while it loads (loadjob.h), and the terminal's background answer is applied
 * when it comes, never waited for (settings.h).
 *
 * core: the preview's rows are the whole document's, and it is refused where they would
 * not be; the load job.  tmux: the explorer's screen before and after the whole document
 * takes the preview's place (the load held back by SPARKPLAN_TEST_LOAD_GATE), a load that
 * fails, a quit during the load.  pty: a terminal of the test's own that answers the
 * background query late (tmux answers at once). */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "sparkplan/load.h"
#include "sparkplan/loadjob.h"
#include "sparkplan/rows.h"
#include "testutil.h"
#include "tmuxterm.h"

/* ---- plans -------------------------------------------------------------------------------- */

static void write_text(const char *path, const char *text, size_t len)
{
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(text, 1, len, f), len);
    ck_assert_int_eq(fclose(f), 0);
}

/* A simple-mode plan (codegen stages inline) of n Project / ColumnarToRow / FileScan
 * branches under one Union, each Project line padded to pass 4 MB at n = 14,000. */
static char *simple_plan(unsigned n, size_t *len)
{
    size_t cap = (size_t)n * 400 + 64, used = 0;
    char *text = malloc(cap);
    ck_assert_ptr_nonnull(text);
    used += (size_t)snprintf(text + used, cap - used, "== Physical Plan ==\nUnion\n");
    for (unsigned i = 1; i <= n; i++) {
        const char *b = i < n ? ":" : " ";
        used += (size_t)snprintf(text + used, cap - used,
                                 "%s- *(%u) Project [a#%u, b#%u, pad_%0200u]\n"
                                 "%s  +- *(%u) ColumnarToRow\n"
                                 "%s     +- FileScan parquet db.t%u[a#%u,b#%u] Batched: true\n",
                                 i < n ? ":" : "+", i, i, i, i, b, i, b, i, i, i);
    }
    *len = used;
    return text;
}

static const char *tmp_plan(const char *name, char *text, size_t len)
{
    const char *path = tu_tmp_write(name, text, len);
    free(text);
    return path;
}

/* tmp_plan of a plan made first (its length is known only then). */
#define TMP_PLAN(name, make) (text = (make), tmp_plan((name), text, len))

/* The first `want` visible rows of both documents' first sections: the same nodes (text,
 * depth, children) in the same order. */
static void assert_same_rows(struct document *a, struct document *b, unsigned want)
{
    struct rows ra, rb;
    ck_assert(rows_init(&ra, a->first_plan->first_section, NULL));
    ck_assert(rows_init(&rb, b->first_plan->first_section, NULL));
    const struct plan_node *x = rows_first(&ra), *y = rows_first(&rb);
    for (unsigned i = 0; i < want; i++) {
        ck_assert_msg(x && y, "row %u missing", i);
        ck_assert_msg(
            plan_node_text(x).len == plan_node_text(y).len &&
                memcmp(plan_node_text(x).ptr, plan_node_text(y).ptr, plan_node_text(x).len) == 0,
            "row %u: '%.*s' against '%.*s'", i, (int)plan_node_text(x).len, plan_node_text(x).ptr,
            (int)plan_node_text(y).len, plan_node_text(y).ptr);
        ck_assert_uint_eq(x->depth, y->depth);
        ck_assert_uint_eq(plan_node_preorder(x), plan_node_preorder(y));
        ck_assert_uint_eq(rows_has_children(&ra, x), rows_has_children(&rb, y));
        x = rows_next(&ra, x);
        y = rows_next(&rb, y);
    }
    rows_free(&ra);
    rows_free(&rb);
}

static void core_setup(void)
{
    tu_tmpdir_make("loading");
}

static void core_teardown(void)
{
    tu_tmpdir_remove();
}

START_TEST(a_preview_shows_the_rows_of_the_whole_plan)
{
    size_t len;
    char *text;
    /* formatted: the details (stages, the root's block) lie past the preview */
    const char *paths[2];
    paths[0] = TMP_PLAN("formatted.txt", tu_union_plan(40000, true, "", &len));
    ck_assert_uint_gt(len, LOADJOB_MIN_BYTES);
    paths[1] = TMP_PLAN("simple.txt", simple_plan(14000, &len));
    ck_assert_uint_gt(len, LOADJOB_MIN_BYTES);
    for (int i = 0; i < 2; i++) {
        ck_assert(loadjob_wanted(paths[i]));
        struct document *preview = loadjob_preview(paths[i]), *whole = NULL;
        struct diag err = {0};
        ck_assert_ptr_nonnull(preview);
        ck_assert_int_eq(load_path(paths[i], &whole, &err), SP_OK);
        ck_assert_uint_lt(preview->src.len, whole->src.len); /* a preview, cut */
        ck_assert_uint_le(preview->src.len, LOADJOB_PREVIEW_BYTES);
        ck_assert_uint_lt(preview->n_all_nodes, whole->n_all_nodes);
        assert_same_rows(preview, whole, 500);
        document_free(preview);
        document_free(whole);
    }
}
END_TEST

START_TEST(a_preview_is_refused_where_it_would_show_something_else)
{
    size_t len;
    char *text;
    ck_assert(!loadjob_wanted("-"));
    ck_assert(!loadjob_wanted(tu_tmpdir())); /* a directory */
    /* past the input limit: its message at once, never a glimpse of it */
    const char *huge = TMP_PLAN("huge.txt", simple_plan(14000, &len));
    ck_assert(loadjob_wanted(huge));
    load_set_limits(len - 1, 0);
    ck_assert(!loadjob_wanted(huge));
    load_set_limits(0, 0);
    ck_assert(loadjob_wanted(huge));
    /* under 4 MB: loaded before the first screen, as always */
    ck_assert(!loadjob_wanted(TMP_PLAN("small.txt", tu_union_plan(1000, true, "", &len))));
    /* a first section of fewer nodes than the gutter probe reads, then more plans */
    char *small = tu_union_plan(1000, false, "", &len);
    size_t small_len = len;
    char *big = simple_plan(14000, &len);
    char *both = malloc(small_len + len + 2);
    ck_assert_ptr_nonnull(both);
    memcpy(both, small, small_len);
    memcpy(both + small_len, "\n\n", 2);
    memcpy(both + small_len + 2, big, len);
    const char *two = tmp_plan("two.txt", both, small_len + 2 + len);
    ck_assert(loadjob_wanted(two));
    ck_assert_ptr_null(loadjob_preview(two));
    free(small);
    /* an adaptive plan: its Final and Initial tabs may lie past the cut */
    const char *head = "== Physical Plan ==\nAdaptiveSparkPlan isFinalPlan=false\n+- ";
    char *aqe = malloc(strlen(head) + len);
    ck_assert_ptr_nonnull(aqe);
    memcpy(aqe, head, strlen(head));
    /* the simple plan's Union (after its header line) under the AdaptiveSparkPlan */
    const char *tree = strstr(big, "Union\n");
    size_t tree_len = len - (size_t)(tree - big);
    memcpy(aqe + strlen(head), tree, tree_len);
    const char *adaptive = tmp_plan("adaptive.txt", aqe, strlen(head) + tree_len);
    free(big);
    ck_assert(loadjob_wanted(adaptive));
    struct document *whole = NULL;
    struct diag err = {0};
    ck_assert_int_eq(load_path(adaptive, &whole, &err), SP_OK);
    ck_assert(whole->first_plan->adaptive); /* what the refusal is about */
    document_free(whole);
    ck_assert_ptr_null(loadjob_preview(adaptive));
    /* no line end in the first MB */
    char *line = malloc(LOADJOB_MIN_BYTES);
    ck_assert_ptr_nonnull(line);
    memset(line, 'x', LOADJOB_MIN_BYTES);
    ck_assert_ptr_null(loadjob_preview(tmp_plan("line.txt", line, LOADJOB_MIN_BYTES)));
}
END_TEST

START_TEST(the_load_job_gives_the_whole_document_and_a_held_one_is_given_up)
{
    size_t len;
    char *text;
    const char *path = TMP_PLAN("job.txt", simple_plan(14000, &len));
    struct loadjob j;
    ck_assert(loadjob_start(&j, path));
    ck_assert_int_ge(loadjob_wake_fd(&j), 0);
    struct pollfd pfd = {loadjob_wake_fd(&j), POLLIN, 0};
    ck_assert_int_eq(poll(&pfd, 1, 60000), 1); /* the wake-up comes when it is loaded */
    struct document *doc = NULL;
    struct diag err = {0};
    ck_assert_int_eq(loadjob_finish(&j, &doc, &err), SP_OK);
    ck_assert_ptr_nonnull(doc);
    ck_assert_uint_eq(doc->n_all_nodes, 1 + 3 * 14000u);
    ck_assert_int_eq(loadjob_wake_fd(&j), -1);
    loadjob_free(&j);
    /* held by the tests' gate, which never opens: finishing gives it up at once */
    char gate[512];
    snprintf(gate, sizeof gate, "%s/never", tu_tmpdir());
    setenv("SPARKPLAN_TEST_LOAD_GATE", gate, 1);
    ck_assert(loadjob_start(&j, path));
    unsetenv("SPARKPLAN_TEST_LOAD_GATE");
    ck_assert_int_eq(loadjob_finish(&j, &doc, &err), SP_ERR_CANCELLED);
    ck_assert_ptr_null(doc);
    loadjob_free(&j);
}
END_TEST

/* ---- the explorer in tmux -------------------------------------------------------------- */

static void tmux_setup(void)
{
    tmx_setup("loading");
}

static void tmux_teardown(void)
{
    tmx_teardown();
}

/* The tree pane of a capture: each body line (not the header's two, not the status line)
 * up to the details pane's border (the last "│": the pane's plan has none in its text). */
static char *tree_pane(const char *screen)
{
    size_t len = strlen(screen);
    char *out = malloc(len + 1);
    ck_assert_ptr_nonnull(out);
    size_t n = 0;
    const char *line = strchr(screen, '\n');
    line = line ? strchr(line + 1, '\n') : NULL;
    ck_assert_ptr_nonnull(line);
    for (line++; *line;) {
        const char *end = strchr(line, '\n');
        if (!end || !end[1])
            break; /* the last line: the status */
        const char *stop = end; /* the border: the line's last "│" (the guides come first) */
        for (const char *c = line; c + 3 <= end; c++)
            if (memcmp(c, "\xE2\x94\x82", 3) == 0)
                stop = c;
        memcpy(out + n, line, (size_t)(stop - line));
        n += (size_t)(stop - line);
        out[n++] = '\n';
        line = end + 1;
    }
    out[n] = '\0';
    return out;
}

static void write_big_plan(char *path, size_t cap)
{
    size_t len;
    char *text = tu_union_plan(40000, true, "", &len);
    snprintf(path, cap, "%s/big.txt", tmx_dir());
    write_text(path, text, len);
    free(text);
}

/* The rows of the screen before (a preview: LINE_SHOWS "loading…") and after the whole plan
 * came in are the same; fails with both screens in the run directory otherwise. */
static void assert_same_tree_pane(const char *before, const char *after)
{
    char *a = tree_pane(before), *b = tree_pane(after);
    if (strcmp(a, b) != 0) {
        tmx_write_file("rows-preview.txt", before);
        tmx_write_file("rows-whole.txt", after);
    }
    ck_assert_msg(strcmp(a, b) == 0, "the rows changed when the whole plan came in: see "
                  "rows-preview.txt and rows-whole.txt in %s", tmx_dir());
    free(a);
    free(b);
}

START_TEST(a_big_plan_shows_its_beginning_at_once_then_all_of_it)
{
    if (!tmx_ready())
        return;
    char path[256], gate[256], env[600];
    write_big_plan(path, sizeof path);
    snprintf(gate, sizeof gate, "%s/gate-big", tmx_dir());
    /* the analysis held back too: its marks would widen the gutter */
    snprintf(env, sizeof env, "SPARKPLAN_TEST_LOAD_GATE=%s SPARKPLAN_TEST_ANALYSIS_GATE=%s/never",
             gate, tmx_dir());
    struct tmx x;
    tmx_start(&x, "big", 130, 30, env, "big.txt");
    char *before = TMX_WAIT(&x, false, LINE_SHOWS(1, "loading\xE2\x80\xA6"),
                            SHOWS("Union (40001)"), SHOWS("Scan parquet t1 (1)"),
                            SHOWS("loading\xE2\x80\xA6  Physical \xC2\xB7 1/\xE2\x80\xA6  ?:help"),
                            LACKS("40001 nodes"));
    tmx_keys(&x, "j j"); /* they wait for the whole plan, then move */
    free(tmx_sh("touch %s", gate));
    char *after = TMX_WAIT(&x, false, LACKS("loading"), SHOWS("40001 nodes"),
                           SHOWS("Physical \xC2\xB7 3/40001"), SHOWS("(2) Scan parquet t2"));
    assert_same_tree_pane(before, after);
    free(before);
    free(after);
    tmx_stop(&x);
}
END_TEST

/* Simple mode prints each node's codegen stage on its line: the preview's stage gutter is
 * the whole plan's too, and so is the selected node's stage on the status line. */
START_TEST(a_big_simple_plan_shows_its_stages_from_the_start)
{
    if (!tmx_ready())
        return;
    size_t len;
    char *text = simple_plan(14000, &len);
    char path[256], gate[256], env[600];
    snprintf(path, sizeof path, "%s/simple.txt", tmx_dir());
    write_text(path, text, len);
    free(text);
    snprintf(gate, sizeof gate, "%s/gate-simple", tmx_dir());
    snprintf(env, sizeof env, "SPARKPLAN_TEST_LOAD_GATE=%s SPARKPLAN_TEST_ANALYSIS_GATE=%s/never",
             gate, tmx_dir());
    struct tmx x;
    tmx_start(&x, "simple", 130, 30, env, "simple.txt");
    tmx_wait_for(&x, "Union");
    tmx_keys(&x, "j"); /* waits for the whole plan */
    char *before = TMX_WAIT(&x, false, LINE_SHOWS(1, "loading\xE2\x80\xA6"),
                            SHOWS("\n  1 \xE2\x94\x9C\xE2\x94\x80\xE2\x96\xBE Project [a#1"),
                            SHOWS("\n  3 \xE2\x94\x9C\xE2\x94\x80\xE2\x96\xBE Project [a#3"));
    free(tmx_sh("touch %s", gate));
    char *after = TMX_WAIT(&x, false, LACKS("loading"), SHOWS("42001 nodes"),
                           SHOWS(" Project  stage *(1)"), SHOWS("Physical \xC2\xB7 2/42001"));
    assert_same_tree_pane(before, after);
    free(before);
    free(after);
    tmx_stop(&x);
}
END_TEST

START_TEST(a_big_plan_that_fails_to_load_ends_with_its_message)
{
    if (!tmx_ready())
        return;
    char path[256], gate[256], env[300];
    write_big_plan(path, sizeof path);
    snprintf(gate, sizeof gate, "%s/gate-fail", tmx_dir());
    snprintf(env, sizeof env, "SPARKPLAN_TEST_LOAD_GATE=%s", gate);
    struct tmx x;
    tmx_start_cmd(&x, "fail", 100, 30, env, "big.txt", true);
    tmx_wait_for(&x, "Union (40001)");
    /* the file changes under the load: the whole of it holds no plan */
    free(tmx_sh("printf 'no plan here\\n' > %s && touch %s", path, gate));
    TMX_EXPECT(&x, false, SHOWS("sparkplan: big.txt: no Spark plan found"), SHOWS("EXIT=2"),
               LACKS("Union (40001)"));
    tmx_wait_format(&x, "#{alternate_on} #{mouse_any_flag}", "0 0"); /* the terminal is back */
    tmx_fail_on_sanitizer_report(&x);
    tmx_stop(&x);
}
END_TEST

START_TEST(quit_during_the_load_ends_at_once)
{
    if (!tmx_ready())
        return;
    char path[256], env[300];
    write_big_plan(path, sizeof path);
    snprintf(env, sizeof env, "SPARKPLAN_TEST_LOAD_GATE=%s/never", tmx_dir());
    struct tmx x;
    tmx_start(&x, "quit", 100, 30, env, "big.txt");
    tmx_wait_for(&x, "Union (40001)");
    tmx_keys(&x, "q");
    ck_assert_int_eq(tmx_wait_exit(&x), 0);
    tmx_fail_on_sanitizer_report(&x);
    tmx_stop(&x);
}
END_TEST

/* ---- a terminal that answers late ---------------------------------------------------- */

struct pty_run {
    int master;
    pid_t pid;
    char out[1 << 18];
    size_t len;
};

/* sparkplan ARGS on a pseudo-terminal of the test's own (100 x 30), without COLORFGBG,
 * SPARKPLAN_THEME or a config: the theme is the terminal's to choose. */
static void pty_start(struct pty_run *p, const char *plan)
{
    memset(p, 0, sizeof *p);
    p->master = posix_openpt(O_RDWR | O_NOCTTY);
    ck_assert_int_ge(p->master, 0);
    ck_assert_int_eq(grantpt(p->master), 0);
    ck_assert_int_eq(unlockpt(p->master), 0);
    char *name = ptsname(p->master);
    ck_assert_ptr_nonnull(name);
    char slave_name[128];
    snprintf(slave_name, sizeof slave_name, "%s", name);
    char xdg[512];
    snprintf(xdg, sizeof xdg, "%s/xdg-late", tu_tmpdir());
    p->pid = fork();
    ck_assert_int_ge(p->pid, 0);
    if (p->pid == 0) {
        setsid();
        int s = open(slave_name, O_RDWR);
        if (s < 0)
            _exit(126);
        ioctl(s, TIOCSCTTY, 0);
        struct winsize ws = {30, 100, 0, 0};
        ioctl(s, TIOCSWINSZ, &ws);
        dup2(s, 0), dup2(s, 1), dup2(s, 2);
        if (s > 2)
            close(s);
        unsetenv("COLORFGBG");
        unsetenv("SPARKPLAN_THEME");
        unsetenv("NO_COLOR");
        setenv("TERM", "xterm-256color", 1);
        setenv("LC_ALL", "C.UTF-8", 1);
        setenv("XDG_CONFIG_HOME", xdg, 1);
        execl(tu_binary(), "sparkplan", plan, (char *)NULL);
        _exit(127);
    }
}

/* Reads what the explorer writes until needle shows after byte `from` (30 s at most). */
static bool pty_wait(struct pty_run *p, size_t from, const char *needle)
{
    struct timespec t0, now;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) { /* bounded by the 30 s */
        p->out[p->len] = '\0';
        if (from <= p->len && strstr(p->out + from, needle))
            return true;
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (now.tv_sec - t0.tv_sec > 30 || p->len + 1 >= sizeof p->out)
            return false;
        struct pollfd pfd = {p->master, POLLIN, 0};
        if (poll(&pfd, 1, 100) > 0) {
            ssize_t n = read(p->master, p->out + p->len, sizeof p->out - 1 - p->len);
            if (n <= 0)
                return false;
            p->len += (size_t)n;
        }
    }
}

static void pty_send(struct pty_run *p, const char *bytes)
{
    ck_assert_int_eq(write(p->master, bytes, strlen(bytes)), (ssize_t)strlen(bytes));
}

static int pty_exit(struct pty_run *p)
{
    int status = 0;
    for (int i = 0; i < 3000; i++) { /* 30 s; the output is read meanwhile */
        if (waitpid(p->pid, &status, WNOHANG) == p->pid) {
            close(p->master);
            return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        }
        char buf[4096];
        struct pollfd pfd = {p->master, POLLIN, 0};
        if (poll(&pfd, 1, 10) > 0 && read(p->master, buf, sizeof buf) < 0) {
            struct timespec ts = {0, 10000000L}; /* the terminal hung up: it is ending */
            nanosleep(&ts, NULL);
        }
    }
    kill(p->pid, SIGKILL);
    waitpid(p->pid, &status, 0);
    close(p->master);
    return -1;
}

#define DARK_HEADER "48;5;237m"
#define LIGHT_HEADER "48;5;253m"
static const char small_plan[] = "== Physical Plan ==\n"
                                 "*(2) Project [a#1]\n"
                                 "+- Exchange hashpartitioning(a#1, 200)\n"
                                 "   +- *(1) Filter isnotnull(a#1)\n"
                                 "      +- *(1) ColumnarToRow\n"
                                 "         +- FileScan parquet db.t[a#1]\n";

/* The first frame comes before the answer (dark, the default), the answer (ended by BEL,
 * which libtermkey alone would wait past) turns it light, and a key right behind it works. */
START_TEST(a_late_background_answer_turns_the_theme_and_the_keys_after_it_work)
{
    const char *plan = tu_tmp_write("late.txt", small_plan, strlen(small_plan));
    static struct pty_run p;
    pty_start(&p, plan);
    ck_assert_msg(pty_wait(&p, 0, "\033]11;?"), "no background query:\n%s", p.out);
    ck_assert_msg(pty_wait(&p, 0, DARK_HEADER), "no first frame before the answer");
    ck_assert(pty_wait(&p, 0, "FileScan parquet db.t"));
    size_t mark = p.len;
    pty_send(&p, "\033]11;rgb:ffff/ffff/ffff\007\033[?64;1;2c");
    ck_assert_msg(pty_wait(&p, mark, LIGHT_HEADER), "the late answer was not applied");
    mark = p.len;
    pty_send(&p, "j"); /* the selection moves to the Exchange: its word on the status line */
    ck_assert(pty_wait(&p, mark, "Exchange"));
    pty_send(&p, "q");
    ck_assert_int_eq(pty_exit(&p), 0);
}
END_TEST

/* An answer cut between two reads, with a key behind it in the second: the answer is taken
 * whole (it turns the theme) and the key (q) is a key. */
START_TEST(an_answer_cut_in_two_is_taken_whole)
{
    const char *plan = tu_tmp_write("cut.txt", small_plan, strlen(small_plan));
    static struct pty_run p;
    pty_start(&p, plan);
    ck_assert(pty_wait(&p, 0, "FileScan parquet db.t"));
    size_t mark = p.len;
    pty_send(&p, "\033]11;rgb:ff");
    struct timespec ts = {0, 100000000L};
    nanosleep(&ts, NULL);
    pty_send(&p, "ff/ffff/ffff\033\\\033[?1;2c");
    ck_assert_msg(pty_wait(&p, mark, LIGHT_HEADER), "the cut answer was not applied");
    pty_send(&p, "q");
    ck_assert_int_eq(pty_exit(&p), 0);
}
END_TEST

/* A terminal that never answers (the query stays open): "ESC [" alone, which could begin an
 * answer, is held only half a second, then taken as keys (Alt-[), so a key a second later
 * is a key of its own (held on, the two would make one CSI sequence and q would be lost). */
START_TEST(the_beginning_of_an_answer_that_never_ends_is_keys)
{
    const char *plan = tu_tmp_write("never.txt", small_plan, strlen(small_plan));
    static struct pty_run p;
    pty_start(&p, plan);
    ck_assert(pty_wait(&p, 0, "FileScan parquet db.t"));
    pty_send(&p, "\033[");
    struct timespec ts = {1, 0};
    nanosleep(&ts, NULL);
    pty_send(&p, "q");
    ck_assert_int_eq(pty_exit(&p), 0);
}
END_TEST

Suite *loading_suite(void)
{
    Suite *s = suite_create("loading");
    TCase *core = tcase_create("core");
    tcase_add_checked_fixture(core, core_setup, core_teardown);
    tcase_set_timeout(core, 120);
    tcase_add_test(core, a_preview_shows_the_rows_of_the_whole_plan);
    tcase_add_test(core, a_preview_is_refused_where_it_would_show_something_else);
    tcase_add_test(core, the_load_job_gives_the_whole_document_and_a_held_one_is_given_up);
    suite_add_tcase(s, core);
    TCase *pty = tcase_create("pty");
    tcase_add_checked_fixture(pty, core_setup, core_teardown);
    tcase_set_timeout(pty, 120);
    tcase_add_test(pty, a_late_background_answer_turns_the_theme_and_the_keys_after_it_work);
    tcase_add_test(pty, an_answer_cut_in_two_is_taken_whole);
    tcase_add_test(pty, the_beginning_of_an_answer_that_never_ends_is_keys);
    suite_add_tcase(s, pty);
    TCase *tc = tcase_create("tmux");
    tcase_add_unchecked_fixture(tc, tmux_setup, tmux_teardown);
    tcase_set_timeout(tc, 240); /* a loaded machine; each wait gives up after 30 s */
    tcase_add_test(tc, a_big_plan_shows_its_beginning_at_once_then_all_of_it);
    tcase_add_test(tc, a_big_simple_plan_shows_its_stages_from_the_start);
    tcase_add_test(tc, a_big_plan_that_fails_to_load_ends_with_its_message);
    tcase_add_test(tc, quit_during_the_load_ends_at_once);
    suite_add_tcase(s, tc);
    return s;
}
