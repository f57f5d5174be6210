/* mapfile.c: big files mapped, with a SIGBUS guard for files truncated under us (see
 * mapfile.h). */
#define _GNU_SOURCE /* MAP_ANONYMOUS, MAP_POPULATE, mremap */
#include "sparkplan/mapfile.h"

#include "sparkplan/freshmem.h"
#include "sparkplan/thread.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* The live mappings, read by the signal handler.  A handful of documents is open at once;
 * past that, files are read instead. */
#define MAX_MAPS 32

static struct {
    char *volatile start;
    volatile size_t len; /* the whole mapping, guard byte included, page-rounded */
    bool copied;         /* the file's pages were swapped for a writable copy (mapfile_writable) */
    /* The swap running on a thread of its own (mapfile_writable_begin), not yet joined: only
       the thread that began it joins it, in mapfile_writable, mapfile_writable_end or
       mapfile_close. */
    bool swapping;
    pthread_t swapper;
    struct swap_job *job;
} maps[MAX_MAPS];

static size_t page_size;

#define HUGE_ALIGN ((size_t)2 << 20)
#define SWAP_PIECE ((size_t)8 << 20) /* a multiple of any page size */
static struct sigaction previous_bus;
static bool handler_installed;

/* A read past the end of a file that shrank: zero pages from that page to the end of the
 * mapping, and the read goes on.  A SIGBUS anywhere else gets the previous disposition
 * (the faulting instruction runs again and raises it anew). */
static void on_sigbus(int sig, siginfo_t *info, void *context)
{
    (void)context;
    uintptr_t addr = (uintptr_t)info->si_addr;
    for (int i = 0; i < MAX_MAPS; i++) {
        uintptr_t start = (uintptr_t)maps[i].start, len = maps[i].len;
        if (!start || addr < start || addr >= start + len)
            continue;
        uintptr_t page = addr & ~(uintptr_t)(page_size - 1);
        /* Writable: clean-up may be writing its text over the mapping (mapfile_writable). */
        if (mmap((void *)page, start + len - page, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_FIXED | MAP_ANONYMOUS, -1, 0) != MAP_FAILED)
            return;
        break;
    }
    sigaction(sig, &previous_bus, NULL);
}

static bool install_handler(void)
{
    if (handler_installed)
        return true;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_sigbus;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGBUS, &sa, &previous_bus) != 0)
        return false;
    handler_installed = true;
    return true;
}

static size_t round_up(size_t n, size_t to)
{
    return (n + to - 1) / to * to;
}

/* read() that retries on EINTR. */
static ssize_t pread_some(int fd, char *buf, size_t n, off_t at)
{
    ssize_t got;
    do
        got = pread(fd, buf, n, at);
    while (got < 0 && errno == EINTR);
    return got;
}

/* A big file read, or its pages mapped in, by two threads that take it a piece at a time
 * (PIECE bytes, from the front) until none is left: most of the work is the first touch of
 * each fresh page, whose cost moves with the host (one half of the 102 MB event log was
 * read in 117 ms while the other took 157, the faster thread idle meanwhile); taken a piece
 * at a time, the threads end within a piece of each other.  A piece is a multiple of 2 MB
 * at a 2 MB boundary of the file, so a huge page is never shared by both threads. */
#define PIECE ((size_t)4 << 20)

struct piece_job {
    int fd;
    char *buf;
    size_t size;
    atomic_size_t next; /* the next piece's number */
    atomic_bool failed; /* a read error (pieces_read) */
    bool populate;      /* map the pages in (MADV_POPULATE_READ) instead of reading */
};

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22 /* Linux 5.14 on; older kernels refuse it (EINVAL) */
#endif

/* [from, to) of the file read into buf + from; false on a read error.  A file cut short
 * meanwhile leaves the rest as it was (zeros). */
