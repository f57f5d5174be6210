/* load.c: read input whole, then clean-up and parse (see load.h). */
#define _GNU_SOURCE /* memrchr */
#include "sparkplan/load.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sparkplan/clean.h"
#include "sparkplan/mapfile.h"
#include "sparkplan/parse.h"
#include "sparkplan/cells.h"
#include "sparkplan/source.h"
#include "sparkplan/thread.h"

/* ---- limits ----------------------------------------------------------------------------- */

/* The default: LOAD_MAX_BYTES_DEFAULT, or half the machine's memory when that is less (an
 * input is held whole, and the model needs about as much again). */
static size_t default_max_bytes(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages > 0 && page > 0 && (uint64_t)pages * (uint64_t)page / 2 < LOAD_MAX_BYTES_DEFAULT)
        return (size_t)((uint64_t)pages * (uint64_t)page / 2);
    return LOAD_MAX_BYTES_DEFAULT;
}

static size_t max_bytes; /* 0 until first asked: default_max_bytes() */
static uint64_t max_lines = LOAD_MAX_LINES;

static size_t limit_bytes(void)
{
    if (!max_bytes)
        max_bytes = default_max_bytes();
    return max_bytes;
}

void load_set_limits(size_t bytes, uint64_t lines)
{
    max_bytes = bytes ? bytes : default_max_bytes();
    max_lines = lines && lines < LOAD_MAX_LINES ? lines : LOAD_MAX_LINES;
}

size_t load_max_bytes(void)
{
    return limit_bytes();
}

/* "16 GiB", "1 MiB", "1000 bytes": the limit as people set it; "11.8 GiB" when it is no
 * whole number of a unit (half the memory). */
static void size_text(size_t n, char *out, size_t cap)
{
    static const char *const units[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
    size_t u = 0;
    double v = (double)n;
    while (u + 1 < sizeof units / sizeof *units && v >= 1024) {
        v /= 1024;
        u++;
    }
    if (v == (double)(size_t)v)
        snprintf(out, cap, "%zu %s", (size_t)v, units[u]);
    else
        snprintf(out, cap, "%.1f %s", v, units[u]);
}

static enum sp_status too_large(struct diag *err)
{
    char lim[32];
    size_text(limit_bytes(), lim, sizeof lim);
    diag_set(err, 0, "input too large: more than %s (SPARKPLAN_MAX_INPUT sets the limit)", lim);
    return SP_ERR_TOO_LARGE;
}

/* read() that retries on EINTR. */
static ssize_t read_some(int fd, char *buf, size_t n)
{
    ssize_t got;
    do
        got = read(fd, buf, n);
    while (got < 0 && errno == EINTR);
    return got;
}

static enum sp_status load_document(struct document *doc, struct document **out,
                                    struct diag *err);

/* The clean-up's warnings, kept on the source (source.h), go to the document's list before
 * the parser's own. */
static void file_notes(struct document *doc)
{
    for (unsigned i = 0; i < doc->src.n_notes; i++)
        document_warn(doc, doc->src.notes[i].line, "%s", doc->src.notes[i].message);
    doc->src.n_notes = 0;
}

/* A regular file of known size: one buffer of that size, read straight into it (no doubling
 * realloc: on the benchmark machine fresh memory is most of the load time, see
 * BENCHMARKS.md).  The file may still grow or shrink while being read; whatever read()
 * returns is the input. */
static enum sp_status load_fd(int fd, size_t size, const char *name, struct document **out,
                              struct diag *err)
{
    if (size > limit_bytes())
        return too_large(err);
    /* Big files are mapped, not copied (mapfile.h). */
    char *mapped = mapfile_open(fd, size);
    if (mapped) {
        struct document *doc = document_new(name, NULL, 0);
        if (!doc) {
            mapfile_close(mapped, size);
            goto nomem;
        }
        source_init(&doc->src, mapped, size, true);
        return load_document(doc, out, err);
    }
    size_t cap = size, len = 0;
    char *buf = malloc(cap + 1);
    if (!buf)
        goto nomem;
    for (;;) {
        ssize_t n;
        if (len < cap) {
            n = read_some(fd, buf + len, cap - len);
        } else { /* full: is there more than fstat said? */
            char probe[4096];
            n = read_some(fd, probe, sizeof probe);
            if (n > 0 && len + (size_t)n > limit_bytes()) {
                free(buf);
                return too_large(err);
            }
            if (n > 0) { /* it grew: double, keeping the total copy cost linear */
                size_t ncap = cap * 2 > cap + (size_t)n ? cap * 2 : cap + (size_t)n;
                char *nb = realloc(buf, ncap + 1);
                if (!nb) {
                    free(buf);
                    goto nomem;
                }
                buf = nb;
                cap = ncap;
                memcpy(buf + len, probe, (size_t)n);
            }
        }
        if (n < 0) {
            int e = errno;
            free(buf);
            diag_set(err, 0, "%s", strerror(e));
            return SP_ERR_IO;
        }
        if (n == 0)
            break;
        len += (size_t)n;
    }
    buf[len] = '\0'; /* a guard byte, not part of the input */
    return load_bytes(name, buf, len, out, err);
nomem:
    diag_set(err, 0, "out of memory");
    return SP_ERR_NOMEM;
}

enum sp_status load_read_stream(FILE *f, char **bytes, size_t *len_out, struct diag *err)
{
    *bytes = NULL;
    *len_out = 0;
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap + 1);
    if (!buf) {
        diag_set(err, 0, "out of memory");
        return SP_ERR_NOMEM;
    }
    for (;;) {
        if (len > limit_bytes()) {
            free(buf);
            return too_large(err);
        }
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
        /* At most one byte past the limit: enough to know it was passed. */
        size_t room = cap - len;
        if (room > limit_bytes() + 1 - len)
            room = limit_bytes() + 1 - len;
        size_t n = fread(buf + len, 1, room, f);
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
        if (feof(f)) /* a terminal's Ctrl-d ends the input at once, not at a second one */
            break;
    }
    if (len > limit_bytes()) {
        free(buf);
        return too_large(err);
    }
    buf[len] = '\0'; /* a guard byte, not part of the input */
    *bytes = buf;
    *len_out = len;
    return SP_OK;
}

