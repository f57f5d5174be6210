/* view_prompt.c: the prompts of the status line — / (search), : (go to a node number) and
 * p (collect a pasted plan until Ctrl-d).  Three views, one module: each takes every key
 * while open and draws over the status line.  Their state: the text typed or pasted. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sparkplan/draw.h"
#include "sparkplan/tui.h"

enum prompt_kind { PROMPT_SEARCH, PROMPT_GOTO, PROMPT_PASTE };

struct prompt {
    enum prompt_kind kind;
    char buf[256];                /* / and : */
    size_t len;
    char *paste;                  /* p: the text collected until Ctrl-d */
    size_t paste_len, paste_cap;
};

static void draw_prompt(const struct tui *t, const void *state)
{
    const struct prompt *p = state;
    attr_t st = theme_attr(ROLE_STATUS, VAR_PLAIN);
    attr_t strong = theme_attr(ROLE_STATUS_STRONG, VAR_PLAIN);
    struct draw_line dl;
    draw_line_start(&dl, t->L.status_y, 0, COLS, 0);
    if (p->kind == PROMPT_PASTE) {
        char buf[160];
        snprintf(buf, sizeof buf,
                 " PASTE: paste a plan now, then Ctrl-d to open it (Ctrl-c cancels)  %zu bytes",
                 p->paste_len);
        draw_puts(&dl, buf, strong);
        draw_fill(&dl, st);
        return;
    }
    draw_puts(&dl, p->kind == PROMPT_SEARCH ? "/" : ":", strong);
    draw_put(&dl, slice_make(p->buf, p->len), strong, true);
    draw_puts(&dl, "_", st | A_BLINK);
    draw_puts(&dl, p->kind == PROMPT_GOTO ? "   (node number, Enter; Esc cancels)"
                                          : "   (Enter searches; Esc cancels)",
              st);
    draw_fill(&dl, st);
}

/* Enter: go to the node number, or search for the text (an empty one clears). */
static int accept(struct tui *t, struct prompt *p)
{
    p->buf[p->len] = '\0';
    if (p->kind == PROMPT_GOTO) {
        const char *s = p->buf;
        while (*s == ' ' || *s == '(')
            s++;
        char *end;
        long id = strtol(s, &end, 10);
        if (end == s || id < 0 || id > 0x7FFFFFFF)
            ws_message(&t->ws, true, "type a node number, like 12");
        else
            ws_goto_id(&t->ws, (int32_t)id);
        return RE_POP | RE_DRAW;
    }
    if (p->len == 0) {
        rows_search(&ws_tab(&t->ws)->rows, NULL);
        return RE_POP | RE_DRAW;
    }
    if (!ws_search_start(&t->ws, p->buf))
        return RE_POP | RE_DRAW;
    return RE_POP | tui_search_run(t);
}

static int line_key(struct tui *t, void *state, enum key_action a,
                    const struct input_event *ev)
{
    struct prompt *p = state;
    if (a == KA_P_CANCEL || (a == KA_P_ERASE && p->len == 0))
        return RE_POP | RE_DRAW;
    if (a == KA_P_ERASE) {
        do /* one UTF-8 character */
            p->len--;
        while (p->len > 0 && ((unsigned char)p->buf[p->len] & 0xC0) == 0x80);
        return RE_DRAW;
    }
    if (a == KA_P_ACCEPT)
        return accept(t, p);
    if (!ev->text[0] || (unsigned char)ev->text[0] < 0x20 || ev->text[0] == 0x7F)
        return RE_NONE;
    size_t n = strlen(ev->text);
    if (p->kind == PROMPT_GOTO && !(ev->text[0] >= '0' && ev->text[0] <= '9'))
        return RE_NONE;
    if (p->len + n < sizeof p->buf) {
        memcpy(p->buf + p->len, ev->text, n);
        p->len += n;
    }
    return RE_DRAW;
}

static void paste_append(struct prompt *p, const char *s, size_t n)
{
    if (p->paste_len + n > INPUT_PASTE_MAX)
        return;
    if (p->paste_len + n + 1 > p->paste_cap) {
        size_t cap = p->paste_cap ? p->paste_cap : 4096;
        while (cap < p->paste_len + n + 1)
            cap *= 2;
        char *b = realloc(p->paste, cap);
        if (!b)
            return;
        p->paste = b;
        p->paste_cap = cap;
    }
    memcpy(p->paste + p->paste_len, s, n);
    p->paste_len += n;
}

static int paste_key(struct tui *t, void *state, enum key_action a,
                     const struct input_event *ev)
{
    struct prompt *p = state;
    if (a == KA_PASTE_CANCEL) {
        ws_message(&t->ws, false, "paste cancelled");
        return RE_POP | RE_DRAW;
    }
    if (a == KA_PASTE_END) {
        char *bytes = malloc(p->paste_len + 1);
        if (!bytes)
            return RE_POP | RE_DRAW;
        memcpy(bytes, p->paste ? p->paste : "", p->paste_len);
        if (!ws_open_paste(&t->ws, bytes, p->paste_len))
            return RE_POP | RE_DRAW;
        return RE_POP | RE_FOCUS_TREE | RE_DRAW | RE_LAYOUT | RE_FULL;
    }
    paste_append(p, ev->text, strlen(ev->text));
    return RE_DRAW;
}

/* A bracketed paste while a prompt is open: all of it in p mode, else its first line. */
static int prompt_paste(struct tui *t, void *state, const char *bytes, size_t len)
{
    (void)t;
    struct prompt *p = state;
    if (p->kind == PROMPT_PASTE) {
        paste_append(p, bytes ? bytes : "", len);
        return RE_DRAW;
    }
    for (size_t i = 0; bytes && i < len && bytes[i] != '\n' && p->len + 1 < sizeof p->buf; i++)
        if ((unsigned char)bytes[i] >= 0x20)
            p->buf[p->len++] = bytes[i];
    return RE_DRAW;
}

static void *open_kind(enum prompt_kind kind)
{
    struct prompt *p = calloc(1, sizeof *p);
    if (p)
        p->kind = kind;
    return p;
}

static void *search_open(struct tui *t)
{
    (void)t;
    return open_kind(PROMPT_SEARCH);
}

static void *goto_open(struct tui *t)
{
    (void)t;
    return open_kind(PROMPT_GOTO);
}

static void *paste_open(struct tui *t)
{
    (void)t;
    return open_kind(PROMPT_PASTE);
}

static void prompt_close(struct tui *t, void *state)
{
    (void)t;
    struct prompt *p = state;
    free(p->paste);
    free(p);
}

const struct view_ops view_search = {
    .name = "search",
    .layer = LAYER_OVERLAY,
    .keys = KCTX_PROMPT,
    .open = search_open,
    .close = prompt_close,
    .draw = draw_prompt,
    .key = line_key,
    .paste = prompt_paste,
};

const struct view_ops view_goto = {
    .name = "goto",
    .layer = LAYER_OVERLAY,
    .keys = KCTX_PROMPT,
    .open = goto_open,
    .close = prompt_close,
    .draw = draw_prompt,
    .key = line_key,
    .paste = prompt_paste,
};

const struct view_ops view_paste = {
    .name = "paste",
    .layer = LAYER_OVERLAY,
    .keys = KCTX_PASTE,
    .open = paste_open,
    .close = prompt_close,
    .draw = draw_prompt,
    .key = paste_key,
    .paste = prompt_paste,
};
