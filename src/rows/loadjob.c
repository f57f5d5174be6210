/* loadjob.c: the whole load on a thread, the preview on the caller's (see loadjob.h). */
#include "sparkplan/loadjob.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sparkplan/load.h"
#include "sparkplan/thread.h"

#define GATE_ENV "SPARKPLAN_TEST_LOAD_GATE"

/* The explorer decides whether a tab has a stage gutter from its first nodes (workspace.c's
 * probe, 4,096 of them): a preview with more decides the same way the whole document does. */
#define PREVIEW_MIN_NODES 4097u

bool loadjob_wanted(const char *path)
{
    struct stat st;
    /* A file past the input limit fails at once: its message, not a glimpse of it first. */
    return path && strcmp(path, "-") != 0 && stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
           (uint64_t)st.st_size >= LOADJOB_MIN_BYTES &&
           (uint64_t)st.st_size <= (uint64_t)load_max_bytes();
}

static void *load_main(void *arg)
{
    struct loadjob *j = arg;
    while (j->gate && access(j->gate, F_OK) != 0) { /* tests only; a quit ends it */
        if (atomic_load(&j->cancel)) {
            j->status = SP_ERR_CANCELLED;
            diag_set(&j->err, 0, "cancelled");
            goto done;
        }
        struct timespec ts = {0, 5000000L};
        nanosleep(&ts, NULL);
    }
    j->status = load_path(j->path, &j->doc, &j->err);
done:;
    ssize_t w;
    do
        w = write(j->wake[1], "", 1);
    while (w < 0 && errno == EINTR);
    return NULL;
}

bool loadjob_start(struct loadjob *j, const char *path)
{
    memset(j, 0, sizeof *j);
    j->wake[0] = j->wake[1] = -1;
    j->path = strdup(path);
    if (!j->path || pipe(j->wake) != 0) {
        free(j->path);
        j->path = NULL;
        j->wake[0] = j->wake[1] = -1;
        return false;
    }
    for (int i = 0; i < 2; i++)
        fcntl(j->wake[i], F_SETFD, FD_CLOEXEC);
    atomic_store(&j->cancel, 0);
    j->gate = getenv(GATE_ENV);
    if (!thread_start_quiet(&j->thread, load_main, j)) {
        close(j->wake[0]);
        close(j->wake[1]);
        free(j->path);
        j->path = NULL;
        j->wake[0] = j->wake[1] = -1;
        return false;
    }
    j->running = true;
    return true;
}

/* The input's first LOADJOB_PREVIEW_BYTES, cut after its last line end (malloc'd, a NUL
 * after it); NULL when there is no line end in it or on an error. */
static char *read_head(const char *path, size_t *len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    char *buf = malloc(LOADJOB_PREVIEW_BYTES + 1);
    size_t got = 0;
    while (buf && got < LOADJOB_PREVIEW_BYTES) { /* bounded by the preview's size */
        ssize_t r = read(fd, buf + got, LOADJOB_PREVIEW_BYTES - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    close(fd);
    while (buf && got > 0 && buf[got - 1] != '\n')
        got--;
    if (!buf || got == 0) {
        free(buf);
        return NULL;
    }
    buf[got] = '\0';
    *len = got;
    return buf;
}

/* Does the preview's first screen show what the whole document's will?  One plan, not
 * adaptive (its Final and Initial tabs could lie past the cut), whose first section is the
 * physical plan the explorer opens on, with more nodes than the gutter probe reads. */
static bool shows_the_same(const struct document *doc)
{
    const struct plan *p = doc->first_plan;
    if (!p || doc->n_plans != 1 || p->adaptive || !p->first_section)
        return false;
    const struct plan_section *s = p->first_section;
    return s->kind == SECTION_PHYSICAL && s->n_nodes >= PREVIEW_MIN_NODES;
}

struct document *loadjob_preview(const char *path)
{
    size_t len = 0;
    char *head = read_head(path, &len);
    if (!head)
        return NULL;
    struct document *doc = NULL;
    struct diag err = {0};
    if (load_bytes(path, head, len, &doc, &err) != SP_OK) /* takes head */
        return NULL;
    if (!shows_the_same(doc)) {
        document_free(doc);
        return NULL;
    }
    return doc;
}

int loadjob_wake_fd(const struct loadjob *j)
{
    return j && j->running ? j->wake[0] : -1;
}

enum sp_status loadjob_finish(struct loadjob *j, struct document **doc, struct diag *err)
{
    if (j->running) {
        atomic_store(&j->cancel, 1);
        pthread_join(j->thread, NULL);
        j->running = false;
        j->finished = true;
    }
    *doc = j->doc;
    if (err)
        *err = j->err;
    return j->finished ? j->status : SP_ERR_CANCELLED;
}

void loadjob_free(struct loadjob *j)
{
    struct document *doc;
    loadjob_finish(j, &doc, NULL);
    document_free(j->doc);
    j->doc = NULL;
    for (int i = 0; i < 2; i++)
        if (j->wake[i] >= 0)
            close(j->wake[i]);
    j->wake[0] = j->wake[1] = -1;
    free(j->path);
    j->path = NULL;
}
