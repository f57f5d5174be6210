/* input.c: libtermkey → canonical key names, mouse events and whole pastes (see input.h). */
#include "sparkplan/input.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termkey.h>
#include <time.h>
#include <unistd.h>

/* enum theme_bg's values (theme.h, which brings curses and its key_name with it). */
enum { BG_UNKNOWN = 0, BG_DARK = 1, BG_LIGHT = 2 };

static TermKey *tk;
static int tty_fd = -1;
static bool pending; /* the last getkey saw a partial sequence */
static bool closed;  /* the tty went away: EOF once the keys read are taken */

/* Collecting a bracketed paste: everything between CSI 200~ and CSI 201~. */
static struct {
    bool on;
    char *buf;
    size_t len, cap;
    bool cut;
    size_t dropped;
} paste;

size_t input_paste_max(void)
{
    static size_t max;
    if (!max) {
        const char *v = getenv("SPARKPLAN_PASTE_MAX");
        char *end = NULL;
        unsigned long long n = v ? strtoull(v, &end, 10) : 0;
        max = n && end && !*end && n < INPUT_PASTE_MAX ? (size_t)n : INPUT_PASTE_MAX;
    }
    return max;
}

/* A burst, as one paste event: "\r\n" and "\r" become "\n". */
static struct {
    bool ready;
    char *buf;
    size_t len;
    bool cut;
    size_t dropped;               /* past input_paste_max(), not kept */
} burst;

/* The terminal's answers to the background query (term_ask_background): taken out of the
 * bytes read before libtermkey sees them (it waits for an ST that a BEL-ended answer never
 * sends, and would take the keys after it for the string), until the device-attributes
 * answer, which comes last, is in. */
static struct {
    bool on;                      /* the device-attributes answer is still to come */
    char held[256];               /* an answer cut at the end of a read */
    size_t n_held;
    long held_at;                 /* when (ms): the rest is given HOLD_MS to come */
    int bg;                       /* the background an OSC 11 answer said, not yet taken */
} answers;

/* How long the beginning of an answer waits for its rest before it is taken for keys (a
 * lone "ESC [" is also what Alt-[ sends). */
#define HOLD_MS 500

static long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

/* Debian's libtermkey 0.22 takes ncurses 6's kmous=\E[< as an X10 mouse prefix and then
 * mis-decodes every SGR mouse report; keep key_mouse only when it is exactly \E[M (the
 * upstream fix of 2019-06-27).  SGR and X10 reports still decode through the CSI driver. */
static const char *drop_bad_key_mouse(const char *name, const char *value, void *data)
{
    (void)data;
    if (name && strcmp(name, "key_mouse") == 0 && value && strcmp(value, "\033[M") != 0)
        return NULL;
    return value;
}

bool input_open(int fd, bool utf8, char *err, size_t errcap)
{
    TERMKEY_CHECK_VERSION;
    tty_fd = fd;
    closed = false;
    tk = termkey_new(fd, TERMKEY_FLAG_NOTERMIOS | TERMKEY_FLAG_NOSTART |
                             (utf8 ? TERMKEY_FLAG_UTF8 : TERMKEY_FLAG_RAW));
    if (!tk) {
        snprintf(err, errcap, "cannot read keys from the terminal: %s", strerror(errno));
        return false;
    }
    termkey_hook_terminfo_getstr(tk, drop_bad_key_mouse, NULL);
    termkey_start(tk);
    /* set_canonflags replaces every flag: always OR into the current ones. */
    termkey_set_canonflags(tk, termkey_get_canonflags(tk) | TERMKEY_CANON_DELBS);
    termkey_set_buffer_size(tk, 1 << 16);
    return true;
}

void input_close(void)
{
    if (tk) {
        termkey_destroy(tk);
        tk = NULL;
    }
    free(paste.buf);
    memset(&paste, 0, sizeof paste);
    free(burst.buf);
    memset(&burst, 0, sizeof burst);
    memset(&answers, 0, sizeof answers);
    tty_fd = -1;
}

void input_stop(void)
{
    if (tk)
        termkey_stop(tk);
}

void input_start(void)
{
    if (tk)
        termkey_start(tk);
}

void input_push(const char *bytes, size_t len)
{
    if (tk)
        termkey_push_bytes(tk, bytes, len);
}

