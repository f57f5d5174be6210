/* prefetch.h: asking for memory a few steps before it is read (base; no module of its own).
 *
 * GCC counts __builtin_prefetch as an instruction without effects, so a helper that does
 * nothing else reads to it as a pure function: when nothing uses its (void) result, the
 * call is dropped whole.  That happened to the summary's scan lines, then to the analysis's
 * prefetch_details and the parser's split_prefetch: none left a prefetch in the binary, and
 * the rule pass over a formatted plan waited for every details block it read.  A helper
 * that only prefetches is declared PREFETCH_HELPER: always inlined, so the instruction
 * lands in its caller before any such pass looks at it.  `make check-prefetch`
 * (tools/prefetch.sh) fails when an object file holds fewer prefetch instructions than its
 * source has __builtin_prefetch calls. */
#ifndef SPARKPLAN_PREFETCH_H
#define SPARKPLAN_PREFETCH_H

#define PREFETCH_HELPER static inline __attribute__((always_inline))

#endif
