/* freshmem: big blocks of new anonymous memory, made present at the lowest cost the machine
 * offers.
 *
 * Why: on the benchmark VMs the first touch of a fresh 4 KB page costs about as much as
 * reading 1 KB of a file (BENCHMARKS.md); as transparent 2 MB pages the same memory is
 * present several times faster.  The arena's big chunks and the writable copy of a mapped
 * input (mapfile_writable) both come from here.
 * Owns: nothing after it returns; the caller munmap()s the block (mapped_len bytes).
 * Never: asks for huge pages where the kernel would first have to compact memory for them
 * (such a fault can stall for seconds); then the block is 4 KB pages, made present in one
 * call.  The free 2 MB blocks are read from /proc/buddyinfo once a load (kept for a
 * second, less what this process asked for since, read again before huge pages are
 * refused); safe from any thread.
 */
#ifndef SPARKPLAN_FRESHMEM_H
#define SPARKPLAN_FRESHMEM_H

#include <stddef.h>
#include <stdint.h>

/* At least want bytes, zeroed, readable and writable, on a 2 MB boundary, every page present
 * (but where huge pages are dear, freshmem_set_huge_fault_dear: its 4 KB pages come as written);
 * *mapped_len is the length mapped (want rounded up to 2 MB).  NULL when out of memory. */
void *freshmem_map(size_t want, size_t *mapped_len);

/* len bytes of anonymous memory (MAP_PRIVATE | MAP_ANONYMOUS | flags, with prot) starting
 * on an align boundary (a power of two, at least the page size): the unaligned head and
 * tail of a larger mapping are given back.  NULL when it cannot be mapped.  The caller
 * munmap()s len bytes from the returned base. */
void *freshmem_reserve(size_t len, size_t align, int prot, int flags);

/* The first huge page of each block freshmem_prepare readies is timed: when writing it took
 * longer than this (ns; 0: the default, 1 ms), huge pages are dear on this machine now (a
 * virtual machine's host backs a freed block again only when it is written: 40-80 times
 * the cost of a warm one, measured on the benchmark machine), and the rest of the block and
 * every block of the next second are 4 KB pages.  For the tests. */
void freshmem_set_huge_fault_dear(uint64_t ns);

/* Readies fresh anonymous memory already mapped (base and len on 2 MB boundaries) the way
 * freshmem_map readies its blocks: huge pages where they are cheap, else every page made
 * present in one call.  For owners of big memory that grows in place (plan.c's node store,
 * a reservation made usable as it fills). */
void freshmem_prepare(void *base, size_t len);

/* Asks for huge pages (where they are cheap, as above) for the pages of a big block from
 * malloc that are not present yet and are about to be written whole (a line array of
 * millions of lines): each 2 MB of it is then one fault instead of 512.  Nothing else
 * changes: the block is still realloc'd and freed as malloc's. */
void freshmem_advise(void *p, size_t len);

/* A reservation of len bytes for a record written front to back and read once, front to
 * back (the details reader's blocks, parse.c): address space only (MAP_NORESERVE), its
 * pages made present as they are first written, as huge pages where they are cheap.  NULL
 * when it cannot be mapped.  Given back with freshmem_unmap. */
void *freshmem_record(size_t len);
/* Gives back the memory of the whole pages inside [p, p + len) (what was read already):
 * they read as zeros if touched again. */
void freshmem_release(void *p, size_t len);
/* Unmaps a block of len bytes from freshmem_record (NULL: nothing). */
void freshmem_unmap(void *p, size_t len);

#endif
