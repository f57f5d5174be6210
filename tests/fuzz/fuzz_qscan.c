/* libFuzzer target: the quick scan of the paste clean-up (clean_quick_scan) gives the verdict
 * of the scan it replaced (tests/qscan_ref.h), on the bytes as they come and on each suffix
 * that starts after one of the first lines (every line gets to be the first, and the vector
 * blocks every alignment), each in a block of exactly its size (ASan sees a read past it);
 * and that the scan in pieces (clean_quick_scan_pieces) gives the whole scan's.
 *
 * Built by `make fuzz` with clang -fsanitize=fuzzer,address,undefined; `make check` runs it
 * a few seconds.  Not part of the Check runner (no main here).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sparkplan/clean.h"

#include "../qscan_ref.h"
#include "fuzz.h"

static void same_verdict(const uint8_t *data, size_t size)
{
    char *copy = malloc(size ? size : 1);
    if (!copy)
        return;
    memcpy(copy, data, size);
    bool whole = clean_quick_scan(copy, size);
    check(whole == clean_quick_scan_ref(copy, size));
    /* In pieces, as the loader's two threads scan a big input (clean.h): one after every
       empty line, and one at most every 61 bytes. */
    check(clean_quick_scan_pieces(copy, size, 1) == whole);
    check(clean_quick_scan_pieces(copy, size, 61) == whole);
    free(copy);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    same_verdict(data, size);
    /* The first 16 starts after a line end, and the first 16 bytes. */
    size_t starts = 0;
    for (size_t i = 0; i < size && starts < 16; i++)
        if (data[i] == '\n') {
            same_verdict(data + i + 1, size - i - 1);
            starts++;
        }
    for (size_t k = 1; k < 16 && k < size; k++)
        same_verdict(data + k, size - k);
    return 0;
}
