/* arena.c: chunked bump allocator (see arena.h). */
#define _GNU_SOURCE /* MAP_ANONYMOUS, MAP_POPULATE */
#include "sparkplan/arena.h"

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
#define POPULATE_MIN (4u << 20) /* chunks from here on are mapped, populated (chunk_map) */

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
#define HUGE_PAGE (2u << 20)
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* Linux 5.14; older kernels say EINVAL and pages are touched */
#endif

/* Free blocks of 2 MB and more the kernel holds (/proc/buddyinfo, in 2 MB units), or 0
 * when it cannot be read.  Huge pages are asked for only while there are twice as many as a
 * chunk needs: where memory is fragmented the kernel would compact it first, and such a
 * fault stalls for seconds (seen with MADV_HUGEPAGE on a 300 MB buffer, BENCHMARKS.md). */
static size_t free_huge_blocks(void)
{
    FILE *f = fopen("/proc/buddyinfo", "r");
    if (!f)
        return 0;
    size_t blocks = 0;
    char line[512];
    /* Bound: one line per memory zone. */
    while (fgets(line, sizeof line, f)) {
        char *p = strstr(line, "zone");
        if (!p)
            continue;
        p += 4;
        while (*p == ' ')
            p++;
        while (*p && *p != ' ') /* the zone's name */
            p++;
        for (int order = 0; order < 16; order++) { /* bound: the orders of the line */
            char *end;
            unsigned long n = strtoul(p, &end, 10);
            if (end == p)
                break;
            if (order >= 9)
                blocks += n << (order - 9);
            p = end;
        }
    }
    fclose(f);
    return blocks;
}

/* A big chunk: anonymous memory on 2 MB boundaries, asked for as transparent huge pages,
 * with every page made present before the parser writes to it.  On the reference VM 130 MB
 * of 4 KB pages took 38-44 ms to fault in (MAP_POPULATE), a third of the budget for loading
 * a million operators; as 2 MB pages the same memory is present in 15-16 ms (BENCHMARKS.md).
 * Where huge pages are off (THP "never") or memory is fragmented, this is the 4 KB path. */
static struct arena_chunk *chunk_map(size_t want, size_t *mapped_len)
{
    size_t len = (want + HUGE_PAGE - 1) & ~(size_t)(HUGE_PAGE - 1);
    char *m = mmap(NULL, len + HUGE_PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                   -1, 0);
    if (m == MAP_FAILED)
        return NULL;
    /* Keep the aligned len bytes; give back the unaligned head and tail. */
    char *base = (char *)(((uintptr_t)m + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1));
    if (base > m)
        munmap(m, (size_t)(base - m));
    if (base + len < m + len + HUGE_PAGE)
        munmap(base + len, (size_t)(m + len + HUGE_PAGE - (base + len)));
    bool huge = false;
#ifdef MADV_HUGEPAGE
    if (free_huge_blocks() >= 2 * (len / HUGE_PAGE))
        huge = madvise(base, len, MADV_HUGEPAGE) == 0;
#endif
    /* As 2 MB pages the chunk is faulted in a page at a time as the arena hands it out: 64
       faults for 128 MB, and the last chunk's unused tail (up to an eighth of the model)
       never becomes resident.  As 4 KB pages it is made present in one call. */
    if (!huge && madvise(base, len, MADV_POPULATE_WRITE) != 0) {
        /* Bound: one write per 4 KB page of the chunk. */
        for (size_t i = 0; i < len; i += 4096)
            ((volatile char *)base)[i] = 0;
    }
    *mapped_len = len;
    return (struct arena_chunk *)(void *)base;
}

void arena_prepare_pages(char *base, size_t len)
{
    bool huge = false;
#ifdef MADV_HUGEPAGE
    if (free_huge_blocks() >= 2 * (len / HUGE_PAGE))
        huge = madvise(base, len, MADV_HUGEPAGE) == 0;
#endif
    if (!huge && madvise(base, len, MADV_POPULATE_WRITE) != 0) {
        /* Bound: one write per 4 KB page of the range. */
        for (size_t i = 0; i < len; i += 4096)
            ((volatile char *)base)[i] = 0;
    }
}

static struct arena_chunk *chunk_new(size_t size)
{
    struct arena_chunk *c;
    size_t mapped_len = 0;
    if (size >= POPULATE_MIN) {
        c = chunk_map(sizeof *c + size, &mapped_len);
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
 * 1/8 of what is used up to 32 MB.  A pasted plan or a sample costs 64 KB, not a 1 MB calloc
 * (which under ASan is an mmap and a page fault per page: half of a fuzz run's time); a
 * 400 MB model takes ~30 chunks instead of 400 and the unused tail of the last chunk stays
 * under 1/8 (untouched pages of it are never resident anyway). */
static size_t next_chunk_size(const struct arena *a)
{
    size_t want = a->used_bytes / 8;
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