enum sp_status load_stream(FILE *f, const char *name, struct document **out, struct diag *err)
{
    *out = NULL;
    char *buf;
    size_t len;
    enum sp_status s = load_read_stream(f, &buf, &len, err);
    return s != SP_OK ? s : load_bytes(name, buf, len, out, err);
}

enum sp_status load_path(const char *path, struct document **out, struct diag *err)
{
    *out = NULL;
    if (strcmp(path, "-") == 0)
        return load_stream(stdin, "stdin", out, err);
    int fd = open(path, O_RDONLY);
    if (fd < 0) {
        diag_set(err, 0, "%s", strerror(errno));
        return SP_ERR_IO;
    }
    struct stat st;
    bool have_stat = fstat(fd, &st) == 0;
    if (have_stat && S_ISDIR(st.st_mode)) {
        close(fd);
        diag_set(err, 0, "%s", strerror(EISDIR));
        return SP_ERR_IO;
    }
    if (have_stat && S_ISREG(st.st_mode) && st.st_size > 0) {
        enum sp_status s = load_fd(fd, (size_t)st.st_size, path, out, err);
        close(fd);
        return s;
    }
    /* Pipes, FIFOs, /proc files: no size to trust, read as a stream. */
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        int e = errno;
        close(fd);
        diag_set(err, 0, "%s", strerror(e));
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
    return load_document(doc, out, err);
}

/* Compressed files (event logs are often .zstd, .lz4, .gz): say how to open them instead of
 * "no Spark plan found".  The tool itself reads text only. */
