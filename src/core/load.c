/* load.c: read input whole, then clean-up and parse (see load.h). */
#include "sparkplan/load.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sparkplan/clean.h"
#include "sparkplan/parse.h"

enum sp_status load_stream(FILE *f, const char *name, struct document **out, struct diag *err)
{
    *out = NULL;
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap + 1);
    if (!buf) {
        diag_set(err, 0, "out of memory");
        return SP_ERR_NOMEM;
    }
    for (;;) {
        if (len == cap) {
            /* Doubling keeps the total copy cost linear in the input size. */
            size_t ncap = cap * 2;
            char *nb = ncap > cap ? realloc(buf, ncap + 1) : NULL;
            if (!nb) {
                free(buf);
                diag_set(err, 0, "out of memory");
                return SP_ERR_NOMEM;
            }
            buf = nb;
            cap = ncap;
        }
        size_t n = fread(buf + len, 1, cap - len, f);
        len += n;
        if (n == 0) {
            if (ferror(f)) {
                int e = errno;
                free(buf);
                diag_set(err, 0, "%s", strerror(e ? e : EIO));
                return SP_ERR_IO;
            }
            break;
        }
    }
    buf[len] = '\0'; /* a guard byte, not part of the input */
    return load_bytes(name, buf, len, out, err);
}

enum sp_status load_path(const char *path, struct document **out, struct diag *err)
{
    *out = NULL;
    if (strcmp(path, "-") == 0)
        return load_stream(stdin, "stdin", out, err);
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        diag_set(err, 0, "%s", strerror(EISDIR));
        return SP_ERR_IO;
    }
    FILE *f = fopen(path, "rb");
    if (!f) {
        diag_set(err, 0, "%s", strerror(errno));
        return SP_ERR_IO;
    }
    enum sp_status s = load_stream(f, path, out, err);
    fclose(f);
    return s;
}

enum sp_status load_bytes(const char *name, char *bytes, size_t len, struct document **out,
                          struct diag *err)
{
    *out = NULL;
    struct document *doc = document_new(name, bytes, len);
    if (!doc) {
        diag_set(err, 0, "out of memory");
        return SP_ERR_NOMEM;
    }
    enum sp_status s = clean_document(doc, err);
    if (s == SP_OK)
        s = parse_document(doc, err);
    if (s == SP_OK && !document_finish(doc)) {
        diag_set(err, 0, "out of memory");
        s = SP_ERR_NOMEM;
    }
    if (s != SP_OK) {
        document_free(doc);
        return s;
    }
    *out = doc;
    return SP_OK;
}
