/* status: error values with a location.
 *
 * Functions that can fail return enum sp_status and fill a struct diag.  Only main()
 * prints, as "sparkplan: FILE:LINE: message".  Nothing in the core aborts on bad input.
 */
#ifndef SPARKPLAN_STATUS_H
#define SPARKPLAN_STATUS_H

#include <stdint.h>

enum sp_status {
    SP_OK = 0,
    SP_ERR_IO,       /* could not read: message holds strerror() text */
    SP_ERR_NO_PLAN,  /* input held no Spark plan */
    SP_ERR_NOMEM,    /* allocation failed */
    SP_ERR_USAGE,    /* bad command line */
    SP_ERR_CANCELLED, /* additive: the parse was stopped by document.parse_cancel, or
                         an analysis by its cancel flag */
    SP_ERR_TOO_LARGE, /* the input passed a limit of load.h (bytes or lines) */
};

struct diag {
    uint32_t line;      /* 1-based input line, 0 when the error has no line */
    char message[256];
};

void diag_set(struct diag *d, uint32_t line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Exit status the CLI uses for a status: 0 ok, 2 for input errors. */
int sp_status_exit_code(enum sp_status s);

#endif
