/* status.c: diagnostics. */
#include "sparkplan/status.h"

#include <stdarg.h>
#include <stdio.h>

void diag_set(struct diag *d, uint32_t line, const char *fmt, ...)
{
    if (!d)
        return;
    d->line = line;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(d->message, sizeof d->message, fmt, ap);
    va_end(ap);
}

int sp_status_exit_code(enum sp_status s)
{
    switch (s) {
    case SP_OK:
        return 0;
    case SP_ERR_USAGE:
        return 2;
    default:
        return 2;
    }
}
