/* fuzz.h: what every libFuzzer target shares (tests/fuzz/fuzz_*.c, built by `make fuzz`).
 *
 * check() traps on a broken invariant (libFuzzer keeps the input); fuzz_text() copies the
 * input into a malloc'd NUL-terminated buffer the caller owns (the loaders take it over);
 * fuzz_lines() counts its lines the way the loader numbers them (a CR-only input's CRs are
 * its line ends).
 */
#ifndef SPARKPLAN_FUZZ_H
#define SPARKPLAN_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static inline void check(int ok)
{
    if (!ok)
        __builtin_trap();
}

static inline char *fuzz_text(const uint8_t *data, size_t size)
{
    char *copy = malloc(size + 1);
    if (copy) {
        memcpy(copy, data, size);
        copy[size] = '\0';
    }
    return copy;
}

static inline uint32_t fuzz_lines(const char *data, size_t size)
{
    uint32_t n = 1;
    for (size_t i = 0; i < size; i++)
        n += data[i] == '\n' || data[i] == '\r';
    return n;
}

#endif
