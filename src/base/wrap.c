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
     * breaks after '/' and ',' but keeps at least half the line (else mid-word). */
    size_t least = mode == WRAP_PATHS ? n / 2 : 0;
    for (size_t b = n; b > least; b--) { /* bounded by the fitting bytes */
        char c = text.ptr[b - 1];
        if (c == ' ' || (mode == WRAP_PATHS && (c == '/' || c == ',')))
            return b;
    }
    return n;
}
