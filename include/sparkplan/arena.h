/* arena: bump allocator for one document.
 *
 * Owns: every block it hands out.  Callers never free what arena_alloc returns;
 * arena_free() releases everything at once.  Large requests get a chunk of their own,
 * so a 50 MB line costs one allocation, not a copy per chunk.
 * Never: aborts.  Allocation failure returns NULL and the caller reports it.
 */
#ifndef SPARKPLAN_ARENA_H
#define SPARKPLAN_ARENA_H

#include <stddef.h>

struct arena_chunk;

struct arena {
    struct arena_chunk *head; /* newest chunk first */
    size_t used_bytes;        /* total handed out, for --stats and the benchmark */
};

void arena_init(struct arena *a);
void *arena_alloc(struct arena *a, size_t size);       /* zeroed, 8-byte aligned */
void *arena_dup(struct arena *a, const void *src, size_t size);
char *arena_strdup(struct arena *a, const char *s);
char *arena_printf(struct arena *a, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void arena_free(struct arena *a);
/* Readies fresh anonymous memory the way big chunks are (2 MB aligned base and len): as
 * transparent huge pages where the kernel has them free, else made present in one call.
 * For other owners of big growing memory (plan.c's node store). */
void arena_prepare_pages(char *base, size_t len);

#endif
