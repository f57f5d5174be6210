/* slice: a borrowed (pointer, length) view into bytes someone else owns.
 *
 * Slices never own memory: nodes point into the document's text with them.
 */
#ifndef SPARKPLAN_SLICE_H
#define SPARKPLAN_SLICE_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

struct slice {
    const char *ptr;
    size_t len;
};

static inline struct slice slice_make(const char *p, size_t n)
{
    struct slice s = {p, n};
    return s;
}

static inline struct slice slice_cstr(const char *p)
{
    return slice_make(p, p ? strlen(p) : 0);
}

static inline bool slice_eq_cstr(struct slice s, const char *c)
{
    size_t n = strlen(c);
    return s.len == n && (n == 0 || memcmp(s.ptr, c, n) == 0);
}

static inline bool slice_starts_with(struct slice s, const char *c)
{
    size_t n = strlen(c);
    return s.len >= n && (n == 0 || memcmp(s.ptr, c, n) == 0);
}

/* First occurrence of needle in s, or -1.  Linear in s.len * strlen(needle), needle is short. */
long slice_find(struct slice s, const char *needle);
/* s without blanks at its start (' ', '\t') and its end (' ', '\t', '\r', '\n').  Inline:
 * the analysis trims a few values of every node it reads, most with nothing to trim. */
static inline struct slice slice_trim(struct slice s)
{
    while (s.len && (s.ptr[0] == ' ' || s.ptr[0] == '\t')) /* bound: s */
        s.ptr++, s.len--;
    while (s.len && (s.ptr[s.len - 1] == ' ' || s.ptr[s.len - 1] == '\t' ||
                     s.ptr[s.len - 1] == '\r' || s.ptr[s.len - 1] == '\n')) /* bound: s */
        s.len--;
    return s;
}
/* The '\n' bytes in s[0..n): a text's line number at an offset (a second thread that starts
 * reading in the middle of a text counts the lines before it), 64 bytes a step. */
size_t slice_count_newlines(const char *s, size_t n);

#endif
