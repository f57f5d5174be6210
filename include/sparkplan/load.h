/* load: read an input whole and run it through clean-up and the parser.
 *
 * The returned document is the caller's; free it with document_free().  On error *out is
 * NULL and err says why ("No such file or directory", "no Spark plan found",
 * "input too large: ...").
 * Before clean-up, CR-only line ends (classic Mac OS) become '\n' and UTF-16 without a
 * byte-order mark is recognised (clean-up then converts it like UTF-16 with one).
 * Limits (SP_ERR_TOO_LARGE past them, never a cut): LOAD_MAX_BYTES_DEFAULT bytes of input or
 * half the machine's memory, the smaller (a stream that never ends stops there), and
 * LOAD_MAX_LINES lines (line numbers are 32-bit).
 */
#ifndef SPARKPLAN_LOAD_H
#define SPARKPLAN_LOAD_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sparkplan/plan.h"
#include "sparkplan/status.h"

#define LOAD_MAX_BYTES_DEFAULT ((size_t)16 << 30)
#define LOAD_MAX_LINES ((uint64_t)UINT32_MAX - 1)

/* The limits every later load checks (0: the default).  main sets it from
 * SPARKPLAN_MAX_INPUT; tests lower both limits to reach them with small inputs. */
void load_set_limits(size_t max_bytes, uint64_t max_lines);
/* The byte limit every later load checks (an input past it fails with SP_ERR_TOO_LARGE). */
size_t load_max_bytes(void);

/* path "-" reads stdin. name is what people see ("stdin" for "-"). */
enum sp_status load_path(const char *path, struct document **out, struct diag *err);
enum sp_status load_stream(FILE *f, const char *name, struct document **out, struct diag *err);
/* A stream read whole, within the byte limit: *bytes (malloc'd, a NUL guard after len) is
 * the caller's.  On error *bytes is NULL and err says why ("input too large: ..."). */
enum sp_status load_read_stream(FILE *f, char **bytes, size_t *len, struct diag *err);
/* Takes ownership of bytes (malloc'd) whatever the outcome. */
enum sp_status load_bytes(const char *name, char *bytes, size_t len, struct document **out,
                          struct diag *err);

#endif
