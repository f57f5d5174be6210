/* freshmem.c: big blocks of new memory, as huge pages where they are cheap (see freshmem.h). */
#define _GNU_SOURCE /* MAP_ANONYMOUS, MADV_HUGEPAGE */
#include "sparkplan/freshmem.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#define HUGE_PAGE (2u << 20)
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* Linux 5.14; older kernels say EINVAL and pages are touched */
#endif

/* Free blocks of 2 MB and more the kernel holds (/proc/buddyinfo, in 2 MB units), or 0
 * when it cannot be read.  Huge pages are asked for only while there are twice as many as a
 * block needs: where memory is fragmented the kernel would compact it first, and such a
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

/* The count is read once and then kept, less the blocks asked for since, for up to
 * BUDDY_FRESH_NS: a big load readies 20-30 blocks in a few hundred ms (stores growing, the
 * arena's chunks, records), and reading the file each time was 20-30 opens and reads of
 * /proc a load.  What this process asks for it takes off the count, so the count can only
 * be lower than the kernel's (blocks given back by others or by munmap are not added):
 * when it says "not enough" the file is read again before huge pages are refused, so the
 * answer is the one a fresh read gives unless another process took free memory within
 * the interval.  A later load (a file opened or reloaded in the explorer) reads it anew. */
#define BUDDY_FRESH_NS 1000000000ull

static pthread_mutex_t buddy_mu = PTHREAD_MUTEX_INITIALIZER;
static size_t buddy_blocks;    /* free 2 MB blocks: read at buddy_at, less those taken since */
static uint64_t buddy_at;      /* CLOCK_MONOTONIC ns of the read; 0: never read */

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec + 1;
}

/* Free huge pages can still be dear to fault in.  On a virtual machine whose host takes
 * back what the guest frees (free page reporting: the benchmark machine's balloon device
 * reports free blocks from 128 KB on), a free 2 MB block is backed again only when it is
 * first written, and the whole block at once.  Measured there, 56 MB as huge pages took
 * 2.8 ms to fault in right after another process had freed them, and 115-227 ms three
 * seconds later; as 4 KB pages (the guest's own recently freed small pages, which it keeps)
 * 23 ms and 33-48 ms.  So the first huge page of a block is timed (a warm one is written in
 * about 0.1 ms): slower than HUGE_FAULT_DEAR_NS, the rest of the block and every block for
 * the next HUGE_DEAR_FOR_NS is 4 KB pages. */
#define HUGE_FAULT_DEAR_NS 1000000ull
#define HUGE_DEAR_FOR_NS 1000000000ull
static uint64_t huge_dear_until; /* under buddy_mu: CLOCK_MONOTONIC ns; 0: never seen dear */
static uint64_t huge_fault_dear_ns = HUGE_FAULT_DEAR_NS; /* (freshmem_set_huge_fault_dear) */

void freshmem_set_huge_fault_dear(uint64_t ns)
{
    pthread_mutex_lock(&buddy_mu);
    huge_fault_dear_ns = ns ? ns : HUGE_FAULT_DEAR_NS;
    huge_dear_until = 0;
    pthread_mutex_unlock(&buddy_mu);
}

/* Whether huge pages are dear now (one was, less than HUGE_DEAR_FOR_NS ago). */
static bool huge_pages_dear(void)
{
    pthread_mutex_lock(&buddy_mu);
    bool dear = huge_dear_until && now_ns() < huge_dear_until;
    pthread_mutex_unlock(&buddy_mu);
    return dear;
}

/* Huge pages are asked for when there are twice as many free as len needs and the last one
 * faulted in was not dear; when they are, the blocks len takes are counted as taken. */
static bool huge_pages_cheap(size_t len)
{
    size_t need = (len + HUGE_PAGE - 1) / HUGE_PAGE;
    if (huge_pages_dear())
        return false;
    pthread_mutex_lock(&buddy_mu);
    uint64_t now = now_ns();
    bool fresh = buddy_at && now - buddy_at < BUDDY_FRESH_NS;
    if (!fresh || buddy_blocks < 2 * need) {
        buddy_blocks = free_huge_blocks();
        buddy_at = now;
    }
    bool cheap = buddy_blocks >= 2 * need;
    if (cheap)
        buddy_blocks -= need;
    pthread_mutex_unlock(&buddy_mu);
    return cheap;
}

void freshmem_advise(void *p, size_t len)
{
#ifdef MADV_HUGEPAGE
    /* The whole pages of the block: madvise wants a page boundary, and a part of a page
       belongs to the allocator's bookkeeping or another block. */
    uintptr_t a = ((uintptr_t)p + 4095) & ~(uintptr_t)4095, e = ((uintptr_t)p + len) & ~(uintptr_t)4095;
    if (e > a && e - a >= HUGE_PAGE && huge_pages_cheap(e - a))
        madvise((void *)a, e - a, MADV_HUGEPAGE);
#else
    (void)p;
    (void)len;
#endif
}

