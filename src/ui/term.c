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
    bool modes_on;
    bool opened;
} T = {.fd = -1, .pipe_rd = -1, .pipe_wr = -1};

static const int caught[] = {SIGWINCH, SIGINT, SIGTERM, SIGHUP, SIGCONT, SIGTSTP};

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

static void set_nonblock_cloexec(int fd)
{
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    fcntl(fd, F_SETFD, FD_CLOEXEC);
}

bool term_open(bool force_dev_tty, char *err, size_t errcap)
{
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

/* One hex colour channel of 1 to 4 digits, as 0..1. */
static double channel(const char *s, const char **end)
{
    unsigned v = 0, digits = 0;
    while (digits < 4 && ((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'f') ||
                          (*s >= 'A' && *s <= 'F'))) {
        v = v * 16 + (unsigned)(*s <= '9' ? *s - '0' : (*s | 0x20) - 'a' + 10);
        s++, digits++;
    }
    *end = s;
    return digits ? v / (double)((1u << (4 * digits)) - 1) : -1;
}

/* "...]11;rgb:RRRR/GGGG/BBBB..." -> light or dark by its luminance. */
static enum theme_bg parse_osc11(const char *reply)
{
    const char *p = strstr(reply, "]11;rgb:");
    if (!p)
        return THEME_BG_UNKNOWN;
    p += 8;
    double rgb[3];
    for (int i = 0; i < 3; i++) {
        rgb[i] = channel(p, &p);
        if (rgb[i] < 0 || (i < 2 && *p++ != '/'))
            return THEME_BG_UNKNOWN;
    }
    double y = 0.2126 * rgb[0] + 0.7152 * rgb[1] + 0.0722 * rgb[2];
    return y > 0.5 ? THEME_BG_LIGHT : THEME_BG_DARK;
}

/* The length of the terminal's answer at s (OSC ... BEL or ST; CSI ? ... c), or 0. */
static size_t answer_len(const char *s, size_t n)
{
    if (n < 3 || s[0] != '\033')
        return 0;
    if (s[1] == ']') {
        for (size_t i = 2; i < n; i++) {
            if (s[i] == '\007')
                return i + 1;
            if (s[i] == '\033' && i + 1 < n && s[i + 1] == '\\')
                return i + 2;
        }
        return n;
    }
    if (s[1] == '[' && s[2] == '?') {
        size_t i = 3;
        while (i < n && ((s[i] >= '0' && s[i] <= '9') || s[i] == ';'))
            i++;
        return i < n && s[i] == 'c' ? i + 1 : 0;
    }
    return 0;
}

/* Keys typed while the terminal answered go on to the key reader, the answers not. */
static void keep_keys(const char *buf, size_t len)
{
    char keys[512];
    size_t k = 0;
    for (size_t i = 0; i < len;) {
        size_t a = answer_len(buf + i, len - i);
        if (a) {
            i += a;
            continue;
        }
        keys[k++] = buf[i++];
    }
    if (k)
        input_push(keys, k);
}

/* Asks the terminal its background (OSC 11), followed by a device-attributes query (DA1)
 * that every terminal answers: once the DA1 answer is in, an OSC 11 answer would have
 * come before it, so nothing arrives later as keys.  Raw mode without echo meanwhile, so
 * no answer shows on screen. */
static enum theme_bg query_osc11(int timeout_ms)
{
    struct termios old, raw;
    if (!isatty(T.fd) || tcgetattr(T.fd, &old) != 0)
        return THEME_BG_UNKNOWN;
    raw = old;
    raw.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
    raw.c_cc[VMIN] = 0;
    raw.c_cc[VTIME] = 0;
    if (tcsetattr(T.fd, TCSANOW, &raw) != 0)
        return THEME_BG_UNKNOWN;
    static const char q[] = "\033]11;?\033\\\033[c";
    ssize_t w = write(T.fd, q, sizeof q - 1);
    char buf[512];
    size_t len = 0;
    struct timespec start, now;
    clock_gettime(CLOCK_MONOTONIC, &start);
    while (w > 0 && len + 1 < sizeof buf) { /* bounded by the timeout and the buffer */
        clock_gettime(CLOCK_MONOTONIC, &now);
        long left = timeout_ms - ((now.tv_sec - start.tv_sec) * 1000 +
                                  (now.tv_nsec - start.tv_nsec) / 1000000);
        struct pollfd pfd = {T.fd, POLLIN, 0};
        if (left <= 0 || poll(&pfd, 1, (int)left) <= 0)
            break;
        ssize_t n = read(T.fd, buf + len, sizeof buf - 1 - len);
        if (n <= 0)
            break;
        len += (size_t)n;
        buf[len] = '\0';
        const char *da = strstr(buf, "\033[?");
        if (da && strchr(da, 'c'))
            break;
    }
    buf[len] = '\0';
    tcsetattr(T.fd, TCSANOW, &old);
    enum theme_bg bg = parse_osc11(buf);
    keep_keys(buf, len);
    return bg;
}

int term_background(int timeout_ms)
{
    enum theme_bg bg = colorfgbg();
    if (bg != THEME_BG_UNKNOWN || T.fd < 0)
        return bg;
    const char *term = getenv("TERM");
    if (!term || strcmp(term, "dumb") == 0 || strncmp(term, "vt", 2) == 0)
        return THEME_BG_UNKNOWN;
    return query_osc11(timeout_ms);
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
    return T.fd;
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
                mask |= TERM_SIG_CONT;
                break;
            default:
                mask |= TERM_SIG_QUIT;
                break;
            }
        }
    }
    return mask;
}

void term_resize(void)
{
    struct winsize ws;
    if (!T.screen_up)
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
    term_modes(false);
    curs_set(1);
    endwin();
    show_cursor();
    input_stop();
    signal(SIGTSTP, SIG_DFL);
    kill(0, SIGTSTP);
    /* ... stopped until fg ... */
    install(SIGTSTP);
    input_start();
    curs_set(0);
    term_modes(true);
    term_resize();
}

void term_close(void)
{
    if (!T.opened)
        return;
    T.opened = false;
    term_modes(false);
    if (T.screen_up) {
        curs_set(1);
        endwin();
        show_cursor();
        T.screen_up = false;
    }
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
}
