/* slice.c: the few non-inline slice helpers. */
#include "sparkplan/slice.h"

long slice_find(struct slice s, const char *needle)
{
    size_t n = strlen(needle);
    if (n == 0)
        return 0;
    if (s.len < n)
        return -1;
    /* Bound: s.len - n + 1 starts, each compared with memcmp on a short needle. */
    for (size_t i = 0; i + n <= s.len; i++) {
        const char *p = memchr(s.ptr + i, needle[0], s.len - n + 1 - i);
        if (!p)
            return -1;
        i = (size_t)(p - s.ptr);
        if (memcmp(p, needle, n) == 0)
            return (long)i;
    }
    return -1;
}

struct slice slice_trim(struct slice s)
{
    while (s.len && (s.ptr[0] == ' ' || s.ptr[0] == '\t'))
        s.ptr++, s.len--;
    while (s.len && (s.ptr[s.len - 1] == ' ' || s.ptr[s.len - 1] == '\t' ||
                     s.ptr[s.len - 1] == '\r' || s.ptr[s.len - 1] == '\n'))
        s.len--;
    return s;
}
