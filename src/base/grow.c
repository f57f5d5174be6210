/* grow.c: growing a malloc'd array (see grow.h). */
#include "sparkplan/grow.h"

#include <stdint.h>
#include <stdlib.h>

bool grow_array(void **v, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return true;
    size_t c = *cap ? *cap : 64;
    /* Bound: doubles until it holds need; stops before c * size overflows. */
    while (c < need) {
        if (c > SIZE_MAX / 2)
            return false;
        c *= 2;
    }
    if (size && c > SIZE_MAX / size)
        return false;
    void *nv = realloc(*v, c * size);
    if (!nv)
        return false;
    *v = nv;
    *cap = c;
    return true;
}