static const char *compressed_hint(const char *b, size_t n)
{
    static const struct {
        const char *magic;
        size_t len;
        const char *hint;
    } formats[] = {
        {"\x1f\x8b", 2, "gzip-compressed: decompress it first (gzip -dc FILE | sparkplan -)"},
        {"\x28\xb5\x2f\xfd", 4, "zstd-compressed: decompress it first (zstd -dc FILE | sparkplan -)"},
        {"\x04\x22\x4d\x18", 4, "lz4-compressed: decompress it first (lz4 -dc FILE | sparkplan -)"},
        {"BZh", 3, "bzip2-compressed: decompress it first (bzip2 -dc FILE | sparkplan -)"},
        {"\xfd" "7zXZ\x00", 6, "xz-compressed: decompress it first (xz -dc FILE | sparkplan -)"},
        {"PK\x03\x04", 4, "a zip archive: extract the plan first (unzip -p FILE | sparkplan -)"},
        {"\x82SNAPPY\x00", 8, "snappy-compressed (Spark's event log codec): decompress it first"},
    };
    for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++)
        if (n >= formats[i].len && memcmp(b, formats[i].magic, formats[i].len) == 0)
            return formats[i].hint;
    return NULL;
}

/* ---- a big input: the quick scan and an optimistic parse at once ---------------------- */

/* Spark's own output, nearly every big input, needs no clean-up; finding that out is a scan
 * of every line (40 % of loading a 1M-operator formatted plan).  From this size on, the scan
 * runs on a second thread while this one parses the bytes as they are; when the scan finds
 * a paste, the parse stops at its next check and is thrown away. */
#define PARALLEL_SCAN_MIN (8u << 20)

/* The end of a formatted plan's details list goes to the second thread too (parse.h,
 * parse_split_*).  The first touch of each page of a mapped file costs about 1.3 us on the
 * benchmark VM, whoever touches it, and two threads touching at once barely go faster than
 * one (BENCHMARKS.md): the second thread pays it for the pages before the split point,
 * ahead of the parser (a load every 4 KB: the parser, three times slower, never catches
 * up), then reads the blocks from the split point on, then takes pieces of the scan from
 * the front; this thread parses up to the split point, takes the blocks there, then takes
 * pieces of the scan from the back.  The point is looked for this far into the text (per
 * cent), right after the tree in most formatted plans (the tree is 25-35 % of their
 * bytes): the tree costs the parser about twice what the same bytes of details do, and
 * since the file's pages come present at once (mapfile.c populates a big file in halves,
 * from 32 MB) the touch is no longer most of the second thread's part.  At the 70 % this
 * was, the second thread was done 25-60 ms before this one reached the point; at 35 % the
 * two end within a piece of each other (1M-operator formatted plan, 20 alternating runs:
 * median 104 ms against 126). */
#define SPLIT_AT_PERCENT 35
/* Where the point is looked for when there is none at SPLIT_AT_PERCENT (parse_split_new
 * looks 1 MB past the place asked): a plan whose tree is longer, or whose details list
 * starts later. */
#define SPLIT_LATE_PERCENT 70

/* The quick scan is shared (clean.h, clean_quick_parts_*): the second thread takes its
 * pieces from the front once its part above is done, this one from the back once its parse
 * is; a piece that finds the text dirty stops the parse at its next check.  On the
 * 1M-operator formatted plan the second thread's scan was 60-65 ms of its part, and this
 * thread waited for it 35-50 ms.  Pieces are about this long (a piece there is 0.3 ms of
 * scan: the two threads end within that of each other). */
#define SCAN_PIECE (1u << 20)

struct scan_job {
    const char *s; /* the text */
    struct clean_quick_parts *parts;
    struct parse_split *split; /* NULL: the scan alone */
    struct parse_graft *graft; /* a simple plan's tree from its middle (NULL: none) */
};

/* One load per 4 KB page of [s, s + n): the pages are present once it returns. */
static void touch_pages(const char *s, size_t n)
{
    volatile char sink = 0;
    /* Bound: one load a page. */
    for (size_t i = 0; i < n; i += 4096)
        sink ^= s[i];
    (void)sink;
}

