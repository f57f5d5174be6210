/* libFuzzer target: bytes -> event-log reader (every codec's framing) -> the application
 * model and its outputs (`make fuzz-eventlog`).  Traps on a load that neither succeeds nor
 * runs out of memory, and on an execution whose values are not sorted.  Not part of the
 * Check runner (no main here). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "sparkplan/evemit.h"
#include "sparkplan/evload.h"

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct ev_app *app = NULL;
    struct diag err = {0};
    enum sp_status s = evload_bytes("fuzz", data, size, &app, &err);
    check(s == SP_OK || s == SP_ERR_NOMEM);
    if (!app)
        return 0;
    for (size_t i = 0; i < app->n_execs; i++)
        for (size_t k = 1; k < app->execs[i].n_values; k++)
            check(app->execs[i].values[k - 1].acc_id < app->execs[i].values[k].acc_id);
    FILE *null = fopen("/dev/null", "w");
    if (null) {
        bool warned;
        evemit_json(null, app, &err);
        evemit_print(null, app, &err);
        evemit_lint(null, app, &warned, &err);
        fclose(null);
    }
    ev_app_free(app);
    return 0;
}
