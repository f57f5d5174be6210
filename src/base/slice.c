/* slice.c: the few non-inline slice helpers. */
#include "sparkplan/slice.h"

#ifdef __SSE2__
#include <emmintrin.h>
#endif

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

size_t slice_count_newlines(const char *s, size_t n)
{
    const char *end = s + n;
    size_t k = 0;
#ifdef __SSE2__
    /* Each byte lane counts its '\n' (a compare gives -1) for up to 255 blocks, then the
       lanes are summed: without -mpopcnt a popcount is a call a block. */
    const __m128i nl16 = _mm_set1_epi8('\n'), zero = _mm_setzero_si128();
    /* Bound: 64 bytes a round (four blocks of 16 into the lanes), the sum every 63 rounds,
       then a block of 16 a round. */
    while (end - s >= 16) {
        __m128i acc = zero;
        for (int r = 0; r < 63 && end - s >= 64; r++, s += 64) {
            const __m128i *b = (const __m128i *)(const void *)s;
            __m128i c01 = _mm_add_epi8(_mm_cmpeq_epi8(_mm_loadu_si128(b), nl16),
                                       _mm_cmpeq_epi8(_mm_loadu_si128(b + 1), nl16));
            __m128i c23 = _mm_add_epi8(_mm_cmpeq_epi8(_mm_loadu_si128(b + 2), nl16),
                                       _mm_cmpeq_epi8(_mm_loadu_si128(b + 3), nl16));
            acc = _mm_sub_epi8(acc, _mm_add_epi8(c01, c23));
        }
        if (end - s < 64)
            for (; end - s >= 16; s += 16) /* at most 3 blocks: their lanes stay below 256 */
                acc = _mm_sub_epi8(
                    acc, _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)s), nl16));
        __m128i sums = _mm_sad_epu8(acc, zero);
        k += (size_t)_mm_cvtsi128_si32(sums) + (size_t)_mm_cvtsi128_si32(_mm_srli_si128(sums, 8));
    }
#endif
    for (; s < end; s++) /* bound: the last bytes */
        k += *s == '\n';
    return k;
}
