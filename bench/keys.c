/* keys.c (bench): see keys.h. */
#include "keys.h"

#include <stdio.h>

#if defined(__has_include)
#if __has_include("sparkplan/rows.h")
#define HAVE_ROWS 1
#endif
#endif

#ifndef HAVE_ROWS
int bench_keys(const char *path, long n_keys)
{
    (void)path, (void)n_keys;
    printf("keys=n/a reason=no-row-model\n");
    return 0;
}
#endif
