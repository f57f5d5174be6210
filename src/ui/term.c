/* term.c: tty choice, signals, curses start/stop, modes, suspend (see term.h and
 * shared/docs/tui-recipe.md for the ownership decisions). */
#include "sparkplan/term.h"

#include <curses.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <langinfo.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <term.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "sparkplan/input.h"
#include "sparkplan/theme.h"

static struct {
    int fd;              /* tty fd: keys are read and mode escapes written here */
    FILE *in, *out;      /* curses' streams */
    FILE *tty;           /* /dev/tty when we opened it */
    SCREEN *scr;
    int pipe_rd, pipe_wr;
    bool utf8;
    bool screen_up;      /* curses running (between start and close / suspend) */
    bool left;           /* suspended: the screen was left, and is re-entered only in the
                            terminal's foreground (a job continued in the background by bg or
                            kill -CONT stays quiet: no output, no tty reads) */
    bool modes_on;
    bool opened;
    int quit_sig;        /* the signal that ends the explorer (SIGINT, SIGTERM, ...), or 0 */
    long asked_ms;       /* when the background query went out (term_ask_background) */
} T = {.fd = -1, .pipe_rd = -1, .pipe_wr = -1};

static const int caught[] = {SIGWINCH, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCONT, SIGTSTP};

/* Only async-signal-safe work: one byte into the pipe. */
static void on_signal(int sig)
{
    int saved = errno;
    unsigned char b = (unsigned char)sig;
    if (T.pipe_wr >= 0) {
        ssize_t w = write(T.pipe_wr, &b, 1);
        (void)w; /* a full pipe already holds a wake-up */
    }
    errno = saved;
}

static void install(int sig)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    sigaction(sig, &sa, NULL);
}

static void write_all(const char *s);

static void set_nonblock_cloexec(int fd)
{
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    fcntl(fd, F_SETFD, FD_CLOEXEC);
}

bool term_open(bool force_dev_tty, char *err, size_t errcap)
{
    /* libtermkey (through unibilium) aborts without a terminal type: say it first. */
    const char *type = getenv("TERM");
    if (!type || !*type) {
        snprintf(err, errcap, "TERM is not set: cannot open the explorer");
        return false;
    }
    T.utf8 = strcmp(nl_langinfo(CODESET), "UTF-8") == 0;
    if (!force_dev_tty && isatty(STDIN_FILENO) && isatty(STDOUT_FILENO)) {
        T.fd = STDIN_FILENO;
        T.in = stdin;
        T.out = stdout;
    } else {
        T.tty = fopen("/dev/tty", "r+");
        if (!T.tty) {
            snprintf(err, errcap, "no terminal for the explorer: /dev/tty: %s (use --print)",
                     strerror(errno));
            return false;
        }
        T.fd = fileno(T.tty);
        fcntl(T.fd, F_SETFD, FD_CLOEXEC);
        T.in = T.out = T.tty;
    }
    int p[2];
    if (pipe(p) != 0) {
        snprintf(err, errcap, "pipe: %s", strerror(errno));
        return false;
    }
    set_nonblock_cloexec(p[0]);
    set_nonblock_cloexec(p[1]);
    T.pipe_rd = p[0];
    T.pipe_wr = p[1];
    /* Before newterm(): curses installs its own handlers only where the disposition is
     * SIG_DFL, and its SIGINT one would exit without our cleanup. */
    for (size_t i = 0; i < sizeof caught / sizeof caught[0]; i++)
        install(caught[i]);
    signal(SIGPIPE, SIG_IGN);
    T.opened = true;
    atexit(term_close);
    return true;
}

/* COLORFGBG ("15;0", "0;default;15"): its last field is the background's colour number. */
static enum theme_bg colorfgbg(void)
{
    const char *v = getenv("COLORFGBG");
    const char *last = v ? strrchr(v, ';') : NULL;
    if (!last || !last[1] || last[1] < '0' || last[1] > '9')
        return THEME_BG_UNKNOWN;
    int bg = atoi(last + 1);
    return bg == 7 || (bg >= 9 && bg <= 15) ? THEME_BG_LIGHT : THEME_BG_DARK;
}

/* How long after the background query the explorer may wait, as it ends, for the answers
 * still to come (they would land on the shell's command line): a terminal on this machine
 * answers in a few milliseconds, one over ssh in a round trip. */
#define ANSWER_GRACE_MS 300

int term_background(void)
{
    return T.fd < 0 ? THEME_BG_UNKNOWN : colorfgbg();
}

static long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

/* The background (OSC 11) query, followed by a device-attributes query (DA1) that every
 * terminal answers, after its OSC 11 answer: the key reader takes both answers out of the
 * input (input_expect_answers) and the explorer applies the first when it comes.  Curses
 * has the tty in raw mode without echo by now, so no answer shows on screen. */
