/* config.c: the settings file (see config.h). */
#include "sparkplan/config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

bool config_path(char *buf, size_t cap)
{
    const char *xdg = getenv("XDG_CONFIG_HOME");
    const char *home = getenv("HOME");
    int n;
    if (xdg && *xdg == '/')
        n = snprintf(buf, cap, "%s/sparkplan/config", xdg);
    else if (home && *home)
        n = snprintf(buf, cap, "%s/.config/sparkplan/config", home);
    else
        return false;
    return n > 0 && (size_t)n < cap;
}

static void problem(struct config *c, const char *name, unsigned line, const char *fmt,
                    const char *what, size_t what_len)
{
    if (c->n_problems++ > 0)
        return;
    int n = snprintf(c->msg, sizeof c->msg, "%s line %u: ", name, line);
    if (n < 0 || (size_t)n >= sizeof c->msg)
        return;
    int w = (int)(what_len > 40 ? 40 : what_len);
    snprintf(c->msg + n, sizeof c->msg - (size_t)n, fmt, w, what);
}

static bool word_is(const char *s, size_t n, const char *w)
{
    return strlen(w) == n && strncmp(s, w, n) == 0;
}

/* yes/no, on/off, true/false, 1/0; -1 for anything else. */
static int parse_bool(const char *s, size_t n)
{
    static const char *const yes[] = {"yes", "on", "true", "1"};
    static const char *const no[] = {"no", "off", "false", "0"};
    for (size_t i = 0; i < 4; i++) {
        if (word_is(s, n, yes[i]))
            return 1;
        if (word_is(s, n, no[i]))
            return 0;
    }
    return -1;
}

static bool set_theme(struct config *c, const char *v, size_t n)
{
    static const char *const names[] = {"dark", "light", "projector", "mono"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (word_is(v, n, names[i])) {
            snprintf(c->theme, sizeof c->theme, "%s", names[i]);
            c->has_theme = true;
            return true;
        }
    return false;
}

static bool set_split(struct config *c, const char *v, size_t n)
{
    int pct = 0;
    for (size_t i = 0; i < n; i++) {
        if (v[i] < '0' || v[i] > '9' || pct > 1000)
            return false;
        pct = pct * 10 + (v[i] - '0');
    }
    if (n == 0 || pct < CONFIG_SPLIT_MIN || pct > CONFIG_SPLIT_MAX)
        return false;
    c->split = pct;
    c->has_split = true;
    return true;
}

static size_t trim(const char **s, size_t n)
{
    while (n && (**s == ' ' || **s == '\t'))
        (*s)++, n--;
    while (n && ((*s)[n - 1] == ' ' || (*s)[n - 1] == '\t' || (*s)[n - 1] == '\r'))
        n--;
    return n;
}

/* One `key = value` line. */
static void parse_line(struct config *c, const char *s, size_t n, const char *name,
                       unsigned line)
{
    n = trim(&s, n);
    if (n == 0 || s[0] == '#')
        return;
    const char *eq = memchr(s, '=', n);
    if (!eq) {
        problem(c, name, line, "expected key = value, not '%.*s' (ignored)", s, n);
        return;
    }
    const char *k = s, *v = eq + 1;
    size_t vn = n - (size_t)(eq + 1 - s);
    const char *hash = memchr(v, '#', vn); /* a comment after the value */
    if (hash)
        vn = (size_t)(hash - v);
    size_t kn = trim(&k, (size_t)(eq - s));
    vn = trim(&v, vn);
    int b = parse_bool(v, vn);
    bool ok;
    if (word_is(k, kn, "theme"))
        ok = set_theme(c, v, vn);
    else if (word_is(k, kn, "split"))
        ok = set_split(c, v, vn);
    else if (word_is(k, kn, "ascii") || word_is(k, kn, "explain")) {
        ok = b >= 0;
        if (ok && k[0] == 'a')
            c->ascii = b, c->has_ascii = true;
        else if (ok)
            c->explain = b, c->has_explain = true;
    } else {
        problem(c, name, line, "unknown setting '%.*s' (ignored)", k, kn);
        return;
    }
    if (!ok)
        problem(c, name, line, "bad value '%.*s' (ignored)", v, vn);
}

void config_parse(struct config *c, const char *text, size_t len, const char *name)
{
    unsigned line = 1;
    size_t i = 0;
    while (i < len) {
        const char *nl = memchr(text + i, '\n', len - i);
        size_t end = nl ? (size_t)(nl - text) : len;
        parse_line(c, text + i, end - i, name, line++);
        i = end + 1;
    }
}

#define CONFIG_MAX (64 * 1024)

/* The whole file (at most CONFIG_MAX bytes) into buf; its length, or -1 when absent. */
static long read_all(const char *path, char *buf, size_t cap)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    size_t n = fread(buf, 1, cap, f);
    fclose(f);
    return (long)n;
}

/* Messages name the file "config": its path is in the man page, and a status line has no
 * room for it. */
void config_load(struct config *c, const char *path)
{
    memset(c, 0, sizeof *c);
    static char buf[CONFIG_MAX];
    long n = read_all(path, buf, sizeof buf);
    if (n > 0)
        config_parse(c, buf, (size_t)n, "config");
}

/* mkdir -p of path's folder. */
static void make_parent(const char *path)
{
    char dir[1024];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (!slash)
        return;
    *slash = '\0';
    for (char *p = dir + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            mkdir(dir, 0755);
            *p = '/';
        }
    mkdir(dir, 0755);
}

/* Does line (trimmed) set key? */
static bool line_sets(const char *s, size_t n, const char *key)
{
    n = trim(&s, n);
    const char *eq = memchr(s, '=', n);
    if (!eq || s[0] == '#')
        return false;
    size_t kn = trim(&s, (size_t)(eq - s));
    return word_is(s, kn, key);
}

bool config_save(const char *path, const char *key, const char *value, char *err,
                 size_t errcap)
{
    static char old[CONFIG_MAX];
    long n = read_all(path, old, sizeof old);
    make_parent(path);
    char tmp[1100];
    snprintf(tmp, sizeof tmp, "%s.new", path);
    FILE *f = fopen(tmp, "wb");
    if (!f) {
        snprintf(err, errcap, "%s: %s", tmp, strerror(errno));
        return false;
    }
    bool done = false;
    for (size_t i = 0; n > 0 && i < (size_t)n;) {
        const char *nl = memchr(old + i, '\n', (size_t)n - i);
        size_t end = nl ? (size_t)(nl - old) : (size_t)n;
        if (!done && line_sets(old + i, end - i, key)) {
            fprintf(f, "%s = %s\n", key, value);
            done = true;
        } else {
            fwrite(old + i, 1, end - i, f);
            fputc('\n', f);
        }
        i = end + 1;
    }
    if (!done)
        fprintf(f, "%s = %s\n", key, value);
    bool ok = fclose(f) == 0 && rename(tmp, path) == 0;
    if (!ok) {
        snprintf(err, errcap, "%s: %s", path, strerror(errno));
        unlink(tmp);
    }
    return ok;
}
