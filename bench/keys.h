/* keys (bench): per-key cost on the row model, for spbench.
 *
 * Owns the document and row model it builds; frees both.  When include/sparkplan/rows.h is
 * not there yet (the explorer has not landed), bench_keys says so and returns 0.
 */
#ifndef SPARKPLAN_BENCH_KEYS_H
#define SPARKPLAN_BENCH_KEYS_H

#include "bench.h"

/* n_keys 0 = per-key timing; > 0 = drive that many mixed keys (the leak/flat-memory run). */
int bench_keys(const char *path, long n_keys);

#endif
