/* input.c: libtermkey → canonical key names, mouse events and whole pastes (see input.h). */
#include "sparkplan/input.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termkey.h>

static TermKey *tk;
static bool pending; /* the last getkey saw a partial sequence */

/* Collecting a bracketed paste: everything between CSI 200~ and CSI 201~. */
static struct {
    bool on;
    char *buf;
    size_t len, cap;
    bool cut;
} paste;

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

void input_readable(void)
{
    if (tk)
        termkey_advisereadable(tk);
}

int input_wait_ms(void)
{
    return tk && pending ? termkey_get_waittime(tk) : -1;
}

static void paste_add(const char *s, size_t n)
{
    if (paste.len + n > INPUT_PASTE_MAX) {
        paste.cut = true;
        return;
    }
    if (paste.len + n > paste.cap) {
        size_t cap = paste.cap ? paste.cap : 4096;
        while (cap < paste.len + n)
            cap *= 2;
        char *b = realloc(paste.buf, cap);
        if (!b) {
            paste.cut = true;
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
                return false;
            }
            if (args[0] == 201 && paste.on) {
                paste.on = false;
                ev->kind = IN_PASTE;
                strcpy(ev->name, "Paste");
                ev->paste = malloc(paste.len + 1);
                if (ev->paste) {
                    memcpy(ev->paste, paste.buf, paste.len);
                    ev->paste[paste.len] = '\0';
                    ev->paste_len = paste.len;
                }
                ev->paste_cut = paste.cut;
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
    pending = r == TERMKEY_RES_AGAIN;
    *eof = r == TERMKEY_RES_EOF;
    return false;
}

bool input_force(struct input_event *ev)
{
    TermKeyKey k;
    pending = false;
    while (tk && termkey_getkey_force(tk, &k) == TERMKEY_RES_KEY)
        if (translate(&k, ev))
            return true;
    return false;
}
