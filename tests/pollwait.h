/* pollwait: waiting for a terminal (tmux) to show something, for the e2e suites.
 *
 * A loaded CI machine (2 cores, several suites) can take seconds to draw a screen, and a
 * screen can be read half drawn.  So a test never reads a screen once and asserts on it:
 * it polls until the whole state it expects is there, with a generous deadline.  On an
 * idle machine the first tries succeed: the polls start a few milliseconds apart and only
 * slow down (to 100 ms) when the answer is late.
 * Conditions say what a screen must show, all at once; a wait polls until they hold.
 * Header-only (static inline); pw_line's result is the caller's to free.
 */
#ifndef SPARKPLAN_POLLWAIT_H
#define SPARKPLAN_POLLWAIT_H

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* How long a test waits for a screen before it fails. */
#define POLLWAIT_SECONDS 30.0

static inline double pollwait_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Calls probe(ctx) until it returns true (then true) or the deadline passes (false, after
 * one last try). */
static inline bool pollwait(bool (*probe)(void *ctx), void *ctx)
{
    double deadline = pollwait_now() + POLLWAIT_SECONDS;
    long pause_ms = 5;
    for (;;) { /* bounded by the deadline */
        if (probe(ctx))
            return true;
        if (pollwait_now() > deadline)
            return probe(ctx);
        struct timespec ts = {0, pause_ms * 1000000L};
        nanosleep(&ts, NULL);
        if (pause_ms < 100)
            pause_ms += pause_ms / 2 + 1;
    }
}

/* The screen line holding needle (malloc'd; empty when absent). */
static inline char *pw_line(const char *screen, const char *needle)
{
    const char *at = strstr(screen, needle);
    if (!at)
        return strdup("");
    const char *b = at, *e = at;
    while (b > screen && b[-1] != '\n')
        b--;
    while (*e && *e != '\n')
        e++;
    return strndup(b, (size_t)(e - b));
}

/* The n-th line of a screen (0-based), malloc'd; empty past the end. */
static inline char *pw_line_no(const char *screen, int n)
{
    for (; n > 0 && screen; n--) {
        screen = strchr(screen, '\n');
        if (screen)
            screen++;
    }
    if (!screen)
        return strdup("");
    return strndup(screen, strcspn(screen, "\n"));
}

/* One thing the screen must show: text anywhere, or on the line holding row, or on screen
 * line line_no - 1; with absent, text must not be there (and the row must be).  Lists
 * end with a NULL text. */
struct pw_cond {
    const char *row;
    const char *text;
    bool absent;
    int line_no;  /* 1-based; 0: not a line condition */
};
#define SHOWS(s) {NULL, (s), false, 0}
#define LACKS(s) {NULL, (s), true, 0}
#define ROW_SHOWS(r, s) {(r), (s), false, 0}
#define ROW_LACKS(r, s) {(r), (s), true, 0}
#define LINE_SHOWS(n, s) {NULL, (s), false, (n) + 1} /* n: 0-based screen line */
#define PW_CONDS(...) ((const struct pw_cond[]){__VA_ARGS__, {NULL, NULL, false, 0}})

static inline bool pw_holds(const char *screen, const struct pw_cond *c)
{
    if (!c->row && !c->line_no)
        return (strstr(screen, c->text) != NULL) != c->absent;
    char *line = c->row ? pw_line(screen, c->row) : pw_line_no(screen, c->line_no - 1);
    bool ok = (line[0] || c->line_no) && (strstr(line, c->text) != NULL) != c->absent;
    free(line);
    return ok;
}

/* The first condition the screen does not meet, or NULL. */
static inline const struct pw_cond *pw_unmet(const char *screen, const struct pw_cond *conds)
{
    for (const struct pw_cond *c = conds; c->text; c++)
        if (!pw_holds(screen, c))
            return c;
    return NULL;
}

#endif
