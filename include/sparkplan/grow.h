/* grow: the one way a malloc'd array grows to hold `need` elements.
 *
 * Owns nothing: *v stays the caller's (realloc'd here, freed by the caller).  Capacities
 * double from 64, so the copies cost stay linear in the final size; large blocks move with
 * mremap inside realloc and are not copied at all.
 * Never: aborts.  Returns false, with *v and *cap untouched, when the memory cannot be had
 * or need * size would not fit a size_t.
 */
#ifndef SPARKPLAN_GROW_H
#define SPARKPLAN_GROW_H

#include <stdbool.h>
#include <stddef.h>

bool grow_array(void **v, size_t *cap, size_t need, size_t size);

#endif
