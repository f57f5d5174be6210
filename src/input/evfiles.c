/* evfiles.c: which files make up an event log, and in what order (evsource.h). */
#include "sparkplan/evsource.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

const char *ev_layout_name(enum ev_layout l)
{
    static const char *const names[] = {"file", "rolling", "databricks", "spark1"};
    return (unsigned)l < sizeof names / sizeof *names ? names[l] : "?";
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

static char *join(const char *dir, const char *name)
{
    size_t n = strlen(dir) + strlen(name) + 2;
    char *p = malloc(n);
    if (p)
        snprintf(p, n, "%s/%s", dir, name);
    return p;
}

static bool is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static bool is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* The entries of a directory, sorted by name (malloc'd array of malloc'd names). */
static char **list_dir(const char *dir, size_t *n)
{
    DIR *d = opendir(dir);
    *n = 0;
    if (!d)
        return NULL;
    size_t cap = 16;
    char **names = malloc(cap * sizeof *names);
    struct dirent *e;
    while (names && (e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        if (*n == cap) {
            char **nb = realloc(names, (cap *= 2) * sizeof *names);
            if (!nb)
                break;
            names = nb;
        }
        if (!(names[*n] = strdup(e->d_name)))
            break;
        (*n)++;
    }
    closedir(d);
    for (size_t i = 1; names && i < *n; i++) /* insertion sort: directories are small */
        for (size_t j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
            char *t = names[j];
            names[j] = names[j - 1];
            names[j - 1] = t;
        }
    return names;
}

static void free_names(char **names, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

/* events_<n>_<app>[.codec][.compact]: n, or -1 when the name is not one. */
static long rolling_index(const char *name)
{
    if (strncmp(name, "events_", 7) != 0)
        return -1;
    char *end;
    long n = strtol(name + 7, &end, 10);
    return end != name + 7 && *end == '_' ? n : -1;
}

static bool add_file(struct ev_app_files *a, const char *dir, const char *name)
{
    char **nb = realloc(a->files, (a->n_files + 1) * sizeof *nb);
    if (!nb)
        return false;
    a->files = nb;
    return (a->files[a->n_files] = join(dir, name)) ? (a->n_files++, true) : false;
}

/* Rolling: events_* in index order from the last .compact file on. */
static bool rolling_files(struct ev_app_files *a, const char *dir, char **names, size_t n)
{
    size_t k = 0;
    long *idx = malloc((n ? n : 1) * sizeof *idx);
    char **ev = malloc((n ? n : 1) * sizeof *ev);
    bool ok = idx && ev;
    for (size_t i = 0; ok && i < n; i++) {
        if (strncmp(names[i], "appstatus_", 10) == 0 && ends_with(names[i], ".inprogress"))
            a->in_progress = true;
        long x = rolling_index(names[i]);
        if (x < 0)
            continue;
        size_t j = k++;
        for (; j > 0 && idx[j - 1] > x; j--)
            idx[j] = idx[j - 1], ev[j] = ev[j - 1];
        idx[j] = x, ev[j] = names[i];
    }
    size_t from = 0;
    for (size_t i = 0; ok && i < k; i++)
        if (ends_with(ev[i], ".compact"))
            from = i;
    for (size_t i = from; ok && i < k; i++)
        ok = add_file(a, dir, ev[i]);
    free(idx);
    free(ev);
    return ok && a->n_files > 0;
}

/* Databricks: eventlog-YYYY-MM-DD--HH-00[.gz] by name (the date sorts), then eventlog. */
static bool databricks_files(struct ev_app_files *a, const char *dir, char **names, size_t n)
{
    bool ok = true, current = false;
    for (size_t i = 0; ok && i < n; i++) {
        if (strcmp(names[i], "eventlog") == 0)
            current = true;
        else if (strncmp(names[i], "eventlog-", 9) == 0)
            ok = add_file(a, dir, names[i]);
    }
    if (ok && current)
        ok = add_file(a, dir, "eventlog");
    return ok && a->n_files > 0;
}

/* Spark 1.x: EVENT_LOG_<n> in order, SPARK_VERSION_<v>, APPLICATION_COMPLETE. */
static bool legacy_files(struct ev_app_files *a, const char *dir, char **names, size_t n)
{
    bool ok = true, complete = false;
    for (size_t i = 0; ok && i < n; i++) {
        if (strncmp(names[i], "EVENT_LOG_", 10) == 0)
            ok = add_file(a, dir, names[i]);
        else if (strncmp(names[i], "SPARK_VERSION_", 14) == 0 && !a->version_hint)
            ok = (a->version_hint = strdup(names[i] + 14)) != NULL;
        else if (strcmp(names[i], "APPLICATION_COMPLETE") == 0)
            complete = true;
    }
    a->in_progress = !complete;
    return ok && a->n_files > 0;
}

static const char *base_name(const char *path)
{
    size_t n = strlen(path);
    while (n > 1 && path[n - 1] == '/')
        n--;
    const char *p = path + n;
    while (p > path && p[-1] != '/')
        p--;
    return p;
}

/* A directory that is one application's log: fills *a, true.  False otherwise. */
static bool app_dir(const char *dir, struct ev_app_files *a)
{
    size_t n;
    char **names = list_dir(dir, &n);
    bool rolling = false, legacy = false, databricks = false, ok = false;
    for (size_t i = 0; i < n; i++) {
        rolling = rolling || rolling_index(names[i]) >= 0;
        legacy = legacy || strncmp(names[i], "EVENT_LOG_", 10) == 0;
        databricks = databricks || strcmp(names[i], "eventlog") == 0 ||
                     strncmp(names[i], "eventlog-", 9) == 0;
    }
    memset(a, 0, sizeof *a);
    if (rolling)
        a->layout = EV_LAYOUT_ROLLING, ok = rolling_files(a, dir, names, n);
    else if (legacy)
        a->layout = EV_LAYOUT_LEGACY, ok = legacy_files(a, dir, names, n);
    else if (databricks)
        a->layout = EV_LAYOUT_DATABRICKS, ok = databricks_files(a, dir, names, n);
    if (ok)
        ok = (a->name = strdup(dir)) != NULL;
    free_names(names, n);
    return ok;
}

static void app_free(struct ev_app_files *a)
{
    for (size_t i = 0; i < a->n_files; i++)
        free(a->files[i]);
    free(a->files);
    free(a->name);
    free(a->version_hint);
}

static bool file_app(const char *path, struct ev_app_files *a)
{
    memset(a, 0, sizeof *a);
    a->layout = EV_LAYOUT_FILE;
    a->in_progress = ends_with(path, ".inprogress");
    a->name = strdup(path);
    a->files = malloc(sizeof *a->files);
    if (!a->name || !a->files || !(a->files[0] = strdup(path))) {
        app_free(a);
        return false;
    }
    a->n_files = 1;
    return true;
}

static bool add_app(struct ev_source *s, const struct ev_app_files *a)
{
    struct ev_app_files *nb = realloc(s->apps, (s->n_apps + 1) * sizeof *nb);
    if (!nb)
        return false;
    s->apps = nb;
    s->apps[s->n_apps++] = *a;
    return true;
}

/* A History Server directory: every entry that is an application's log. */
static bool history_dir(const char *dir, struct ev_source *s)
{
    size_t n;
    char **names = list_dir(dir, &n);
    bool ok = true;
    for (size_t i = 0; ok && i < n; i++) {
        char *p = join(dir, names[i]);
        struct ev_app_files a;
        bool found = false;
        if (!p) {
            ok = false;
        } else if (is_dir(p)) {
            found = app_dir(p, &a);
        } else if (is_file(p) && ev_file_is_eventlog(p)) {
            found = file_app(p, &a);
        }
        if (found && !add_app(s, &a)) {
            app_free(&a);
            ok = false;
        }
        free(p);
    }
    free_names(names, n);
    s->history_dir = true;
    return ok;
}

enum sp_status ev_source_resolve(const char *path, struct ev_source *out, struct diag *err)
{
    memset(out, 0, sizeof *out);
    struct ev_app_files a;
    bool ok = true;
    if (is_dir(path)) {
        if (app_dir(path, &a))
            ok = add_app(out, &a) || (app_free(&a), false);
        else
            ok = history_dir(path, out);
    } else if (is_file(path) && ev_file_is_eventlog(path)) {
        ok = file_app(path, &a) && (add_app(out, &a) || (app_free(&a), false));
    }
    if (!ok) {
        ev_source_free(out);
        diag_set(err, 0, "out of memory");
        return SP_ERR_NOMEM;
    }
    if (out->n_apps == 0) {
        diag_set(err, 0, "no Spark event log found in %s", base_name(path));
        return SP_ERR_NO_PLAN;
    }
    return SP_OK;
}

void ev_source_free(struct ev_source *s)
{
    for (size_t i = 0; i < s->n_apps; i++)
        app_free(&s->apps[i]);
    free(s->apps);
    memset(s, 0, sizeof *s);
}
