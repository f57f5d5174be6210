/* screen: `spbench screen ROWS COLS TIMEOUT_S -- CMD ARGS...` (see driver.c).
 *
 * Times a terminal program from its start to its first full screen without tmux: CMD runs
 * on a pseudo-terminal of ROWS x COLS made here, and this process reads what it writes,
 * following the cursor's row through the escape sequences a curses program sends (cursor
 * addressing, line feeds, wraps).  "First full screen" is the same test the tmux figure
 * uses: something other than a blank on the bottom row (the explorer's status line is drawn
 * with the rest of its first frame).  Then `q` is typed and CMD is waited for.
 *
 * Why: in tmux the figure carries 16-20 ms of tmux itself (a server, the pane's shell,
 * capture-pane), more than the whole parse of the chain and long-line inputs; here the floor
 * is the process start.  Prints "time=SECONDS bytes=N status=S"; time=nan when the bottom
 * row stayed blank for TIMEOUT_S.  Owns the pty and the child; leaves nothing behind.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "bench.h"

/* Within one frame curses's write() calls follow each other by microseconds. */
#define BURST_GAP_MS 2.0

/* The cursor's row, followed through the bytes a curses program writes.  Only what moves
 * the cursor between rows matters: everything else (colours, modes, OSC titles) is skipped. */
struct vt_rows {
    int rows, cols;
    int row, col;           /* 1-based; col == cols + 1: a wrap is pending */
    int saved_row, saved_col;
    enum { VT_TEXT, VT_ESC, VT_CSI, VT_STRING, VT_STRING_ESC, VT_CHARSET } state;
    int params[8], n_params;
    bool private_csi;
    unsigned char last_printed;
    bool bottom_drawn;      /* a non-blank reached the bottom row */
    double burst_end;       /* when the last bytes of that frame were read */
};

static int clamp(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }

static int param(const struct vt_rows *vt, int i, int dflt)
{
    return i < vt->n_params && vt->params[i] > 0 ? vt->params[i] : dflt;
}

static void vt_print(struct vt_rows *vt, unsigned char c)
{
    if (c >= 0x80 && c < 0xC0)
        return; /* a UTF-8 continuation byte: the character's first byte moved the cursor */
    if (vt->col > vt->cols) { /* auto-margin: the pending wrap happens now */
        vt->col = 1;
        if (vt->row < vt->rows)
            vt->row++;
    }
    if (vt->row == vt->rows && c != ' ')
        vt->bottom_drawn = true;
    vt->last_printed = c;
    vt->col++;
}

static void vt_csi(struct vt_rows *vt, unsigned char final)
{
    if (vt->private_csi)
        return; /* ?1049h and friends: modes, no cursor motion that matters here */
    switch (final) {
    case 'H': case 'f':
        vt->row = clamp(param(vt, 0, 1), 1, vt->rows);
        vt->col = clamp(param(vt, 1, 1), 1, vt->cols);
        break;
    case 'd': vt->row = clamp(param(vt, 0, 1), 1, vt->rows); break;
    case 'A': vt->row = clamp(vt->row - param(vt, 0, 1), 1, vt->rows); break;
    case 'B': vt->row = clamp(vt->row + param(vt, 0, 1), 1, vt->rows); break;
    case 'E': vt->row = clamp(vt->row + param(vt, 0, 1), 1, vt->rows); vt->col = 1; break;
    case 'F': vt->row = clamp(vt->row - param(vt, 0, 1), 1, vt->rows); vt->col = 1; break;
    case 'G': case '`': vt->col = clamp(param(vt, 0, 1), 1, vt->cols); break;
    case 'C': vt->col = clamp(vt->col + param(vt, 0, 1), 1, vt->cols); break;
    case 'D': vt->col = clamp(vt->col - param(vt, 0, 1), 1, vt->cols); break;
    case 'r': vt->row = vt->col = 1; break; /* setting the scroll region homes the cursor */
    case 'b': /* repeat the last character */
        for (int i = param(vt, 0, 1); i > 0 && i <= vt->cols; i--)
            vt_print(vt, vt->last_printed);
        break;
    default: break;
    }
}

static void vt_feed(struct vt_rows *vt, const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = p[i];
        switch (vt->state) {
        case VT_TEXT:
            if (c == 0x1b)
                vt->state = VT_ESC;
            else if (c == '\n' || c == 0x0b || c == 0x0c)
                vt->row = clamp(vt->row + 1, 1, vt->rows);
            else if (c == '\r')
                vt->col = 1;
            else if (c == '\b')
                vt->col = clamp(vt->col - 1, 1, vt->cols);
            else if (c == '\t')
                vt->col = clamp((vt->col - 1) / 8 * 8 + 9, 1, vt->cols);
            else if (c >= 0x20 && c != 0x7f)
                vt_print(vt, c);
            break;
        case VT_ESC:
            vt->state = VT_TEXT;
            if (c == '[') {
                vt->state = VT_CSI;
                vt->n_params = 0;
                vt->params[0] = 0;
                vt->private_csi = false;
            } else if (c == ']' || c == 'P' || c == '_' || c == '^') {
                vt->state = VT_STRING;
            } else if (c == '(' || c == ')' || c == '*' || c == '+' || c == '#') {
                vt->state = VT_CHARSET;
            } else if (c == '7') {
                vt->saved_row = vt->row;
                vt->saved_col = vt->col;
            } else if (c == '8') {
                vt->row = vt->saved_row;
                vt->col = vt->saved_col;
            } else if (c == 'D') {
                vt->row = clamp(vt->row + 1, 1, vt->rows);
            } else if (c == 'E') {
                vt->row = clamp(vt->row + 1, 1, vt->rows);
                vt->col = 1;
            } else if (c == 'M') {
                vt->row = clamp(vt->row - 1, 1, vt->rows);
            }
            break;
        case VT_CSI:
            if (c >= '0' && c <= '9') {
                if (vt->n_params == 0)
                    vt->n_params = 1;
                int *v = &vt->params[vt->n_params - 1];
                if (*v < 100000)
                    *v = *v * 10 + (c - '0');
            } else if (c == ';') {
                if (vt->n_params == 0)
                    vt->n_params = 1;
                if (vt->n_params < 8)
                    vt->params[vt->n_params++] = 0;
            } else if (c >= 0x3c && c <= 0x3f) {
                vt->private_csi = true;
            } else if (c >= 0x40 && c <= 0x7e) {
                vt_csi(vt, c);
                vt->state = VT_TEXT;
            } /* intermediates (0x20-0x2f) are skipped */
            break;
        case VT_STRING: /* OSC/DCS/APC/PM: up to BEL or ESC \ */
            if (c == 0x07)
                vt->state = VT_TEXT;
            else if (c == 0x1b)
                vt->state = VT_STRING_ESC;
            break;
        case VT_STRING_ESC:
            vt->state = c == '\\' ? VT_TEXT : VT_STRING;
            break;
        case VT_CHARSET:
            vt->state = VT_TEXT;
            break;
        }
    }
}