static void *scan_main(void *arg)
{
    struct scan_job *job = arg;
    if (job->split) {
        touch_pages(job->s, parse_split_point(job->split));
        parse_split_read(job->split);
    }
    if (job->graft) {
        /* The first piece of the scan first: a text that needs clean-up mostly shows it at
           its top (a prompt, a paste's first lines), and the parse is then cancelled before
           either thread reads much of the tree (the graft's reader looks at the cancel
           before its first line). */
        clean_quick_parts_step(job->parts, true);
        parse_graft_read(job->graft);
    }
    /* Bound: one piece a round, each taken once. */
    while (clean_quick_parts_step(job->parts, true))
        ;
    return NULL;
}

/* This thread's share of the scan, once its parse is done, then the second thread's end and
 * the verdict (clean_quick_scan's). */
static bool scan_join(pthread_t th, struct scan_job *job)
{
    /* Bound: one piece a round, each taken once. */
    while (clean_quick_parts_step(job->parts, false))
        ;
    pthread_join(th, NULL);
    parse_split_free(job->split);
    parse_graft_free(job->graft);
    bool dirty = clean_quick_parts_verdict(job->parts);
    clean_quick_parts_free(job->parts);
    return dirty;
}

/* The parse's work while it waits at a cut for the second thread's part (document's
 * parse_idle): a piece of the quick scan from the back, as scan_join takes them once the
 * parse is done.  The second thread's part of a simple plan's tree costs it more a line
 * than the first thread's parse (each line is checked for what the part may take): the
 * first got to the cut 12-31 ms before the part was ready on the million-operator plan, and
 * slept there, while the scan's pieces waited for the end. */
static bool scan_piece_from_back(void *parts)
{
    return clean_quick_parts_step(parts, false);
}

/* A split point for text, or NULL. */
static struct parse_split *split_for(const char *text, size_t len)
{
    struct parse_split *sp = parse_split_new(text, len, len / 100 * SPLIT_AT_PERCENT);
    return sp ? sp : parse_split_new(text, len, len / 100 * SPLIT_LATE_PERCENT);
}

/* Where a plan decoded from a string is split (per cent), when its details list reaches
 * that far back.  Its pages are present (this thread has just written them), so the second
 * thread has no first touch to pay before the split point, only the blocks to read and the
 * scan: in a formatted plan the tree is about 30 % of the text, and a split point right after
 * it leaves this thread the tree and taking the blocks (on the 100 MB event-log line the
 * parse's CPU time 130-190 -> 110-120 ms at 30-40 %, the second thread's 50 -> 60-85 ms). */
#define DECODED_SPLIT_AT_PERCENT 30

/* A split point for a decoded text: from DECODED_SPLIT_AT_PERCENT on, else (the tree is
 * longer: parse_split_new looks 1 MB past the place asked) as for a file's bytes. */
static struct parse_split *split_for_decoded(const char *text, size_t len)
{
    struct parse_split *sp = parse_split_new(text, len, len / 100 * DECODED_SPLIT_AT_PERCENT);
    return sp ? sp : split_for(text, len);
}

/* A plan with no details list to share (a simple plan: one tree of "+- " lines) is cut in its
 * tree (parse.h, parse_graft_*): the second thread scans the first piece of the quick scan,
 * parses the tree from the cut, then takes more pieces; this thread parses up to the cut,
 * grafts the second thread's nodes and takes the scan's pieces from the back.  The cut is
 * at half the text (the pieces even out what is left), moved on by this share (per cent)
 * of the first piece, which only the second thread scans: a tree has no blank line, so its
 * first piece is the whole text, whose scan costs about a third of what parsing the whole
 * tree does (25-35 ms against 90-100 ms on the million-operator simple plan).  At 50 % this
 * thread waited 20-55 ms at the cut; at 67 % the two ended together (24 alternating runs,
 * median 56 ms against 64, docs/performance.md).  Once the second thread no longer shared
 * this one's core at its start (thread.c), this thread waited 19-55 ms at 67 % again
 * (perf sched, 11 runs): at 75 % the load takes 63.6 ms against 68.4 (medians of 61
 * alternated runs). */
#define GRAFT_AT_PERCENT 50
#define GRAFT_FIRST_PIECE_PERCENT 25

