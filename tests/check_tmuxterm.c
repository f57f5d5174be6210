/* check_tmuxterm.c: the tmux harness of the terminal tests (see tmuxterm.h).  No suite
 * of its own. */
#include <check.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "testutil.h"
#include "tmuxterm.h"

static char dir[64]; /* the run directory: sockets, config, plan files */
static bool ready;

bool tmx_ready(void)
{
    return ready;
}

const char *tmx_dir(void)
{
    return dir;
}

char *tmx_sh(const char *fmt, ...)
{
    char cmd[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    int status = 0;
    char *out = tu_run(cmd, &status);
    return out ? out : strdup("");
}

void tmx_write_file(const char *name, const char *text)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* Where a sanitized binary writes its reports: dir/sanitizer.PID. */
const char *tmx_report_prefix(void)
{
    static char prefix[96];
    snprintf(prefix, sizeof prefix, "%s/sanitizer", dir);
    return prefix;
}

/* Start `sparkplan ARGS` (run from the run directory) in a W x H terminal. env: extra
 * environment ("NO_COLOR=1"), may be "". */
static void start_in(struct tmx *x, const char *conf, const char *name, int w, int h,
                     const char *env, const char *args, bool then_shell);

void tmx_start_cmd(struct tmx *x, const char *name, int w, int h, const char *env,
                   const char *args, bool then_shell)
{
    start_in(x, "tmux.conf", name, w, h, env, args, then_shell);
}

void tmx_start_conf(struct tmx *x, const char *conf, const char *name, int w, int h,
                    const char *env, const char *args)
{
    start_in(x, conf, name, w, h, env, args, false);
}

/* No user settings: XDG_CONFIG_HOME is the run directory's xdg-NAME, one per program
 * started (empty unless a test writes xdg-NAME/sparkplan/config): what one test keeps
 * (T, i) does not reach the next. */
static void start_in(struct tmx *x, const char *conf, const char *name, int w, int h,
                     const char *env, const char *args, bool then_shell)
{
    snprintf(x->sock, sizeof x->sock, "%s/%s.sock", dir, name);
    x->program = !then_shell;
    char san[512];
    tu_san_env(san, sizeof san, tmx_report_prefix());
    /* then_shell: the pane outlives the program and shows its exit status, so the
     * terminal's modes after the exit can be read from a live pane. */
    char *out =
        tmx_sh("cd %s && tmux -S %s -f %s/%s new-session -d -x %d -y %d "
               "'%senv -u NO_COLOR -u COLORFGBG -u SPARKPLAN_THEME TERM=xterm-256color "
               "LC_ALL=C.UTF-8 XDG_CONFIG_HOME=%s/xdg-%s %s %s %s %s%s' 2>&1",
               dir, x->sock, dir, conf, w, h, then_shell ? "" : "exec ", dir, name, san, env,
               tu_binary(), args,
               then_shell ? "; echo EXIT=$?; sleep 60" : "");
    ck_assert_msg(out[0] == '\0', "tmux failed: %s", out);
    free(out);
}

void tmx_start_shell(struct tmx *x, const char *name, int w, int h, const char *env)
{
    snprintf(x->sock, sizeof x->sock, "%s/%s.sock", dir, name);
    x->program = false;
    char san[512];
    tu_san_env(san, sizeof san, tmx_report_prefix());
    char *out = tmx_sh("cd %s && tmux -S %s -f %s/tmux.conf new-session -d -x %d -y %d "
                       "'exec env -u NO_COLOR -u COLORFGBG -u SPARKPLAN_THEME "
                       "TERM=xterm-256color LC_ALL=C.UTF-8 XDG_CONFIG_HOME=%s/xdg-%s %s %s "
                       "SP=%s PS1=READY\\$\\  bash --norc --noprofile -i' 2>&1",
                       dir, x->sock, dir, w, h, dir, name, san, env, tu_binary());
    ck_assert_msg(out[0] == '\0', "tmux failed: %s", out);
    free(out);
}

void tmx_start(struct tmx *x, const char *name, int w, int h, const char *env, const char *args)
{
    tmx_start_cmd(x, name, w, h, env, args, false);
}

char *tmx_capture(struct tmx *x, bool escapes)
{
    return tmx_sh("tmux -S %s capture-pane -p %s 2>/dev/null", x->sock, escapes ? "-e" : "");
}

char *tmx_format(struct tmx *x, const char *fmt)
{
    char *s = tmx_sh("tmux -S %s display-message -p '%s' 2>/dev/null", x->sock, fmt);
    s[strcspn(s, "\n")] = '\0';
    return s;
}

static void fail_if_gone(struct tmx *x, const char *screen);

struct screen_probe {
    struct tmx *x;
    bool escapes;
    const struct pw_cond *conds;
    char *last;
    const struct pw_cond *failed;
    double since;
};

/* A program that died (a sanitizer stopped it) draws nothing more: after a second without
 * the screen, the wait ends with its report or its last screen. */
static bool probe_screen(void *ctx)
{
    struct screen_probe *p = ctx;
    if (tu_san_reported(tmx_report_prefix()))
        tmx_fail_on_sanitizer_report(p->x);
    free(p->last);
    p->last = tmx_capture(p->x, p->escapes);
    p->failed = pw_unmet(p->last, p->conds);
    if (p->failed && pollwait_now() - p->since > 1.0)
        fail_if_gone(p->x, p->last);
    return p->failed == NULL;
}

/* Polls until every condition holds on one capture; returns that screen (the caller
 * frees it), so what the test asserts next is the state it waited for.  Fails the test
 * after POLLWAIT_SECONDS with the condition that never held and the last screen. */
char *tmx_wait_conds(struct tmx *x, bool escapes, const struct pw_cond *conds)
{
    struct screen_probe p = {x, escapes, conds, NULL, NULL, pollwait_now()};
    if (!pollwait(probe_screen, &p))
        ck_abort_msg("screen never %s '%s'%s%s (line %d); it shows:\n%s",
                     p.failed->absent ? "lost" : "showed", p.failed->text,
                     p.failed->row ? " on the line of " : "",
                     p.failed->row ? p.failed->row : "", p.failed->line_no - 1, p.last);
    return p.last;
}

/* Poll until needle shows (or stops showing, when gone); returns that capture. */
char *tmx_wait_screen(struct tmx *x, const char *needle, bool escapes, bool gone)
{
    struct pw_cond c[2] = {{NULL, needle, gone, 0}, {NULL, NULL, false, 0}};
    return tmx_wait_conds(x, escapes, c);
}

void tmx_wait_for(struct tmx *x, const char *needle)
{
    free(tmx_wait_screen(x, needle, false, false));
}

void tmx_keys(struct tmx *x, const char *k)
{
    free(tmx_sh("tmux -S %s send-keys %s", x->sock, k));
}

/* Raw bytes to the program, as a terminal would send them (mouse reports). */
void tmx_send_bytes(struct tmx *x, const char *bytes)
{
    char hex[1024];
    size_t n = 0;
    for (const unsigned char *p = (const unsigned char *)bytes; *p && n + 4 < sizeof hex; p++)
        n += (size_t)snprintf(hex + n, sizeof hex - n, " %02x", *p);
    free(tmx_sh("tmux -S %s send-keys -H%s", x->sock, hex));
}

struct format_probe {
    struct tmx *x;
    const char *fmt, *want;
    char *last;
};

static bool probe_format(void *ctx)
{
    struct format_probe *p = ctx;
    free(p->last);
    p->last = tmx_format(p->x, p->fmt);
    return strcmp(p->last, p->want) == 0;
}

/* Polls until tmux's format (terminal modes, pane state) reads want. */
void tmx_wait_format(struct tmx *x, const char *fmt, const char *want)
{
    struct format_probe p = {x, fmt, want, NULL};
    if (!pollwait(probe_format, &p))
        ck_abort_msg("%s never read '%s': '%s'", fmt, want, p.last);
    free(p.last);
}

struct exit_probe {
    struct tmx *x;
    char *last;
    int status;
};

static bool probe_exit(void *ctx)
{
    struct exit_probe *p = ctx;
    free(p->last);
    p->last = tmx_format(p->x, TU_PANE_EXIT);
    return tu_pane_exit(p->last, &p->status);
}

/* The exit status once the program is gone (remain-on-exit keeps the pane). */
int tmx_wait_exit(struct tmx *x)
{
    struct exit_probe p = {x, NULL, -1};
    if (!pollwait(probe_exit, &p))
        ck_abort_msg("the program did not end within %.0f s: '%s'", POLLWAIT_SECONDS, p.last);
    free(p.last);
    return p.status;
}

/* Fails the test when a sanitized program wrote a report (and clears it for the next),
 * once the program is over and the report whole. */
void tmx_fail_on_sanitizer_report(struct tmx *x)
{
    if (!tu_san_reported(tmx_report_prefix()))
        return;
    if (x->program)
        tmx_wait_exit(x);
    else
        sleep_ms(500); /* the shell's program: its end is not a pane state */
    tu_san_fail_on_report(tmx_report_prefix());
}

/* The program ended while the test waited for its screen: fail now, saying how.  (GCC's
 * UBSan writes its report to the terminal, whatever the log path: it is on the screen.) */
static void fail_if_gone(struct tmx *x, const char *screen)
{
    if (!x->program)
        return;
    char *st = tmx_format(x, "#{pane_dead}");
    bool dead = st[0] == '1';
    free(st);
    if (!dead)
        return;
    int status = tmx_wait_exit(x);
    tmx_fail_on_sanitizer_report(x);
    ck_abort_msg("the program ended with status %d before the screen came; it shows:\n%s",
                 status, screen);
}

/* Ends the test: the program, if still running, gets SIGTERM and must leave with status
 * 143 (128 + SIGTERM), or 0 when it had ended already (tmux may still call a pane alive a
 * moment after q); neither it nor any program the test ran may have written a sanitizer
 * report. */
void tmx_stop(struct tmx *x)
{
    if (x->program) {
        char *dead = tmx_format(x, "#{pane_dead} #{pane_pid}"); /* "0 PID" while it runs */
        if (dead[0] == '0')
            free(tmx_sh("kill -TERM %s 2>/dev/null", dead + 2));
        free(dead);
        int status = tmx_wait_exit(x);
        tmx_fail_on_sanitizer_report(x);
        if (status != 0 && status != 143) {
            char *s = tmx_capture(x, false);
            ck_abort_msg("the program exited with status %d; it shows:\n%s", status, s);
        }
    }
    tmx_fail_on_sanitizer_report(x);
    free(tmx_sh("tmux -S %s kill-server 2>/dev/null", x->sock));
}

bool tmx_setup(const char *name)
{
    ready = system("command -v tmux >/dev/null 2>&1") == 0;
    if (!ready) {
        fprintf(stderr, "SKIP: tmux not found; %s terminal tests skipped\n", name);
        return false;
    }
    snprintf(dir, sizeof dir, "/tmp/sparkplan-%.16s-XXXXXX", name);
    if (!mkdtemp(dir)) {
        ready = false;
        return false;
    }
    tmx_write_file("tmux.conf", "set -g remain-on-exit on\nset -g status off\n"
                                "set -g default-terminal xterm-256color\n");
    return true;
}

/* One entry of the scratch directory, removed after what it holds (FTW_DEPTH); the tmux
 * server of a socket stopped first. */
static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *at)
{
    (void)st;
    if (flag == FTW_DP) {
        (void)rmdir(path); /* what cannot go stays; the walk goes on */
        return 0;
    }
    if (strstr(path + at->base, ".sock"))
        free(tmx_sh("tmux -S %s kill-server 2>/dev/null", path));
    (void)unlink(path);
    return 0;
}

/* Runs in the parent once the tests are done, failed or not: no tmux server outlives the
 * run (each test also stops its own when it passes), and nothing the tests wrote is left in
 * /tmp: the scratch directory goes whole, with the directories tests made in it (a history
 * directory, a config home, a long path), which an unlink of each entry left behind. */
void tmx_teardown(void)
{
    if (!dir[0])
        return;
    (void)nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    dir[0] = '\0';
}