/* The child: a session of its own on the pty's slave side, then CMD. */
static void run_child(const char *slave, int rows, int cols, char **argv)
{
    setsid();
    int fd = open(slave, O_RDWR);
    if (fd < 0)
        _exit(127);
#ifdef TIOCSCTTY
    ioctl(fd, TIOCSCTTY, 0);
#endif
    struct winsize ws = {.ws_row = (unsigned short)rows, .ws_col = (unsigned short)cols};
    ioctl(fd, TIOCSWINSZ, &ws);
    dup2(fd, 0);
    dup2(fd, 1);
    dup2(fd, 2);
    if (fd > 2)
        close(fd);
    if (!getenv("TERM"))
        setenv("TERM", "xterm-256color", 1);
    execvp(argv[0], argv);
    _exit(127);
}

/* Reads the master until the child has gone (or `limit` seconds), feeding vt when given. */
static long drain(int master, struct vt_rows *vt, double limit, pid_t child, int *status,
                  bool *exited, FILE *log)
{
    unsigned char buf[65536];
    long total = 0;
    double t0 = bench_now();
    double last_read = t0;
    while (bench_now() - t0 < limit) {
        /* The bottom row is often in the middle of the frame's last write() calls (curses
           flushes its buffer as it fills): the screen is full when that burst ends, i.e.
           when nothing more comes for BURST_GAP_MS.  The gap itself is not counted. */
        if (vt && vt->bottom_drawn && bench_now() - last_read > BURST_GAP_MS / 1000.0)
            break;
        if (!vt && waitpid(child, status, WNOHANG) == child) {
            *exited = true;
            break;
        }
        struct pollfd pfd = {.fd = master, .events = POLLIN};
        int r = poll(&pfd, 1, vt && vt->bottom_drawn ? 1 : 50);
        if (r < 0 && errno != EINTR)
            break;
        if (r <= 0)
            continue;
        ssize_t got = read(master, buf, sizeof buf);
        if (got <= 0) { /* EIO: the slave side is closed, the child is going */
            if (!vt) {
                waitpid(child, status, 0);
                *exited = true;
            }
            break;
        }
        total += got;
        last_read = bench_now();
        if (vt) {
            vt_feed(vt, buf, (size_t)got);
            if (log)
                fwrite(buf, 1, (size_t)got, log);
        }
    }
    if (vt)
        vt->burst_end = last_read;
    return total;
}

int bench_screen(int rows, int cols, double timeout_s, char **argv)
{
    int master = posix_openpt(O_RDWR | O_NOCTTY);
    if (master < 0 || grantpt(master) != 0 || unlockpt(master) != 0) {
        perror("spbench: pseudo-terminal");
        return 1;
    }
    const char *slave = ptsname(master);
    if (!slave) {
        perror("spbench: ptsname");
        return 1;
    }
    struct vt_rows vt = {.rows = rows, .cols = cols, .row = 1, .col = 1,
                         .saved_row = 1, .saved_col = 1};
    double t0 = bench_now();
    pid_t pid = fork();
    if (pid < 0) {
        perror("spbench: fork");
        return 1;
    }
    if (pid == 0)
        run_child(slave, rows, cols, argv);
    /* SPBENCH_SCREEN_LOG=FILE keeps what was read up to the first full screen, to check
       the row tracking against a real terminal (replay it with cat in one of that size). */
    const char *log_path = getenv("SPBENCH_SCREEN_LOG");
    FILE *log = log_path ? fopen(log_path, "wb") : NULL;
    long bytes = drain(master, &vt, timeout_s, pid, NULL, NULL, log);
    if (log)
        fclose(log);
    double t1 = vt.burst_end;
    /* Quit the way a person does, then make sure nothing is left running. */
    if (write(master, "q", 1) != 1)
        kill(pid, SIGTERM);
    int status = 0;
    bool exited = false;
    drain(master, NULL, 10, pid, &status, &exited, NULL);
    if (!exited) {
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
    }
    close(master);
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    if (vt.bottom_drawn)
        printf("time=%.6f bytes=%ld status=%d\n", t1 - t0, bytes, code);
    else
        printf("time=nan bytes=%ld status=%d\n", bytes, code);
    return 0;
}