static void paste_add(const char *s, size_t n);

/* A paste typed as keys (no bracketed paste): more bytes at once than a person types,
 * with a line break, and nothing a key sends besides text (no ESC, no other control
 * byte).  A key, even a fast one, is a few bytes. */
#define BURST_MIN_BYTES 24
/* The paste goes on while bytes keep coming this close together. */
#define BURST_GAP_MS 40

static bool is_text_byte(unsigned char c)
{
    return (c >= 0x20 && c != 0x7f) || c == '\t' || c == '\r' || c == '\n';
}

static bool looks_pasted(const char *b, size_t n)
{
    if (n < BURST_MIN_BYTES)
        return false;
    bool newline = false;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)b[i];
        if (!is_text_byte(c))
            return false;
        newline |= c == '\r' || c == '\n';
    }
    return newline;
}

/* Reads the rest of a burst (until the bytes stop for BURST_GAP_MS). */
static void collect_burst(const char *first, size_t n)
{
    paste.len = 0;
    paste.cut = false;
    paste.dropped = 0;
    paste_add(first, n);
    char buf[4096];
    for (;;) { /* bounded by INPUT_PASTE_MAX: then the rest is cut */
        struct pollfd pfd = {tty_fd, POLLIN, 0};
        if (poll(&pfd, 1, BURST_GAP_MS) <= 0)
            break;
        ssize_t r = read(tty_fd, buf, sizeof buf);
        if (r <= 0)
            break;
        size_t text = 0; /* a key after the paste (Ctrl-d, an escape sequence) ends it */
        while (text < (size_t)r && is_text_byte((unsigned char)buf[text]))
            text++;
        paste_add(buf, text);
        if (text < (size_t)r) {
            termkey_push_bytes(tk, buf + text, (size_t)r - text);
            break;
        }
    }
    size_t out = 0; /* "\r\n" and a lone "\r" (what Enter sends) become "\n" */
    for (size_t i = 0; i < paste.len; i++) {
        if (paste.buf[i] == '\r' && i + 1 < paste.len && paste.buf[i + 1] == '\n')
            continue;
        paste.buf[out++] = paste.buf[i] == '\r' ? '\n' : paste.buf[i];
    }
    paste.len = out;
    burst.ready = true;
    burst.buf = paste.buf;
    burst.len = paste.len;
    burst.cut = paste.cut;
    burst.dropped = paste.dropped;
    paste.buf = NULL;
    paste.len = paste.cap = 0;
}

/* One hex colour channel of 1 to 4 digits, as 0..1. */
static double channel(const char *s, const char *end, const char **next)
{
    unsigned v = 0, digits = 0;
    while (s < end && digits < 4 &&
           ((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'f') || (*s >= 'A' && *s <= 'F'))) {
        v = v * 16 + (unsigned)(*s <= '9' ? *s - '0' : (*s | 0x20) - 'a' + 10);
        s++, digits++;
    }
    *next = s;
    return digits ? v / (double)((1u << (4 * digits)) - 1) : -1;
}

/* An OSC answer "ESC ] 11 ; rgb:RRRR/GGGG/BBBB" (its end left out): light or dark by its
 * luminance, BG_UNKNOWN for anything else. */
static int osc11_background(const char *s, size_t n)
{
    const char *end = s + n;
    static const char head[] = "\033]11;rgb:";
    if (n < sizeof head || memcmp(s, head, sizeof head - 1) != 0)
        return BG_UNKNOWN;
    const char *p = s + sizeof head - 1;
    double rgb[3];
    for (int i = 0; i < 3; i++) {
        rgb[i] = channel(p, end, &p);
        if (rgb[i] < 0 || (i < 2 && (p >= end || *p++ != '/')))
            return BG_UNKNOWN;
    }
    double y = 0.2126 * rgb[0] + 0.7152 * rgb[1] + 0.0722 * rgb[2];
    return y > 0.5 ? BG_LIGHT : BG_DARK;
}

/* At s: an answer (OSC ... BEL or ST; CSI ? digits ; ... c) of *len bytes (1: complete),
 * a beginning of one cut by the end of the bytes (0), or no answer (-1). */