/* Where the tree of a plan without a details list is cut (GRAFT_AT_PERCENT). */
static size_t graft_cut_for(const struct clean_quick_parts *parts, size_t len)
{
    return len / 100 * GRAFT_AT_PERCENT +
           clean_quick_parts_first_len(parts) / 100 * GRAFT_FIRST_PIECE_PERCENT;
}

/* From this size on a big input is parsed beside its scan (PARALLEL_SCAN_MIN), or from the
 * size SPARKPLAN_PARSE_GRAFT_MIN (bytes) gives, for tests: 1 sends every input that is not a
 * JSON document through that path, its tree cut past the middle (graft_cut_for) when it
 * has no details list. */
static size_t beside_scan_min(void)
{
    size_t min;
    if (thread_split_min_from_env("SPARKPLAN_PARSE_GRAFT_MIN", &min) && min)
        return min;
    return PARALLEL_SCAN_MIN;
}

/* Returns the parsed document (which took over doc's input; doc is freed) when the scan
 * found nothing to clean, with the parse's status in *st; NULL otherwise, doc untouched, and
 * *scanned / *dirty say what the scan found (not run when the thread could not start). */
static struct document *parse_beside_scan(struct document *doc, bool *scanned, bool *dirty,
                                          enum sp_status *st, struct diag *err)
{
    struct scan_job job = {doc->src.bytes,
                           clean_quick_parts_new(doc->src.bytes, doc->src.len, SCAN_PIECE), NULL,
                           NULL};
    pthread_t th;
    *scanned = *dirty = false;
    if (!job.parts)
        return NULL;
    job.split = split_for(doc->src.bytes, doc->src.len);
    struct document *trial = document_new(doc->name, NULL, 0);
    if (trial) {
        source_borrow(&trial->src, doc->src.bytes, doc->src.len);
        trial->parse_cancel = clean_quick_parts_cancel(job.parts);
        /* No details list to share: the tree is (a simple plan).  (Made after the cancel:
           its part stops too when the scan finds dirt.) */
        if (!job.split)
            job.graft = parse_graft_new(trial, graft_cut_for(job.parts, doc->src.len));
    }
    if (!thread_start_quiet(&th, scan_main, &job)) {
        parse_split_free(job.split);
        parse_graft_free(job.graft);
        clean_quick_parts_free(job.parts);
        document_free(trial);
        return NULL;
    }
    if (trial) {
        trial->parse_split = job.split;
        trial->parse_graft = job.graft;
        trial->parse_idle = scan_piece_from_back;
        trial->parse_idle_ctx = job.parts;
        *st = parse_document(trial, err);
        trial->parse_cancel = NULL;
        trial->parse_split = NULL;
        trial->parse_graft = NULL;
        trial->parse_idle = NULL;
        trial->parse_idle_ctx = NULL;
    }
    *scanned = true;
    *dirty = scan_join(th, &job);
    if (!trial || *dirty) {
        document_free(trial);
        return NULL;
    }
    /* The trial read doc's bytes without holding them: now it takes the whole source. */
    source_free(&trial->src);
    source_move(&trial->src, &doc->src);
    document_free(doc);
    return trial;
}

/* ---- a decoded plan: its quick scan and its parse at once ---------------------------- */

/* The plan of an event log's line is decoded from its string by clean-up, which keeps the
 * decoded text as it is when the quick scan finds nothing to clean in it.  That scan runs on
 * a second thread while this one parses the text (clean.h's hook), as for a big file's own
 * bytes above: the parse is kept when the scan finds nothing, thrown away otherwise. */
struct decoded_parse {
    const char *name;
    struct diag *err;
    struct document *trial; /* the parse of the decoded text, when the scan found it clean */
    enum sp_status st;      /* its status */
};

