/* load: read an input whole and run it through clean-up and the parser.
 *
 * The returned document is the caller's; free it with document_free().  On error *out is
 * NULL and err says why ("No such file or directory", "no Spark plan found").
 */
#ifndef SPARKPLAN_LOAD_H
#define SPARKPLAN_LOAD_H

#include <stdio.h>

#include "sparkplan/plan.h"
#include "sparkplan/status.h"

/* path "-" reads stdin. name is what people see ("stdin" for "-"). */
enum sp_status load_path(const char *path, struct document **out, struct diag *err);
enum sp_status load_stream(FILE *f, const char *name, struct document **out, struct diag *err);
/* Takes ownership of bytes (malloc'd) whatever the outcome. */
enum sp_status load_bytes(const char *name, char *bytes, size_t len, struct document **out,
                          struct diag *err);

#endif