static int answer_at(const char *s, size_t n, size_t *len)
{
    if (n < 2 || s[0] != '\033')
        return -1; /* a lone ESC is the Escape key */
    if (s[1] == ']') {
        for (size_t i = 2; i < n; i++) {
            if (s[i] == '\007' || (s[i] == '\033' && i + 1 < n && s[i + 1] == '\\')) {
                *len = i + (s[i] == '\007' ? 1 : 2);
                return 1;
            }
            if (s[i] == '\033' && i + 1 < n)
                return -1; /* not an answer: some other sequence follows */
        }
        return 0;
    }
    if (s[1] != '[' || (n > 2 && s[2] != '?'))
        return -1;
    size_t i = 3;
    while (i < n && ((s[i] >= '0' && s[i] <= '9') || s[i] == ';'))
        i++;
    if (i >= n)
        return 0;
    if (s[i] != 'c')
        return -1;
    *len = i + 1;
    return 1;
}

/* Takes the answers out of buf (len bytes, room for sizeof answers.held more before it is
 * full: the held bytes go first); returns the bytes left, which are keys. */
static size_t take_answers(char *buf, size_t len)
{
    size_t out = 0;
    for (size_t i = 0; i < len;) {
        size_t alen = 0;
        int a = answers.on ? answer_at(buf + i, len - i, &alen) : -1;
        if (a < 0) {
            buf[out++] = buf[i++];
            continue;
        }
        if (a == 0) { /* the rest comes with the next read */
            if (len - i <= sizeof answers.held) {
                memcpy(answers.held, buf + i, len - i);
                answers.n_held = len - i;
                answers.held_at = now_ms();
                return out;
            }
            buf[out++] = buf[i++];
            continue;
        }
        if (buf[i + 1] == ']') {
            int bg = osc11_background(buf + i, alen);
            if (bg != BG_UNKNOWN)
                answers.bg = bg;
        } else {
            answers.on = false; /* the last answer: what follows is keys */
        }
        i += alen;
    }
    return out;
}

void input_expect_answers(void)
{
    answers.on = true;
    answers.n_held = 0;
    answers.bg = BG_UNKNOWN;
}

bool input_answers_pending(void)
{
    return answers.on;
}

int input_take_background(void)
{
    int bg = answers.bg;
    answers.bg = BG_UNKNOWN;
    return bg;
}

void input_drain_answers(int timeout_ms)
{
    struct timespec start, now;
    clock_gettime(CLOCK_MONOTONIC, &start);
    while (answers.on && tty_fd >= 0) { /* bounded by the timeout */
        clock_gettime(CLOCK_MONOTONIC, &now);
        long left = timeout_ms - ((now.tv_sec - start.tv_sec) * 1000 +
                                  (now.tv_nsec - start.tv_nsec) / 1000000);
        struct pollfd pfd = {tty_fd, POLLIN, 0};
        if (left <= 0 || poll(&pfd, 1, (int)left) <= 0)
            break;
        char buf[512];
        ssize_t n = read(tty_fd, buf, sizeof buf);
        if (n <= 0)
            break;
        take_answers(buf, (size_t)n); /* the keys typed as the explorer ends are let go */
    }
    answers.on = false;
}

void input_readable(void)
{
    if (!tk || tty_fd < 0)
        return;
    char buf[4096 + sizeof answers.held];
    size_t held = answers.n_held;
    memcpy(buf, answers.held, held);
    answers.n_held = 0;
    ssize_t n = read(tty_fd, buf + held, 4096);
    if (n == 0) {
        closed = true;
        return;
    }
    if (n < 0) {
        memcpy(answers.held, buf, held); /* nothing read: kept for the next time */
        answers.n_held = held;
        return;
    }
    n = (ssize_t)take_answers(buf, held + (size_t)n);
    if (n == 0)
        return;
    if (!paste.on && !burst.ready && looks_pasted(buf, (size_t)n)) {
        collect_burst(buf, (size_t)n);
        return;
    }
    termkey_push_bytes(tk, buf, (size_t)n);
}