static bool read_range(int fd, char *buf, size_t from, size_t to)
{
    /* Bound: each round reads more, or ends the loop. */
    for (size_t at = from; at < to;) {
        ssize_t n = pread_some(fd, buf + at, to - at, (off_t)at);
        if (n < 0)
            return false;
        if (n == 0)
            break;
        at += (size_t)n;
    }
    return true;
}

static void *take_pieces(void *arg)
{
    struct piece_job *job = arg;
    /* Bound: one piece a round, each taken once. */
    for (;;) {
        size_t k = atomic_fetch_add(&job->next, 1);
        if (k >= (job->size + PIECE - 1) / PIECE || atomic_load(&job->failed))
            break;
        size_t from = k * PIECE, to = job->size - from > PIECE ? from + PIECE : job->size;
        if (job->populate) {
            /* A kernel that cannot (EINVAL), or a file cut short meanwhile (EFAULT): the
               pages are then mapped in as they are first read, the SIGBUS guard covering
               the cut. */
            (void)madvise(job->buf + from, to - from, MADV_POPULATE_READ);
        } else if (!read_range(job->fd, job->buf, from, to)) {
            atomic_store(&job->failed, true);
        }
    }
    return NULL;
}

/* The job's pieces taken by this thread and, from MAPFILE_POPULATE_HALVES_MIN on, a second
 * one at once (turns_run_two: this one alone when no thread can be had). */
static void run_pieces(struct piece_job *job)
{
    atomic_init(&job->next, 0);
    atomic_init(&job->failed, false);
    if (job->size >= MAPFILE_POPULATE_HALVES_MIN)
        turns_run_two(take_pieces, job);
    else
        take_pieces(job);
}

/* The first size bytes of the file read into buf, on two threads from
 * MAPFILE_POPULATE_HALVES_MIN on: most of a big read is the fault of each fresh page and the
 * copy into it, which two cores do at once (one pread of the 102 MB event log took 16 ms). */
static bool read_in_pieces(int fd, char *buf, size_t size)
{
    struct piece_job job = {.fd = fd, .buf = buf, .size = size};
    run_pieces(&job);
    return !atomic_load(&job.failed);
}

/* A file whose first byte other than a blank is '{' (an event log's JSON lines, a notebook)
 * holds its plans in strings, which clean-up decodes over the input: such a file is read
 * into fresh memory (freshmem.h) rather than mapped, and is writable from the start.
 * Mapped, the first touch of each page and then its copy when first written (or the swap
 * for a copy, mapfile_writable) cost more than the read: on the benchmark VM, for a 100 MB
 * event-log line, 90-110 ms for the first reads of the mapping and 90-110 ms for the swap,
 * against 25-40 ms for the read into huge pages.  NULL for other files, or when the read
 * fails (the file is mapped then).  Bytes past what read() gave (a file that shrank) stay
 * NUL, as a mapping's zero pages past the cut. */
static char *json_read(int fd, size_t size, size_t total)
{
    char head[64];
    ssize_t got = pread_some(fd, head, sizeof head, 0);
    ssize_t i = 0;
    while (i < got && (head[i] == ' ' || head[i] == '\t' || head[i] == '\n' || head[i] == '\r'))
        i++;
    if (i >= got || head[i] != '{')
        return NULL;
    size_t len;
    char *buf = freshmem_map(total, &len);
    if (!buf)
        return NULL;
    if (len > total)
        munmap(buf + total, len - total);
    if (!read_in_pieces(fd, buf, size)) {
        munmap(buf, total);
        return NULL;
    }
    return buf;
}

/* The pages of the mapping [p, p + len) mapped in, on two threads (run_pieces). */
static void populate_in_pieces(char *p, size_t len)
{
    struct piece_job job = {.fd = -1, .buf = p, .size = len, .populate = true};
    run_pieces(&job);
}

