/* draw.c: sanitized, clipped text on stdscr (see draw.h). */
#include "sparkplan/draw.h"

#include <stdint.h>
#include <string.h>
#include <wchar.h>

#include "sparkplan/sanitize.h"

static bool use_utf8 = true;

void draw_set_utf8(bool utf8)
{
    use_utf8 = utf8;
}

bool draw_utf8(void)
{
    return use_utf8;
}

/* Decode one valid UTF-8 character (sanitize output is always valid). */
static wchar_t decode(const char *s, size_t n)
{
    const unsigned char *u = (const unsigned char *)s;
    if (n == 1)
        return u[0];
    if (n == 2)
        return (wchar_t)(((u[0] & 0x1F) << 6) | (u[1] & 0x3F));
    if (n == 3)
        return (wchar_t)(((u[0] & 0x0F) << 12) | ((u[1] & 0x3F) << 6) | (u[2] & 0x3F));
    return (wchar_t)(((u[0] & 0x07) << 18) | ((u[1] & 0x3F) << 12) | ((u[2] & 0x3F) << 6) |
                     (u[3] & 0x3F));
}

/* Calls emit(ch, cols, ctx) for each displayed character of text; stops when emit returns
 * false.  The sanitizer turns one input item into 1..8 bytes of safe UTF-8. */
typedef bool emit_fn(wchar_t ch, int cols, void *ctx);

static size_t each_char(struct slice text, bool one_line, emit_fn *emit, void *ctx)
{
    size_t i = 0;
    while (i < text.len) {
        if (one_line && (text.ptr[i] == '\n' || text.ptr[i] == '\r'))
            break;
        char out[SANITIZE_MAX_EXPANSION];
        size_t out_len = 0;
        bool safe;
        size_t used = sanitize_next(text.ptr + i, text.len - i, out, &out_len, &safe);
        size_t j = 0;
        while (j < out_len) { /* at most SANITIZE_MAX_EXPANSION bytes */
            unsigned char c = (unsigned char)out[j];
            size_t n = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
            if (j + n > out_len)
                n = out_len - j;
            wchar_t ch = decode(out + j, n);
            int cols;
            if (!use_utf8 && ch >= 0x80) {
                ch = L'?';
                cols = 1;
            } else {
                cols = ch < 0x80 ? 1 : wcwidth(ch);
                if (cols < 0) {
                    ch = L'?';
                    cols = 1;
                }
            }
            if (!emit(ch, cols, ctx))
                return i;
            j += n;
        }
        i += used;
    }
    return i;
}

struct put_ctx {
    struct draw_line *dl;
    attr_t attr;
    wchar_t buf[256];
    int n;
    int start_x;   /* screen column of buf[0] */
};

static void flush(struct put_ctx *c)
{
    if (c->n > 0) {
        attrset((int)c->attr);
        mvaddnwstr(c->dl->y, c->start_x, c->buf, c->n);
        c->n = 0;
    }
}

static void append(struct put_ctx *c, wchar_t ch, int cols)
{
    if (c->n >= 250)
        flush(c);
    if (c->n == 0)
        c->start_x = c->dl->x;
    c->buf[c->n++] = ch;
    c->dl->x += cols;
}

static bool put_char(wchar_t ch, int cols, void *ctx)
{
    struct put_ctx *c = ctx;
    struct draw_line *dl = c->dl;
    if (cols == 0) { /* a combining mark joins the character before it, if that was drawn */
        if (dl->skip == 0 && c->n > 0 && c->n < 255)
            c->buf[c->n++] = ch;
        return true;
    }
    if (dl->skip > 0) {
        /* A wide character cut by the left edge leaves blank columns. */
        dl->skip -= cols;
        if (dl->skip < 0) {
            int pad = -dl->skip;
            dl->skip = 0;
            while (pad-- > 0 && dl->x < dl->limit)
                append(c, L' ', 1);
        }
        return true;
    }
    if (dl->x + cols > dl->limit) {
        dl->cut = true;
        return false;
    }
    append(c, ch, cols);
    return true;
}

void draw_line_start(struct draw_line *dl, int y, int x, int width, int skip)
{
    dl->y = y;
    dl->x = x;
    dl->limit = x + (width > 0 ? width : 0);
    dl->skip = skip > 0 ? skip : 0;
    dl->cut = false;
}

void draw_put(struct draw_line *dl, struct slice text, attr_t attr, bool one_line)
{
    if (dl->x >= dl->limit) {
        if (text.len && !(one_line && (text.ptr[0] == '\n')))
            dl->cut = true;
        return;
    }
    struct put_ctx c = {.dl = dl, .attr = attr, .n = 0, .start_x = dl->x};
    each_char(text, one_line, put_char, &c);
    flush(&c);
    attrset(A_NORMAL);
}

void draw_puts(struct draw_line *dl, const char *s, attr_t attr)
{
    draw_put(dl, slice_cstr(s), attr, true);
}

void draw_fill(struct draw_line *dl, attr_t attr)
{
    if (dl->x < dl->limit) {
        attrset((int)attr);
        mvhline(dl->y, dl->x, ' ', dl->limit - dl->x);
        attrset(A_NORMAL);
        dl->x = dl->limit;
    }
}

void draw_cut_marker(struct draw_line *dl, attr_t attr)
{
    if (!dl->cut || dl->limit <= 0)
        return;
    /* The marker goes in the last column; a wide character there is overwritten whole. */
    attrset((int)attr);
    if (use_utf8)
        mvaddwstr(dl->y, dl->limit - 1, L"\u2026");
    else
        mvaddch(dl->y, dl->limit - 1, '>');
    attrset(A_NORMAL);
}

struct width_ctx {
    int cols;
    int limit;
};

static bool add_width(wchar_t ch, int cols, void *ctx)
{
    (void)ch;
    struct width_ctx *w = ctx;
    if (w->limit >= 0 && w->cols + cols > w->limit)
        return false;
    w->cols += cols;
    return true;
}

int draw_width(struct slice text, bool one_line)
{
    struct width_ctx w = {0, -1};
    each_char(text, one_line, add_width, &w);
    return w.cols;
}

size_t draw_fit(struct slice text, int width)
{
    struct width_ctx w = {0, width > 0 ? width : 1};
    size_t n = each_char(text, false, add_width, &w);
    if (n == 0 && text.len > 0) { /* a character wider than the box: take it anyway */
        char out[SANITIZE_MAX_EXPANSION];
        size_t out_len;
        bool safe;
        n = sanitize_next(text.ptr, text.len, out, &out_len, &safe);
    }
    return n;
}

static size_t fit_columns(struct slice text, int width, void *ctx)
{
    (void)ctx;
    return draw_fit(text, width);
}

size_t draw_wrap(struct slice text, int width, enum wrap_mode mode)
{
    return wrap_next(text, width, mode, fit_columns, NULL);
}

void draw_clear(int y, int x, int h, int w, attr_t attr)
{
    if (w <= 0)
        return;
    attrset((int)attr);
    for (int i = 0; i < h; i++)
        mvhline(y + i, x, ' ', w);
    attrset(A_NORMAL);
}