/* The burst read as a paste, as an event. */
static bool take_burst(struct input_event *ev)
{
    if (!burst.ready)
        return false;
    memset(ev, 0, sizeof *ev);
    ev->kind = IN_PASTE;
    strcpy(ev->name, "Paste");
    ev->paste = malloc(burst.len + 1);
    if (ev->paste) {
        if (burst.len) /* nothing kept: no buffer */
            memcpy(ev->paste, burst.buf, burst.len);
        ev->paste[burst.len] = '\0';
        ev->paste_len = burst.len;
    }
    ev->paste_cut = burst.cut;
    ev->paste_dropped = burst.dropped;
    free(burst.buf);
    memset(&burst, 0, sizeof burst);
    return true;
}

int input_wait_ms(void)
{
    if (answers.n_held) { /* the rest of an answer: until HOLD_MS after it began */
        long left = HOLD_MS - (now_ms() - answers.held_at);
        return left > 0 ? (int)left : 0;
    }
    return tk && pending ? termkey_get_waittime(tk) : -1;
}

static void paste_add(const char *s, size_t n)
{
    if (paste.cut || paste.len + n > input_paste_max()) {
        paste.cut = true; /* everything after the cut goes, so the text never has a hole */
        paste.dropped += n;
        return;
    }
    if (paste.len + n > paste.cap) {
        size_t cap = paste.cap ? paste.cap : 4096;
        while (cap < paste.len + n)
            cap *= 2;
        char *b = realloc(paste.buf, cap);
        if (!b) {
            paste.cut = true;
            paste.dropped += n;
            return;
        }
        paste.buf = b;
        paste.cap = cap;
    }
    memcpy(paste.buf + paste.len, s, n);
    paste.len += n;
}

/* What a key types, for prompts and pastes: its character, Enter and Ctrl-j as a newline,
 * Tab as a tab, Escape (and the ESC of an Alt- prefix) as ESC. */
static void key_text(const TermKeyKey *k, char out[8])
{
    out[0] = '\0';
    if (k->type == TERMKEY_TYPE_UNICODE) {
        if (k->modifiers & TERMKEY_KEYMOD_CTRL) {
            if (k->code.codepoint == 'j' || k->code.codepoint == 'm')
                strcpy(out, "\n");
            else if (k->code.codepoint == 'i')
                strcpy(out, "\t");
            return;
        }
        size_t n = 0;
        if (k->modifiers & TERMKEY_KEYMOD_ALT)
            out[n++] = '\033';
        size_t u = strlen(k->utf8);
        if (n + u < 8) {
            memcpy(out + n, k->utf8, u);
            out[n + u] = '\0';
        } else {
            out[n] = '\0';
        }
    } else if (k->type == TERMKEY_TYPE_KEYSYM && !(k->modifiers & ~TERMKEY_KEYMOD_SHIFT)) {
        switch (k->code.sym) {
        case TERMKEY_SYM_ENTER:
            strcpy(out, "\n");
            break;
        case TERMKEY_SYM_TAB:
            strcpy(out, "\t");
            break;
        case TERMKEY_SYM_SPACE:
            strcpy(out, " ");
            break;
        case TERMKEY_SYM_ESCAPE:
            strcpy(out, "\033");
            break;
        default:
            break;
        }
    }
}

static void key_name(const TermKeyKey *k, char *out, size_t cap)
{
    char base[24];
    int mods = k->modifiers;
    base[0] = '\0';
    switch (k->type) {
    case TERMKEY_TYPE_UNICODE:
        if (k->code.codepoint == ' ')
            strcpy(base, "Space");
        else
            snprintf(base, sizeof base, "%s", k->utf8);
        /* The terminal already applied Shift to the character ("G", "?"). */
        mods &= ~TERMKEY_KEYMOD_SHIFT;
        break;
    case TERMKEY_TYPE_KEYSYM: {
        const char *n = termkey_get_keyname(tk, k->code.sym);
        if (k->code.sym == TERMKEY_SYM_DEL)
            n = "Backspace";
        /* ESC [ 1 ~ and ESC [ 4 ~ (the VT220 Find and Select keys) are what many
         * terminals send for Home and End. */
        else if (k->code.sym == TERMKEY_SYM_FIND)
            n = "Home";
        else if (k->code.sym == TERMKEY_SYM_SELECT)
            n = "End";
        snprintf(base, sizeof base, "%s", n ? n : "?");
        break;
    }
    case TERMKEY_TYPE_FUNCTION:
        snprintf(base, sizeof base, "F%d", k->code.number);
        break;
    default:
        strcpy(base, "?");
        break;
    }
    snprintf(out, cap, "%s%s%s%s", (mods & TERMKEY_KEYMOD_CTRL) ? "C-" : "",
             (mods & TERMKEY_KEYMOD_ALT) ? "M-" : "", (mods & TERMKEY_KEYMOD_SHIFT) ? "S-" : "",
             base);
}