char *mapfile_open(int fd, size_t size)
{
    if (!page_size) {
        long ps = sysconf(_SC_PAGESIZE);
        if (ps <= 0)
            return NULL;
        page_size = (size_t)ps;
    }
    if (size < MAPFILE_MIN_SIZE || size > SIZE_MAX - 2 * page_size || !install_handler())
        return NULL;
    int slot = 0;
    while (slot < MAX_MAPS && maps[slot].start)
        slot++;
    if (slot == MAX_MAPS)
        return NULL;
    size_t total = round_up(size + 1, page_size);
    char *read_in = json_read(fd, size, total);
    if (read_in) {
        maps[slot].len = total;
        maps[slot].copied = true;
        maps[slot].start = read_in;
        return read_in;
    }
    /* Zero pages for the whole length first, then the file over them: the guard byte is the
       zero tail of the file's last page, or a zero page of its own when the file ends on a
       page boundary. */
    /* On a 2 MB boundary: a writable copy made of huge pages (mapfile_writable) is moved
       here whole, without splitting its pages. */
    size_t align = HUGE_ALIGN > page_size ? HUGE_ALIGN : page_size;
    char *base = freshmem_reserve(total, align, PROT_READ, 0);
    if (!base)
        return NULL;
    bool halves = size >= MAPFILE_POPULATE_HALVES_MIN;
    if (mmap(base, round_up(size, page_size), PROT_READ,
             MAP_PRIVATE | MAP_FIXED | (halves ? 0 : MAP_POPULATE), fd, 0) == MAP_FAILED) {
        munmap(base, total);
        return NULL;
    }
    if (halves)
        populate_in_pieces(base, round_up(size, page_size));
    maps[slot].len = total;
    maps[slot].copied = false;
    maps[slot].start = base;
    return base;
}

/* The mapping's file pages swapped for a copy in fresh memory (freshmem.h), moved to the
 * same address so every pointer into it stays good.  Writing over the file's pages in
 * place makes each page fault on its first write, copy itself and flush the TLB: on the
 * benchmark VM that cost 1.3-1.4 s for an event log's 100 MB line (its plan decoded over
 * it), against 90-110 ms for the copy made in one go as huge pages.
 * A piece at a time, each piece moved over the file's pages once copied: the file and its
 * copy are never both resident beyond a piece a thread (peak memory stays that of the file,
 * as when written in place), and a reader on another thread (mapfile_writable_begin) finds
 * every page present, the file's before its piece is moved and the copy's after (the
 * file's pages let go with MADV_DONTNEED were read again from the page cache, a fault a
 * page).  The pieces are multiples of 2 MB at 2 MB boundaries of both: huge pages stay
 * whole.  The rest of the copy stays zero: the guard byte.  The pieces are taken in turn by
 * the swap's thread and, once it waits for the swap (mapfile_writable), by the caller's:
 * most of the swap is the first touch of the copy's fresh pages, and the caller had nothing
 * else to do then (12-20 ms of a 109 MB paste's load on the benchmark VM). */
struct swap_job {
    char *p;
    size_t size, total;
    void (*first)(void *);
    void *arg;
    char *copy;           /* freshmem_map'd, copy_len bytes */
    size_t copy_len;
    atomic_size_t next;   /* the next piece's number */
    atomic_bool failed;   /* a piece could not be moved: the pieces left are let go */
};

/* The swap's pieces taken in turn until none is left. */
static void swap_pieces(struct swap_job *job)
{
    size_t last = (job->size - 1) / SWAP_PIECE; /* the piece with the file's end and the tail */
    /* Bound: one piece a round, each taken once. */
    for (;;) {
        size_t k = atomic_fetch_add(&job->next, 1);
        if (k > last)
            break;
        size_t at = k * SWAP_PIECE, len = k < last ? SWAP_PIECE : job->total - at;
        if (atomic_load(&job->failed)) {
            /* (the moved pieces hold the file's bytes: the mapping reads the same) */
            munmap(job->copy + at, len);
            continue;
        }
        memcpy(job->copy + at, job->p + at, k < last ? SWAP_PIECE : job->size - at);
        if (mremap(job->copy + at, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, job->p + at) ==
            MAP_FAILED) {
            munmap(job->copy + at, len);
            atomic_store(&job->failed, true);
        }
    }
}