static bool scan_decoded_beside_parse(void *ctx, const char *text, size_t len,
                                      const uint32_t *line_map, uint32_t line_from,
                                      uint32_t n_lines)
{
    struct decoded_parse *dp = ctx;
    struct scan_job job = {text, NULL, NULL, NULL};
    pthread_t th;
    if (len < PARALLEL_SCAN_MIN || !(job.parts = clean_quick_parts_new(text, len, SCAN_PIECE)))
        return clean_quick_scan(text, len);
    job.split = split_for_decoded(text, len);
    if (!thread_start_quiet(&th, scan_main, &job)) {
        parse_split_free(job.split);
        clean_quick_parts_free(job.parts);
        return clean_quick_scan(text, len);
    }
    struct document *trial = document_new(dp->name, NULL, 0);
    if (trial) {
        source_borrow(&trial->src, text, len);
        /* What the source will hold once clean-up keeps the text: the parser reads the
           input line of each text line from it. */
        trial->src.line_map = line_map;
        trial->src.line_from = line_from;
        trial->src.n_text_lines = n_lines;
        trial->parse_cancel = clean_quick_parts_cancel(job.parts);
        trial->parse_split = job.split;
        trial->parse_idle = scan_piece_from_back;
        trial->parse_idle_ctx = job.parts;
        dp->st = parse_document(trial, dp->err);
        trial->parse_cancel = NULL;
        trial->parse_split = NULL;
        trial->parse_idle = NULL;
        trial->parse_idle_ctx = NULL;
    }
    bool dirty = scan_join(th, &job);
    if (!dirty)
        dp->trial = trial;
    else
        document_free(trial);
    return dirty;
}

/* ---- a big cleaned text: its two halves parsed at once -------------------------------- */

/* From this size of cleaned text on, a second thread parses the text from a cut near its
 * middle while this one parses up to it (parse.h, parse_tail_*).  The parse is about 15
 * instructions a byte of a paste (724 a line on the corpus paste): at 2 MB it is 10 ms or
 * so, and what the split adds (a thread, the second part's store and its copy into the
 * document's, about 1 % of the parse) is some 0.1 ms.  Below that the whole load is a
 * few milliseconds and one thread keeps it simple.  SPARKPLAN_PARSE_TAIL_MIN (bytes) sets
 * it for tests (1: every text that has a cut). */
#define PARALLEL_PARSE_MIN (2u << 20)

/* Where the cut is looked for (per cent of the text): this thread also appends the second
 * part (a copy of its nodes) and finishes the model, so its share is a little less than
 * half. */
#define TAIL_AT_PERCENT 50

static size_t parse_tail_min(void)
{
    size_t min;
    if (thread_split_min_from_env("SPARKPLAN_PARSE_TAIL_MIN", &min))
        return min;
    return PARALLEL_PARSE_MIN;
}

static void *tail_main(void *arg)
{
    parse_tail_read(arg);
    return NULL;
}

/* parse_document for the text clean-up left, on two threads when it is big. */
static enum sp_status parse_cleaned(struct document *doc, struct diag *err)
{
    size_t len = doc->src.text_len, min = parse_tail_min();
    struct parse_tail *t =
        len >= min && min ? parse_tail_new(doc, len / 100 * TAIL_AT_PERCENT) : NULL;
    pthread_t th;
    if (!t || !thread_start_quiet(&th, tail_main, t)) {
        parse_tail_free(t);
        return parse_document(doc, err);
    }
    doc->parse_tail = t;
    enum sp_status s = parse_document(doc, err);
    doc->parse_tail = NULL;
    pthread_join(th, NULL);
    parse_tail_free(t);
    return s;
}

/* ---- line ends and encodings clean-up does not know -------------------------------------- */

enum utf16 { UTF16_NONE, UTF16_LE, UTF16_BE };

/* UTF-16 without a byte-order mark (some Windows editors and redirects): plan text is
 * ASCII, so one byte of nearly every pair is NUL.  The first 4 KiB decide. */