/* Anonymous memory on 2 MB boundaries, asked for as transparent huge pages, with every page
 * made present before it is written.  On the reference VM 130 MB of 4 KB pages took 38-44 ms
 * to fault in (MAP_POPULATE); as 2 MB pages the same memory is present in 15-16 ms
 * (BENCHMARKS.md).  Where huge pages are off (THP "never") or memory is fragmented, this is
 * the 4 KB path. */
static void prepare(void *base, size_t len, bool present);

void *freshmem_map(size_t want, size_t *mapped_len)
{
    if (want > SIZE_MAX - 2 * (size_t)HUGE_PAGE)
        return NULL;
    size_t len = (want + HUGE_PAGE - 1) & ~(size_t)(HUGE_PAGE - 1);
    char *base = freshmem_reserve(len, HUGE_PAGE, PROT_READ | PROT_WRITE, 0);
    if (!base)
        return NULL;
    prepare(base, len, false);
    *mapped_len = len;
    return base;
}

void *freshmem_reserve(size_t len, size_t align, int prot, int flags)
{
    if (len > SIZE_MAX - align)
        return NULL;
    char *m = mmap(NULL, len + align, prot, MAP_PRIVATE | MAP_ANONYMOUS | flags, -1, 0);
    if (m == MAP_FAILED)
        return NULL;
    /* Keep the aligned len bytes; give back the unaligned head and tail. */
    char *base = (char *)(((uintptr_t)m + align - 1) & ~(uintptr_t)(align - 1));
    if (base > m)
        munmap(m, (size_t)(base - m));
    if (base + len < m + len + align)
        munmap(base + len, (size_t)(m + len + align - (base + len)));
    return base;
}

/* The first huge page of [base, base + len), just asked for as huge pages, made present and
 * timed: true when it was dear (HUGE_FAULT_DEAR_NS), the next blocks then 4 KB pages.  Made
 * present, not written: a store growing over a window another thread already wrote
 * (plan.c, document_nodes_window) keeps its bytes.  A kernel without MADV_POPULATE_WRITE
 * says no at once: not dear. */
static bool first_huge_page_dear(char *base)
{
    uint64_t t0 = now_ns();
    if (madvise(base, HUGE_PAGE, MADV_POPULATE_WRITE) != 0)
        return false;
    uint64_t t1 = now_ns();
    pthread_mutex_lock(&buddy_mu);
    if (t1 - t0 <= huge_fault_dear_ns) {
        pthread_mutex_unlock(&buddy_mu);
        return false;
    }
    huge_dear_until = t1 + HUGE_DEAR_FOR_NS;
    pthread_mutex_unlock(&buddy_mu);
    return true;
}

/* freshmem_prepare's body.  With huge pages dear, present says what to do with the 4 KB
 * pages: make them present at once (a store's next step, written soon and partly read first:
 * a page faulted in lazily by a read is the zero page, and the write after it replaces that
 * with a copy and a TLB shootdown to the other core, an exit to the host on the benchmark
 * machine), or leave them to be faulted in as written (a big block whose tail may never be
 * used: an arena chunk; made present at once, such tails took the corpus paste's peak to
 * 296 MB). */
static void prepare(void *base, size_t len, bool present)
{
    bool huge = false;
#ifdef MADV_HUGEPAGE
    if (huge_pages_dear()) {
        (void)madvise(base, len, MADV_NOHUGEPAGE);
        if (!present)
            return;
    } else {
        if (huge_pages_cheap(len))
            huge = madvise(base, len, MADV_HUGEPAGE) == 0;
        if (huge && len > HUGE_PAGE && first_huge_page_dear(base)) {
            base = (char *)base + HUGE_PAGE;
            len -= HUGE_PAGE;
            (void)madvise(base, len, MADV_NOHUGEPAGE);
            if (!present)
                return;
            huge = false;
        }
    }
#else
    (void)present;
#endif
    /* As 2 MB pages the block is faulted in a page at a time as it is written: 64 faults for
       128 MB, and an unused tail never becomes resident.  As 4 KB pages it is made present
       in one call. */
    if (!huge && madvise(base, len, MADV_POPULATE_WRITE) != 0) {
        /* Bound: one write per 4 KB page of the block. */
        for (size_t i = 0; i < len; i += 4096)
            ((volatile char *)base + i)[0] = 0;
    }
}

void freshmem_prepare(void *base, size_t len)
{
    prepare(base, len, true);
}

void *freshmem_record(size_t len)
{
    void *p = freshmem_reserve(len, HUGE_PAGE, PROT_READ | PROT_WRITE, MAP_NORESERVE);
    if (p)
        freshmem_advise(p, len);
    return p;
}

void freshmem_release(void *p, size_t len)
{
    uintptr_t a = ((uintptr_t)p + 4095) & ~(uintptr_t)4095, e = ((uintptr_t)p + len) & ~(uintptr_t)4095;
    if (e > a)
        madvise((void *)a, e - a, MADV_DONTNEED);
}

void freshmem_unmap(void *p, size_t len)
{
    if (p)
        munmap(p, len);
}
