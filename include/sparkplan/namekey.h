/* namekey.h: the two small pieces every name cache of the analysis shares (nodeinfo.c's
 * operator names, opclass.c's first words): a slot from a short key, and a comparison of
 * two short keys without a memcmp call.
 * Owns nothing: pure functions over the caller's bytes.
 */
#ifndef SPARKPLAN_NAMEKEY_H
#define SPARKPLAN_NAMEKEY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "sparkplan/slice.h"

/* The bytes of a key shorter than 8 in one word, as the byte loop below would put them
 * ("Sort", "Filter", "Project": a third of a plan's names, whose byte loops were a third of
 * a look-up).  From 4 bytes on, two 4-byte loads that overlap: on a little-endian machine the
 * bytes they share land on the same places with the same values, so the OR of the two is
 * exactly the loop's word. */
static inline uint64_t namekey_short(const char *p, size_t n)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (n >= 4) {
        uint32_t lo, hi;
        memcpy(&lo, p, 4);
        memcpy(&hi, p + n - 4, 4);
        return (uint64_t)lo | (uint64_t)hi << (8 * (n - 4));
    }
#endif
    uint64_t a = 0;
    for (size_t i = 0; i < n; i++) /* bound: fewer than 8 bytes (memcpy's order) */
        a |= (uint64_t)(unsigned char)p[i] << (8 * i);
    return a;
}

/* A hash from the key's length, first and last 8 bytes (a few instructions, where a
 * byte-at-a-time hash cost most of a look-up): keys that share both ends only share a
 * slot, and namekey_same still decides.  Its top 8 bits are the best mixed. */
static inline uint32_t namekey_hash(struct slice k)
{
    uint64_t a = 0, b = 0;
    if (k.len >= 8) {
        memcpy(&a, k.ptr, 8);
        memcpy(&b, k.ptr + k.len - 8, 8);
    } else {
        a = namekey_short(k.ptr, k.len);
    }
    uint64_t h = (a ^ (b << 29 | b >> 35) ^ k.len) * 0x9E3779B97F4A7C15ull;
    return (uint32_t)(h >> 56); /* 256 slots */
}

/* Are the n bytes of a and b the same?  Eight at a time with constant-size copies the
 * compiler makes loads of, the last eight overlapping: a memcmp call per look-up was a
 * twentieth of the analysis of a simple-mode plan. */
static inline bool namekey_same(const char *a, const char *b, size_t n)
{
    if (n < 8) /* the same bytes make the same word, and only they (the word is the bytes) */
        return namekey_short(a, n) == namekey_short(b, n);
    uint64_t x, y;
    for (size_t i = 0; i + 8 < n; i += 8) { /* bound: n / 8 steps */
        memcpy(&x, a + i, 8);
        memcpy(&y, b + i, 8);
        if (x != y)
            return false;
    }
    memcpy(&x, a + n - 8, 8);
    memcpy(&y, b + n - 8, 8);
    return x == y;
}

#endif