static enum utf16 utf16_without_bom(const char *s, size_t n)
{
    size_t m = (n < 4096 ? n : 4096) & ~(size_t)1;
    if (m < 8)
        return UTF16_NONE;
    unsigned char b0 = (unsigned char)s[0], b1 = (unsigned char)s[1];
    if ((b0 == 0xFF && b1 == 0xFE) || (b0 == 0xFE && b1 == 0xFF))
        return UTF16_NONE; /* it has one: clean-up reads it */
    size_t nul_even = 0, nul_odd = 0, pairs = m / 2;
    for (size_t i = 0; i < m; i += 2) {
        nul_even += s[i] == '\0';
        nul_odd += s[i + 1] == '\0';
    }
    if (nul_odd * 4 >= pairs * 3 && nul_even * 8 <= pairs)
        return UTF16_LE;
    if (nul_even * 4 >= pairs * 3 && nul_odd * 8 <= pairs)
        return UTF16_BE;
    return UTF16_NONE;
}

/* Replaces doc's input (read as it is: before clean-up) by a malloc'd copy with prefix in
 * front (the guard NUL kept). */
static bool prepend(struct document *doc, const char *prefix, size_t plen)
{
    struct source *src = &doc->src;
    size_t len = src->len + plen;
    char *nb = malloc(len + 1);
    if (!nb)
        return false;
    memcpy(nb, prefix, plen);
    memcpy(nb + plen, src->bytes, src->len);
    nb[len] = '\0';
    source_free(src);
    source_init(src, nb, len, false);
    return true;
}

/* The last '\n' of s[0..n), or NULL. */
static char *last_newline(char *s, size_t n)
{
#ifdef __GLIBC__
    return memrchr(s, '\n', n);
#else
    /* Bound: a few bytes back, then one search of what is before them. */
    for (size_t k = 0; k < 64 && n; k++, n--)
        if (s[n - 1] == '\n')
            return s + n - 1;
    return memchr(s, '\n', n);
#endif
}

/* What clean-up does not recognise becomes what it does: UTF-16 without a byte-order mark
 * gets one, and CR-only line ends (no '\n' anywhere) become '\n' in place (line numbers
 * stay: one CR was one line).  Then the line limit. */
static enum sp_status normalise_input(struct document *doc, struct diag *err)
{
    char *b = doc->src.bytes;
    size_t n = doc->src.len;
    enum utf16 u = utf16_without_bom(b, n);
    if (u != UTF16_NONE) {
        if (!prepend(doc, u == UTF16_LE ? "\xFF\xFE" : "\xFE\xFF", 2))
            goto nomem;
        return SP_OK; /* clean-up converts it, and the result is well under the line limit */
    }
    /* Whether the input holds a '\n' at all, looked for from its end: a file ends in one,
       and an event log's line of 100 MB has no other (a search from the front read all of
       it, 7 ms).  Where the first one is matters only to the line count below. */
    char *nl = last_newline(b, n);
    if (!nl && memchr(b, '\r', n)) {
        if (doc->src.mapped && !mapfile_writable(b, n)) {
            if (!prepend(doc, "", 0))
                goto nomem;
            b = doc->src.bytes;
        }
        /* Bound: one pass over the input. */
        for (char *p = b; (p = memchr(p, '\r', n - (size_t)(p - b))) != NULL; p++)
            *p = '\n';
        nl = b;
    }
    /* A line holds at least its '\n': only an input this long can pass the line limit. */
    if (nl && n >= max_lines) {
        nl = memchr(b, '\n', n);
        uint64_t lines = 1;
        /* Bound: one pass over the input. */
        for (const char *p = nl; p && lines <= max_lines; lines++)
            p = memchr(p + 1, '\n', n - (size_t)(p + 1 - b));
        if (lines > max_lines) {
            diag_set(err, 0, "input too large: more than %llu lines (line numbers are 32-bit)",
                     (unsigned long long)max_lines);
            return SP_ERR_TOO_LARGE;
        }
    }
    return SP_OK;
nomem:
    diag_set(err, 0, "out of memory");
    return SP_ERR_NOMEM;
}

/* A notebook's plans learn their cells, and its warnings say "cell 12:3" rather than a line
   of the JSON.  The map was read from the input before clean-up. */