bool term_ask_background(void)
{
    const char *term = getenv("TERM");
    if (T.fd < 0 || !isatty(T.fd) || !term || strcmp(term, "dumb") == 0 ||
        strncmp(term, "vt", 2) == 0)
        return false;
    static const char q[] = "\033]11;?\033\\\033[c";
    input_expect_answers();
    write_all(q);
    T.asked_ms = now_ms();
    return true;
}

bool term_start_screen(char *err, size_t errcap)
{
    T.scr = newterm(NULL, T.out, T.in);
    if (!T.scr) {
        const char *t = getenv("TERM");
        snprintf(err, errcap, "unknown terminal type '%s'", t ? t : "");
        return false;
    }
    set_term(T.scr);
    raw();
    noecho();
    nonl();
    intrflush(stdscr, FALSE);
    keypad(stdscr, TRUE);
    curs_set(0);
    T.screen_up = true;
    term_resize();
    return true;
}

int term_fd(void)
{
    return T.left ? -1 : T.fd; /* poll() skips -1: a background job never reads the tty */
}

bool term_shown(void)
{
    return T.screen_up && !T.left;
}

int term_quit_signal(void)
{
    return T.quit_sig;
}

/* Is this process in the terminal's foreground process group (may it write and read)? */
static bool in_foreground(void)
{
    pid_t fg = tcgetpgrp(T.fd);
    return fg < 0 || fg == getpgrp(); /* unknown: as before, assume it is */
}

int term_signal_fd(void)
{
    return T.pipe_rd;
}

bool term_utf8(void)
{
    return T.utf8;
}

unsigned term_take_signals(void)
{
    unsigned mask = 0;
    unsigned char buf[64];
    ssize_t n;
    while ((n = read(T.pipe_rd, buf, sizeof buf)) > 0) {
        for (ssize_t i = 0; i < n; i++) {
            switch (buf[i]) {
            case SIGWINCH:
                mask |= TERM_SIG_RESIZE;
                break;
            case SIGTSTP:
                mask |= TERM_SIG_SUSPEND;
                break;
            case SIGCONT:
            case SIGALRM: /* suspended in the background: time to look again (fg) */
                mask |= TERM_SIG_CONT;
                break;
            default:
                mask |= TERM_SIG_QUIT;
                if (!T.quit_sig)
                    T.quit_sig = buf[i];
                break;
            }
        }
    }
    return mask;
}

