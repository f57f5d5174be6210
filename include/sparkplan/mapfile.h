/* mapfile: a big regular file mapped into memory instead of read into fresh memory.
 *
 * Why: on the benchmark machine reading 148 MB into a new malloc'd buffer costs 480-630 ms
 * (first touch of fresh pages), mapping the page cache 55-75 ms, as much as `wc -l`.
 * Owns: the mappings it hands out; mapfile_close() releases one.  The mapping is private and
 * read-only until mapfile_writable(); even then nothing ever reaches the file.  It is one byte longer than the file and that
 * byte is NUL (the guard byte load.c gives every input).
 * A file truncated while mapped would make reads past its new end raise SIGBUS; a handler
 * installed on first use maps zero pages there instead, so such a file reads as NUL bytes
 * from the cut on (shown as ^@) and the program never dies of it.
 * A JSON file (its first byte other than a blank is '{': an event log's lines, a notebook)
 * is read into fresh memory instead, handed out and released the same way: its plans are
 * strings that clean-up decodes over the input, and writing over a mapping costs more than
 * the read (mapfile.c).
 * Never: aborts.  mapfile_open() returns NULL whenever mapping is not possible and the
 * caller reads the file instead.
 */
#ifndef SPARKPLAN_MAPFILE_H
#define SPARKPLAN_MAPFILE_H

#include <stdbool.h>
#include <stddef.h>

/* Files smaller than this are read: mapping them saves nothing worth a mapping. */
#define MAPFILE_MIN_SIZE (1u << 20)

/* From this size on, a mapped file's pages are mapped in (MADV_POPULATE_READ), and a JSON
 * file read, by two threads at once, each taking the next 4 MB piece until none is left (the
 * fault of each fresh page and the copy into it: 18-23 ms against 22-30 for the 102 MB event
 * log; taken by pieces rather than halves, the two threads end together however the host
 * backs each page: 9.5 against 11.8 ms, medians of 16 alternated reads): MAP_POPULATE maps
 * them on the calling thread alone, 13-17 ms for the 148 MB simple plan on the benchmark
 * machine (half of what `wc -l` takes to read it), where two threads take 8-11 ms.  Below it
 * the thread costs more than it saves. */
#define MAPFILE_POPULATE_HALVES_MIN ((size_t)32 << 20)

char *mapfile_open(int fd, size_t size);
void mapfile_close(char *p, size_t size);

/* Makes a mapping writable, at the same address and with the same bytes, still private:
 * nothing reaches the file.  The file's pages are swapped for a copy in fresh memory in one
 * go (freshmem.h; a first write to each file page in turn costs many times more here), or,
 * when that memory cannot be had, made writable as they are (each page copied when first
 * written).  Either way writing it all costs no more memory than reading it, once the
 * file's pages are let go.  Clean-up writes its text over the input with it.  False when
 * the system refuses. */
bool mapfile_writable(char *p, size_t size);

/* mapfile_writable's swap for a copy started on a thread of its own, for a caller that will
 * write over the mapping later and reads it meanwhile: reads see the same bytes before,
 * during and after the swap (the copy is moved over the mapping whole, mremap).  Nothing
 * may write to the mapping until mapfile_writable (which waits for the swap) has returned
 * true.  The same thread calls mapfile_writable, mapfile_writable_end (waits, and the
 * mapping stays read-only unless the swap made it the copy) or mapfile_close afterwards.
 * first(arg) (first may be NULL) runs on that thread before the swap: other work for the
 * second core, done by the time any of those returns.  The copy is made a piece at a time,
 * by that thread and, once the caller waits for it (mapfile_writable, _end, _close), by the
 * caller too.
 * False when p is no mapping of ours, is writable already, or no thread or no fresh memory
 * for the copy could be had (then first is not called). */
bool mapfile_writable_begin(char *p, size_t size, void (*first)(void *), void *arg);
/* The swap begun above still runs (not yet waited for). */
bool mapfile_writable_pending(const char *p);
void mapfile_writable_end(char *p);

#endif
