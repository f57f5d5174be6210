/* arena.c: chunked bump allocator (see arena.h). */
#include "sparkplan/arena.h"

#include "sparkplan/freshmem.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define ARENA_CHUNK_FIRST (64u << 10)
#define ARENA_CHUNK_SIZE (1u << 20)
#define ARENA_CHUNK_MAX (32u << 20)
/* Every type the model stores (pointers, sizes, doubles) needs 8 bytes at most; rounding
   to 16 cost a 184-byte node 8 bytes more (4 % of a node-heavy model). */
#define ARENA_ALIGN 8u
#define POPULATE_MIN (4u << 20) /* chunks from here on are mapped, populated (freshmem.h) */

struct arena_chunk {
    struct arena_chunk *next;
    size_t size, used;
    size_t mapped_len; /* 0: calloc'd; else the length of its mapping */
    _Alignas(8) unsigned char data[];
};

void arena_init(struct arena *a)
{
    a->head = NULL;
    a->used_bytes = 0;
}

/* Chunks come zeroed from calloc, so arena_alloc never clears memory again: a fresh chunk is
 * mapped zero pages (calloc skips its memset for them), and the bump pointer never hands
 * out the same bytes twice.  Zeroing each block again touched every page of the model twice
 * (memset was 17 % of loading a 1M-node formatted plan, its page faults included). */
static struct arena_chunk *chunk_new(size_t size)
{
    struct arena_chunk *c;
    size_t mapped_len = 0;
    if (size >= POPULATE_MIN) {
        c = freshmem_map(sizeof *c + size, &mapped_len);
        if (c) /* the rounding up to 2 MB is the chunk's to use */
            size = mapped_len - sizeof *c;
    } else {
        c = calloc(1, sizeof *c + size);
    }
    if (!c)
        return NULL;
    c->mapped_len = mapped_len;
    c->next = NULL;
    c->size = size;
    c->used = 0;
    return c;
}

/* Chunk size grows with the arena: 64 KB first, doubling with what is used up to 1 MB, then
 * 1/8 of what is used up to 32 MB, and never under 4 MB once 4 MB are used.  A pasted plan
 * or a sample costs 64 KB, not a 1 MB calloc (which under ASan is an mmap and a page fault
 * per page: half of a fuzz run's time); a 400 MB model takes ~30 chunks instead of 400 and
 * the unused tail of the last chunk stays under 1/8 (untouched pages of it are never
 * resident anyway) or under 4 MB.  The 4 MB floor makes every chunk after the first 4 MB a
 * mapped one (chunk_new: huge pages, or 4 KB pages made present in one call): the 1 MB
 * chunks between 4 and 32 MB used were calloc'd, a page fault every 4 KB, 90 ms of loading
 * the 100 MB event-log line on the benchmark VM (BENCHMARKS.md finding 10). */
static size_t next_chunk_size(const struct arena *a)
{
    size_t want = a->used_bytes / 8;
    if (a->used_bytes >= POPULATE_MIN && want < POPULATE_MIN)
        return POPULATE_MIN;
    if (want >= ARENA_CHUNK_SIZE)
        return want > ARENA_CHUNK_MAX ? ARENA_CHUNK_MAX : want;
    want = a->used_bytes;
    if (want < ARENA_CHUNK_FIRST)
        return ARENA_CHUNK_FIRST;
    return want > ARENA_CHUNK_SIZE ? ARENA_CHUNK_SIZE : want;
}

void *arena_alloc(struct arena *a, size_t size)
{
    if (size == 0)
        size = 1;
    if (size > SIZE_MAX - ARENA_ALIGN)
        return NULL;
    size_t rounded = (size + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
    struct arena_chunk *c = a->head;
    if (!c || c->size - c->used < rounded) {
        size_t chunk = next_chunk_size(a);
        if (rounded > chunk / 4) {
            /* A big block gets its own chunk, linked behind the head so the head's free
               space is not wasted. */
            struct arena_chunk *big = chunk_new(rounded);
            if (!big)
                return NULL;
            big->used = rounded;
            if (a->head) {
                big->next = a->head->next;
                a->head->next = big;
            } else {
                a->head = big;
            }
            a->used_bytes += rounded;
            return big->data;
        }
        c = chunk_new(chunk);
        if (!c)
            return NULL;
        c->next = a->head;
        a->head = c;
    }
    void *p = c->data + c->used;
    c->used += rounded;
    a->used_bytes += rounded;
    return p;
}

void *arena_dup(struct arena *a, const void *src, size_t size)
{
    void *p = arena_alloc(a, size);
    if (p && size)
        memcpy(p, src, size);
    return p;
}

char *arena_strdup(struct arena *a, const char *s)
{
    size_t n = strlen(s);
    char *p = arena_alloc(a, n + 1);
    if (p)
        memcpy(p, s, n + 1);
    return p;
}

char *arena_printf(struct arena *a, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return NULL;
    char *p = arena_alloc(a, (size_t)n + 1);
    if (!p)
        return NULL;
    va_start(ap, fmt);
    vsnprintf(p, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return p;
}

void arena_free(struct arena *a)
{
    struct arena_chunk *c = a->head;
    while (c) {
        struct arena_chunk *next = c->next;
        if (c->mapped_len)
            munmap(c, c->mapped_len);
        else
            free(c);
        c = next;
    }
    a->head = NULL;
    a->used_bytes = 0;
}

void arena_adopt(struct arena *to, struct arena *from)
{
    struct arena_chunk *tail = from->head;
    if (!tail)
        return;
    /* Bound: one step per chunk of `from`. */
    while (tail->next)
        tail = tail->next;
    /* Behind to's head, whose free space stays the next to be handed out. */
    if (to->head) {
        tail->next = to->head->next;
        to->head->next = from->head;
    } else {
        to->head = from->head;
    }
    to->used_bytes += from->used_bytes;
    arena_init(from);
}
