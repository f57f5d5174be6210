/* tmuxterm: the one tmux harness of every terminal test suite (the explorer started alone, or from an interactive shell).
 *
 * Each test runs the binary as the only program of a private tmux server (its own socket
 * in the suite's run directory, no user configuration, remain-on-exit so the last screen
 * and the exit status can be read).  Waits poll the screen until what they look for holds
 * (pollwait.h), never read it once and hope.  A program that died (a sanitizer stopped it)
 * fails the wait at once with its report or its last screen.  tmx_stop ends the program as
 * a signal would (SIGTERM: the explorer leaves as on q) and fails unless it exits with
 * status 143 (128 + SIGTERM; 0 when it had ended) and without a sanitizer report.
 *
 * Owns the run directory (tmx_setup makes it, tmx_teardown kills every server in it and
 * removes it).  Every returned string is malloc'd: the caller frees it.
 */
#ifndef SPARKPLAN_TESTS_TMUXTERM_H
#define SPARKPLAN_TESTS_TMUXTERM_H

#include <stdbool.h>

#include "pollwait.h"

struct tmx {
    char sock[160];
    bool program;  /* the pane is the program itself (not a shell that runs it) */
};

/* Makes /tmp/sparkplan-NAME-XXXXXX with a tmux.conf; false (after a SKIP message) when
 * tmux is missing. */
bool tmx_setup(const char *name);
/* Kills every server of the run directory and removes it (also after a failed test). */
void tmx_teardown(void);
bool tmx_ready(void);
const char *tmx_dir(void);
/* Writes text to name in the run directory. */
void tmx_write_file(const char *name, const char *text);
/* Where a sanitized binary writes its reports: the run directory's sanitizer.PID. */
const char *tmx_report_prefix(void);
/* A shell command's output ("" when none). */
char *tmx_sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* `sparkplan ARGS` (run from the run directory) in a W x H UTF-8 terminal, with ENV
 * ("NAME=value ...", may be "") added; its config folder ($XDG_CONFIG_HOME) is the run
 * directory's xdg-NAME.  tmx_start_cmd with then_shell: the pane outlives
 * the program and shows its exit status, so the terminal's modes after the exit can be
 * read from a live pane. */
void tmx_start(struct tmx *x, const char *name, int w, int h, const char *env, const char *args);
void tmx_start_cmd(struct tmx *x, const char *name, int w, int h, const char *env,
                   const char *args, bool then_shell);

/* An interactive bash (prompt "READY$ ", $SP the binary) in a W x H UTF-8 terminal, in the
 * run directory, with ENV added: a test starts the explorer from it as people do (job
 * control, signals from the shell).  tmx_stop kills the server without judging an exit. */
void tmx_start_shell(struct tmx *x, const char *name, int w, int h, const char *env);

/* tmx_start with the run directory's tmux configuration file conf (a window-style that
 * sets the terminal's own colours, as a light or dark terminal has). */
void tmx_start_conf(struct tmx *x, const char *conf, const char *name, int w, int h,
                    const char *env, const char *args);

char *tmx_capture(struct tmx *x, bool escapes);          /* the screen (with -e escapes) */
char *tmx_format(struct tmx *x, const char *fmt);        /* a tmux format of the pane */
void tmx_keys(struct tmx *x, const char *keys);          /* tmux send-keys arguments */
void tmx_send_bytes(struct tmx *x, const char *bytes);   /* raw bytes (mouse reports) */

/* Polls until every condition holds on one capture; returns that screen, so what the test
 * asserts next is the state it waited for.  Fails the test after POLLWAIT_SECONDS with the
 * condition that never held and the last screen. */
char *tmx_wait_conds(struct tmx *x, bool escapes, const struct pw_cond *conds);
#define TMX_WAIT(x, esc, ...) tmx_wait_conds((x), (esc), PW_CONDS(__VA_ARGS__))
#define TMX_EXPECT(x, esc, ...) free(TMX_WAIT((x), (esc), __VA_ARGS__))
/* Until needle shows (or stops showing, when gone); returns that capture. */
char *tmx_wait_screen(struct tmx *x, const char *needle, bool escapes, bool gone);
void tmx_wait_for(struct tmx *x, const char *needle);
/* Until tmux's format (terminal modes, pane state) reads want. */
void tmx_wait_format(struct tmx *x, const char *fmt, const char *want);
/* The exit status once the program is gone. */
int tmx_wait_exit(struct tmx *x);
/* Fails the test when a sanitized program wrote a report (and clears it for the next). */
void tmx_fail_on_sanitizer_report(struct tmx *x);
/* Ends the test (see above) and kills the server. */
void tmx_stop(struct tmx *x);

#endif
