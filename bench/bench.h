/* bench.h: what the parts of spbench (driver.c, keys.c, screen.c, index.c) share.
 * Nothing here allocates; every command frees what it made.
 */
#ifndef SPARKPLAN_BENCH_BENCH_H
#define SPARKPLAN_BENCH_BENCH_H

#include <stdbool.h>
#include <stddef.h>

double bench_now(void);                   /* CLOCK_MONOTONIC, seconds */
double bench_median(double *v, size_t n); /* sorts v */

/* spbench screen: CMD on a ROWS x COLS pseudo-terminal, time to its first full screen
 * (screen.c). */
int bench_screen(int rows, int cols, double timeout_s, char **argv);

/* spbench index: a measuring prototype of the compact plan index (index.c); check: compare
 * it with the loader's model of the same file; two: built on two cores; scan: on two cores
 * with the loader's quick paste scan beside it. */
int bench_index(const char *path, int runs, bool check, bool two, bool scan);

#endif
