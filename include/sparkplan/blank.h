/* blank: skipping runs of blanks many bytes at a time, shared by the parser (lex.c) and the
 * clean-up (clean*.c).
 *
 * Deep plans are mostly indentation: a 10,000-deep chain has lines of 30 KB that are spaces
 * but for a ':' every few hundred bytes.  Every pass over such a prefix goes through here
 * instead of a byte loop of its own.  SSE2 (the x86-64 baseline) looks at 16 bytes a step;
 * other targets compare 8-byte words.
 * Owns nothing, allocates nothing, keeps no state.  Never reads outside [p, p + n).
 */
#ifndef SPARKPLAN_BLANK_H
#define SPARKPLAN_BLANK_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* The first index at or after i whose byte is not a space, or n. */
static inline size_t blank_skip_spaces(const char *p, size_t i, size_t n)
{
#ifdef __SSE2__
    const __m128i sp = _mm_set1_epi8(' ');
    while (i + 16 <= n) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(p + i));
        unsigned eq = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, sp));
        if (eq != 0xFFFFu)
            return i + (size_t)__builtin_ctz(~eq);
        i += 16;
    }
#else
    while (i + 8 <= n) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        if (w != 0x2020202020202020ull)
            break;
        i += 8;
    }
#endif
    while (i < n && p[i] == ' ')
        i++;
    return i;
}

#endif