void term_resize(void)
{
    struct winsize ws;
    if (!T.screen_up || T.left)
        return;
    if (ioctl(T.fd, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 0 && ws.ws_col > 0)
        resizeterm(ws.ws_row, ws.ws_col);
    clearok(curscr, TRUE);
}

static void write_all(const char *s)
{
    size_t len = strlen(s);
    while (len > 0) {
        ssize_t w = write(T.fd, s, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return;
        s += w;
        len -= (size_t)w;
    }
}

/* Show the cursor again, after endwin: curses hid it before entering the alternate
 * screen, and leaving that screen restores the hidden state on some terminals (tmux). */
static void show_cursor(void)
{
    const char *cnorm = tigetstr("cnorm");
    if (cnorm && cnorm != (const char *)-1)
        write_all(cnorm);
}

void term_modes(bool on)
{
    if (T.fd < 0 || on == T.modes_on)
        return;
    /* Press/release mouse reports, SGR coordinates, bracketed paste; off in reverse order. */
    write_all(on ? "\033[?1000h\033[?1006h\033[?2004h" : "\033[?2004l\033[?1006l\033[?1000l");
    T.modes_on = on;
}

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

bool term_osc52(const char *bytes, size_t len)
{
    size_t cap = 16 + (len + 2) / 3 * 4;
    char *out = malloc(cap);
    if (!out)
        return false;
    size_t n = (size_t)snprintf(out, cap, "\033]52;c;");
    const unsigned char *p = (const unsigned char *)bytes;
    for (size_t i = 0; i < len; i += 3) {
        unsigned v = (unsigned)p[i] << 16 | (i + 1 < len ? (unsigned)p[i + 1] << 8 : 0) |
                     (i + 2 < len ? p[i + 2] : 0);
        out[n++] = b64[v >> 18 & 63];
        out[n++] = b64[v >> 12 & 63];
        out[n++] = i + 1 < len ? b64[v >> 6 & 63] : '=';
        out[n++] = i + 2 < len ? b64[v & 63] : '=';
    }
    out[n++] = '\007';
    out[n] = '\0';
    write_all(out);
    free(out);
    return true;
}

/* The pager's child: its input the pipe, its output the terminal, default signals. */
static void exec_pager(const char *cmd, int rd)
{
    dup2(rd, STDIN_FILENO);
    close(rd);
    if (T.fd != STDOUT_FILENO)
        dup2(T.fd, STDOUT_FILENO);
    for (size_t i = 0; i < sizeof caught / sizeof caught[0]; i++)
        signal(caught[i], SIG_DFL);
    signal(SIGPIPE, SIG_DFL);
    signal(SIGQUIT, SIG_DFL);
    execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
    _exit(127);
}

/* Ctrl-c and Ctrl-z in the pager are the pager's, not the explorer's. */
static void ignore_keys_signals(bool ignore)
{
    static const int sigs[] = {SIGINT, SIGTSTP, SIGQUIT};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        if (ignore)
            signal(sigs[i], SIG_IGN);
        else if (sigs[i] == SIGQUIT)
            signal(sigs[i], SIG_DFL);
        else
            install(sigs[i]);
    }
}

bool term_pager(const char *cmd, const char *text, size_t len, char *err, size_t errcap)
{
    int p[2];
    if (pipe(p) != 0) {
        snprintf(err, errcap, "pipe: %s", strerror(errno));
        return false;
    }
    term_modes(false);
    endwin();
    show_cursor();
    input_stop();
    ignore_keys_signals(true);
    pid_t pid = fork();
    if (pid == 0) {
        close(p[1]);
        exec_pager(cmd, p[0]);
    }
    close(p[0]);
    int status = 0;
    if (pid > 0) {
        for (size_t off = 0; off < len;) { /* a pager that quits early closes the pipe */
            ssize_t w = write(p[1], text + off, len - off);
            if (w < 0 && errno == EINTR)
                continue;
            if (w <= 0)
                break;
            off += (size_t)w;
        }
        close(p[1]);
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
            ;
    } else {
        close(p[1]);
    }
    ignore_keys_signals(false);
    input_start();
    curs_set(0);
    term_modes(true);
    term_resize();
    if (pid < 0 || (WIFEXITED(status) && WEXITSTATUS(status) == 127)) {
        snprintf(err, errcap, "cannot run the pager '%.100s'", cmd);
        return false;
    }
    return true;
}

void term_suspend(void)
{
    if (!T.left) { /* a SIGTSTP in the background finds the screen left already */
        term_modes(false);
        curs_set(1);
        endwin();
        show_cursor();
        input_stop();
        T.left = true;
    }
    signal(SIGTSTP, SIG_DFL);
    kill(0, SIGTSTP);
    /* ... stopped until SIGCONT: fg, bg or kill -CONT ... */
    install(SIGTSTP);
    term_resume();
}

/* While suspended in the background, a SIGALRM every 200 ms: fg gives a running job the
 * terminal without a SIGCONT, so the explorer looks whether it has it. */
static void background_timer(bool on)
{
    struct itimerval it;
    memset(&it, 0, sizeof it);
    if (on) {
        install(SIGALRM);
        it.it_interval.tv_usec = it.it_value.tv_usec = 200000;
    }
    setitimer(ITIMER_REAL, &it, NULL);
    if (!on)
        signal(SIGALRM, SIG_DFL);
}

bool term_resume(void)
{
    if (!T.left)
        return true;
    if (!in_foreground()) {
        background_timer(true); /* continued in the background: stay quiet until fg */
        return false;
    }
    background_timer(false);
    T.left = false;
    input_start();
    curs_set(0);
    term_modes(true);
    term_resize();
    return true;
}

void term_close(void)
{
    if (!T.opened)
        return;
    T.opened = false;
    /* Left by a suspend: already restored, and a background job must not write. */
    if (T.left)
        background_timer(false);
    else {
        long left = ANSWER_GRACE_MS - (now_ms() - T.asked_ms);
        if (input_answers_pending() && left > 0)
            input_drain_answers((int)left);
        term_modes(false);
        if (T.screen_up) {
            curs_set(1);
            endwin();
            show_cursor();
        }
    }
    T.screen_up = false;
    T.left = false;
    input_close();
    if (T.scr) {
        delscreen(T.scr);
        T.scr = NULL;
    }
    for (size_t i = 0; i < sizeof caught / sizeof caught[0]; i++)
        signal(caught[i], SIG_DFL);
    if (T.tty) {
        fclose(T.tty);
        T.tty = NULL;
    }
    close(T.pipe_rd);
    close(T.pipe_wr);
    T.pipe_rd = T.pipe_wr = T.fd = -1;
    /* SIGQUIT: the terminal is restored, now the core dump it asks for. */
    if (T.quit_sig == SIGQUIT) {
        signal(SIGQUIT, SIG_DFL);
        raise(SIGQUIT);
    }
}