static void apply_cells(struct document *doc, const struct cell_map *m)
{
    if (!m->n_cells)
        return;
    for (struct plan *pl = doc->first_plan; pl; pl = pl->next) {
        const struct cell *c = cells_find(m, pl->line);
        pl->source.format = cells_format_name(m->format);
        if (!c)
            continue;
        pl->source.cell = c->number;
        pl->source.cell_line = cells_line_in(c, pl->line);
        pl->source.execution_count = c->execution_count;
        pl->source.cell_type = c->type;
        pl->source.code = c->first_code;
        pl->source.from_output = cells_is_output(c, pl->line);
    }
    for (struct plan_warning *w = doc->first_warning; w; w = w->next) {
        const struct cell *c = w->line ? cells_find(m, w->line) : NULL;
        if (c)
            w->where = arena_printf(&doc->arena, "cell %u:%u", c->number,
                                    cells_line_in(c, w->line));
    }
}

/* Clean-up, parse and finish a new document; frees it on error. */
static enum sp_status load_document(struct document *doc, struct document **out,
                                    struct diag *err)
{
    *out = NULL;
    const char *hint = compressed_hint(doc->src.bytes, doc->src.len);
    if (hint) {
        diag_set(err, 0, "%s", hint);
        document_free(doc);
        return SP_ERR_NO_PLAN;
    }
    enum sp_status s = normalise_input(doc, err);
    if (s != SP_OK) {
        document_free(doc);
        return s;
    }
    bool scanned = false, dirty = false;
    struct cell_map map;
    /* A JSON document (an event log's line) holds its plans in strings to decode, and the
       quick scan says so at the first escaped newline of a line with a quote, however long
       the line (3 us on the 100 MB event-log line).  A parse of its raw bytes beside the
       scan would be thrown away, but it looks for its cancel between lines, which a
       one-line file never reaches: it would read the whole line first (5-8 ms).  The scan
       alone runs. */
    if (doc->src.len >= beside_scan_min() && doc->src.len <= UINT32_MAX / 2 &&
        doc->src.bytes[0] == '{') {
        scanned = true;
        dirty = clean_quick_scan(doc->src.bytes, doc->src.len);
    } else if (doc->src.len >= beside_scan_min() && doc->src.len <= UINT32_MAX / 2) {
        struct document *parsed = parse_beside_scan(doc, &scanned, &dirty, &s, err);
        if (parsed) {
            /* No clean-up ran: the bytes are still there for the cells, in the arena of the
               document that is kept. */
            doc = parsed;
            if (!cells_build(doc->src.bytes, doc->src.len, &doc->arena, &map))
                s = SP_ERR_NOMEM;
            goto finish;
        }
    }
    /* The cells are read before clean-up, which may let the input go. */
    if (!cells_build(doc->src.bytes, doc->src.len, &doc->arena, &map)) {
        diag_set(err, 0, "out of memory");
        document_free(doc);
        return SP_ERR_NOMEM;
    }
    struct decoded_parse dp = {.name = doc->name, .err = err};
    struct clean_scan_hook hook = {scan_decoded_beside_parse, &dp};
    s = scanned && dirty ? clean_document_full_hooked(doc, err, &hook) : clean_document(doc, err);
    if (dp.trial && s == SP_OK && !doc->src.n_notes) {
        /* The decoded text was parsed beside its scan (and clean-up, which kept it, had
           nothing to warn about: its warnings would come before the parser's).  The trial
           read doc's text without holding it: now it takes the whole source, and the arena
           where the cell map was read before clean-up. */
        struct document *trial = dp.trial;
        source_free(&trial->src);
        source_move(&trial->src, &doc->src);
        arena_adopt(&trial->arena, &doc->arena);
        document_free(doc);
        doc = trial;
        s = dp.st;
        goto finish;
    }
    document_free(dp.trial);
    file_notes(doc);
    /* Clean-up wrote a text of its own and nothing points into the input any more: a second
       copy of it would only raise the peak (corpus concatenation: 3.75x). */
    if (s == SP_OK)
        source_drop_input(&doc->src);
    if (s == SP_OK)
        s = parse_cleaned(doc, err);
finish:
    if (s == SP_OK)
        apply_cells(doc, &map);
    if (s == SP_ERR_NOMEM)
        diag_set(err, 0, "out of memory");
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
