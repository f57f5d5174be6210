/* wrap.c: the one line-breaking rule (see wrap.h). */
#include "sparkplan/wrap.h"

static size_t fit_bytes(struct slice text, int width)
{
    size_t w = width > 0 ? (size_t)width : 1;
    return text.len < w ? text.len : w;
}

size_t wrap_next(struct slice text, int width, enum wrap_mode mode, wrap_fit_fn *fit, void *ctx)
{
    if (text.len == 0)
        return 0;
    size_t n = fit ? fit(text, width, ctx) : fit_bytes(text, width);
    if (n >= text.len || mode == WRAP_CHARS)
        return n;
    if (mode == WRAP_WORDS) {
        for (size_t b = n; b > 0; b--) /* bounded by the fitting bytes */
            if (text.ptr[b] == ' ')
                return b;
        return n; /* one long word: cut it */
    }
    /* Words stay whole: end after the last break of the fitting bytes.  WRAP_PATHS also
     * breaks after '/' and ',' and before '(' and '[' (a bracket opens the next line), so
     * an identifier is cut only when the line holds no break at all. */
    for (size_t b = n; b > 0; b--) { /* bounded by the fitting bytes */
        char c = text.ptr[b - 1];
        if (c == ' ' || (mode == WRAP_PATHS && c == '/'))
            return b;
        if (mode == WRAP_PATHS && c == ',') /* its space, if any, stays on this line */
            return b < text.len && text.ptr[b] == ' ' ? b + 1 : b;
        if (mode == WRAP_PATHS && b < text.len && (text.ptr[b] == '(' || text.ptr[b] == '['))
            return b;
    }
    return n;
}