/* The fresh memory for the copy; false when there is none. */
static bool swap_prepare(struct swap_job *job)
{
    job->copy = freshmem_map(job->total, &job->copy_len);
    atomic_init(&job->next, 0);
    atomic_init(&job->failed, false);
    return job->copy != NULL;
}

/* Once every piece is done: the copy's rest past the mapping given back; true when the
   mapping is the copy now. */
static bool swap_finish(struct swap_job *job)
{
    if (job->copy_len > job->total)
        munmap(job->copy + job->total, job->copy_len - job->total);
    return !atomic_load(&job->failed);
}

static bool swap_for_copy(char *p, size_t size, size_t total)
{
    struct swap_job job = {.p = p, .size = size, .total = total};
    if (!swap_prepare(&job))
        return false;
    swap_pieces(&job);
    return swap_finish(&job);
}

/* The swap of mapfile_writable_begin, on its thread. */
static void *swap_main(void *arg)
{
    struct swap_job *job = arg;
    if (job->first)
        job->first(job->arg);
    swap_pieces(job);
    return NULL;
}

static int slot_of(const char *p)
{
    for (int i = 0; p && i < MAX_MAPS; i++)
        if (maps[i].start == p)
            return i;
    return -1;
}

/* Joins slot i's swap thread, if any: the mapping is the copy when it succeeded. */
static void swap_join(int i)
{
    if (!maps[i].swapping)
        return;
    swap_pieces(maps[i].job); /* the pieces the swap's thread has not taken yet */
    pthread_join(maps[i].swapper, NULL);
    maps[i].swapping = false;
    if (swap_finish(maps[i].job))
        maps[i].copied = true;
    free(maps[i].job);
    maps[i].job = NULL;
}

bool mapfile_writable_begin(char *p, size_t size, void (*first)(void *), void *arg)
{
    int i = slot_of(p);
    if (i < 0 || !page_size || maps[i].copied || maps[i].swapping)
        return false;
    struct swap_job *job = malloc(sizeof *job);
    if (!job)
        return false;
    *job = (struct swap_job){.p = p, .size = size, .total = round_up(size + 1, page_size),
                             .first = first, .arg = arg};
    if (!swap_prepare(job)) {
        free(job);
        return false;
    }
    if (!thread_start_quiet(&maps[i].swapper, swap_main, job)) {
        munmap(job->copy, job->copy_len);
        free(job);
        return false;
    }
    maps[i].job = job;
    maps[i].swapping = true;
    return true;
}

bool mapfile_writable_pending(const char *p)
{
    int i = slot_of(p);
    return i >= 0 && maps[i].swapping;
}

void mapfile_writable_end(char *p)
{
    int i = slot_of(p);
    if (i >= 0)
        swap_join(i);
}

bool mapfile_writable(char *p, size_t size)
{
    if (!p || !page_size)
        return false;
    size_t total = round_up(size + 1, page_size);
    for (int i = 0; i < MAX_MAPS; i++) {
        if (maps[i].start != p)
            continue;
        swap_join(i);
        if (maps[i].copied || swap_for_copy(p, size, total)) {
            maps[i].copied = true;
            return true;
        }
        break;
    }
    /* Not enough fresh memory at once: the file's pages, copied as they are written. */
    return mprotect(p, total, PROT_READ | PROT_WRITE) == 0;
}

void mapfile_close(char *p, size_t size)
{
    if (!p)
        return;
    size_t total = round_up(size + 1, page_size);
    for (int i = 0; i < MAX_MAPS; i++)
        if (maps[i].start == p) {
            swap_join(i);
            maps[i].start = NULL;
            maps[i].len = 0;
        }
    munmap(p, total);
}