/* Turn one termkey key into an event.  Returns false for keys that make no event (a
 * mouse release, a paste marker, a key swallowed into a paste). */
static bool translate(const TermKeyKey *k, struct input_event *ev)
{
    memset(ev, 0, sizeof *ev);
    if (k->type == TERMKEY_TYPE_UNKNOWN_CSI) {
        /* Interpret now: the payload lives in termkey's buffer until the next getkey. */
        long args[16];
        size_t nargs = 16;
        unsigned long cmd = 0;
        if (termkey_interpret_csi(tk, k, args, &nargs, &cmd) == TERMKEY_RES_KEY &&
            cmd == '~' && nargs >= 1) {
            if (args[0] == 200 && !paste.on) {
                paste.on = true;
                paste.len = 0;
                paste.cut = false;
                paste.dropped = 0;
                return false;
            }
            if (args[0] == 201 && paste.on) {
                paste.on = false;
                ev->kind = IN_PASTE;
                strcpy(ev->name, "Paste");
                ev->paste = malloc(paste.len + 1);
                if (ev->paste) {
                    if (paste.len) /* an empty paste has no buffer */
                        memcpy(ev->paste, paste.buf, paste.len);
                    ev->paste[paste.len] = '\0';
                    ev->paste_len = paste.len;
                }
                ev->paste_cut = paste.cut;
                ev->paste_dropped = paste.dropped;
                free(paste.buf);
                paste.buf = NULL;
                paste.len = paste.cap = 0;
                return true;
            }
        }
        return false;
    }
    if (paste.on) {
        char t[8];
        key_text(k, t);
        paste_add(t, strlen(t));
        return false;
    }
    if (k->type == TERMKEY_TYPE_MOUSE) {
        TermKeyMouseEvent me;
        int button = 0, line = 0, col = 0;
        if (termkey_interpret_mouse(tk, k, &me, &button, &line, &col) != TERMKEY_RES_KEY)
            return false;
        if (me != TERMKEY_MOUSE_PRESS)
            return false;
        if (button == 1)
            strcpy(ev->name, "Click");
        else if (button == 4)
            strcpy(ev->name, "WheelUp");
        else if (button == 5)
            strcpy(ev->name, "WheelDown");
        else
            return false;
        ev->kind = IN_MOUSE;
        ev->line = line - 1; /* termkey is 1-based */
        ev->col = col - 1;
        return true;
    }
    if (k->type != TERMKEY_TYPE_UNICODE && k->type != TERMKEY_TYPE_KEYSYM &&
        k->type != TERMKEY_TYPE_FUNCTION)
        return false;
    ev->kind = IN_KEY;
    key_name(k, ev->name, sizeof ev->name);
    key_text(k, ev->text);
    return true;
}

bool input_next(struct input_event *ev, bool *eof)
{
    TermKeyKey k;
    TermKeyResult r = TERMKEY_RES_NONE;
    *eof = false;
    pending = false;
    while (tk && (r = termkey_getkey(tk, &k)) == TERMKEY_RES_KEY)
        if (translate(&k, ev))
            return true;
    if (take_burst(ev)) /* after the keys that came before it */
        return true;
    pending = r == TERMKEY_RES_AGAIN;
    *eof = r == TERMKEY_RES_EOF || (closed && r == TERMKEY_RES_NONE);
    return false;
}

bool input_force(struct input_event *ev)
{
    TermKeyKey k;
    if (answers.n_held && tk) { /* its rest never came: it was keys */
        termkey_push_bytes(tk, answers.held, answers.n_held);
        answers.n_held = 0;
        pending = true;
        return input_next(ev, &(bool){false});
    }
    pending = false;
    while (tk && termkey_getkey_force(tk, &k) == TERMKEY_RES_KEY)
        if (translate(&k, ev))
            return true;
    return false;
}
