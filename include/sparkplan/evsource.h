/* evsource: the bytes of a Spark event log, decompressed as they stream past, one line at
 * a time, and the files that make up a log (rolling, Databricks, Spark 1.x directories and a
 * History Server directory of many applications).
 *
 * Codecs are told from the bytes, not the name: zstd (any number of frames; a log that ends
 * inside a frame gives what it holds and is marked truncated), Spark's lz4 (lz4-java's
 * LZ4Block framing), Spark's snappy (snappy-java's stream, whose header may repeat), lzf
 * (ning's ZV chunks), gzip (any number of members) and plain text.  The libraries do the
 * compression (libzstd, liblz4, libsnappy, liblzf, zlib); the Java framings are written here.
 * Owns: a struct ev_lines owns its open file, its decompressor and two buffers: one
 * decompressed chunk and the line that straddles two chunks.  Memory is bounded by the
 * longest line, never by the log's size.  ev_lines_close() frees it all.
 * Never: reads a whole file into memory, aborts on bad bytes (a corrupt block ends the file
 * with an error value), prints.
 */
#ifndef SPARKPLAN_EVSOURCE_H
#define SPARKPLAN_EVSOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sparkplan/slice.h"
#include "sparkplan/status.h"

enum ev_codec { EV_PLAIN, EV_ZSTD, EV_GZIP, EV_LZ4, EV_SNAPPY, EV_LZF };

/* "plain", "zstd", "gzip", "lz4", "snappy", "lzf". */
const char *ev_codec_name(enum ev_codec c);
/* The codec the first bytes of a file show (n may be short: a prefix of 16 bytes is enough). */
enum ev_codec ev_codec_detect(const unsigned char *b, size_t n);

/* ---- lines ------------------------------------------------------------------------ */

struct ev_lines;

/* Reads files[0..n) in turn, as one log.  From memory instead (tests): ev_lines_open_mem. */
enum sp_status ev_lines_open(const char *const *files, size_t n, struct ev_lines **out,
                             struct diag *err);
/* The bytes are borrowed: they must outlive the reader. */
enum sp_status ev_lines_open_mem(const void *bytes, size_t len, struct ev_lines **out,
                                 struct diag *err);
/* The next line without its '\n' (and '\r'), valid until the next call.  Returns SP_OK and
 * *eof = false with a line, SP_OK and *eof = true at the end, or an error (a file that
 * cannot be read, a corrupt block: err says which file).  *last is set when the line is a
 * file's last and had no '\n' after it: a log cut while being written ends like that. */
enum sp_status ev_lines_next(struct ev_lines *r, struct slice *line, bool *last, bool *eof,
                             struct diag *err);
/* Where the last line came from: the file's index and its 1-based line number there. */
size_t ev_lines_file(const struct ev_lines *r);
uint64_t ev_lines_lineno(const struct ev_lines *r);
/* The codec of the file being read, and whether a file read so far ended inside a
 * compressed frame or block (an in-progress or cut log). */
enum ev_codec ev_lines_codec(const struct ev_lines *r);
bool ev_lines_truncated(const struct ev_lines *r);
/* Decompressed bytes delivered so far (for --stats and the benchmark). */
uint64_t ev_lines_bytes(const struct ev_lines *r);
void ev_lines_close(struct ev_lines *r);

/* ---- the project's own encoder (tests and the benchmark's generator) ------------------- */

/* Writes text compressed as Spark writes it with codec c, in blocks of block_size bytes of
 * input (zstd: one frame a block, as Spark's flushes make them; gzip: one member).  *out is
 * malloc'd, the caller frees it.  Returns SP_ERR_NOMEM or SP_ERR_IO (a library failed). */
enum sp_status ev_encode(enum ev_codec c, const char *text, size_t len, size_t block_size,
                         char **out, size_t *out_len, struct diag *err);

/* XXH32 (lz4-java checks its blocks with it, seed 0x9747b28c). */
uint32_t ev_xxh32(const void *p, size_t n, uint32_t seed);

/* ---- the files of a log ---------------------------------------------------------------- */

enum ev_layout {
    EV_LAYOUT_FILE,        /* one file: <appId>[_<attempt>][.<codec>][.inprogress] */
    EV_LAYOUT_ROLLING,     /* eventlog_v2_<app>/events_<n>_<app>[.codec] */
    EV_LAYOUT_DATABRICKS,  /* eventlog plus eventlog-YYYY-MM-DD--HH-00.gz */
    EV_LAYOUT_LEGACY,      /* Spark 1.x: EVENT_LOG_1 plus SPARK_VERSION_* markers */
};
const char *ev_layout_name(enum ev_layout l);

struct ev_app_files {
    char *name;            /* the file or directory name shown (malloc'd) */
    enum ev_layout layout;
    char **files;          /* in reading order (malloc'd, each malloc'd) */
    size_t n_files;
    char *version_hint;    /* Spark 1.x: "1.2.0" from SPARK_VERSION_1.2.0, else NULL */
    bool in_progress;      /* .inprogress name, appstatus_*.inprogress, no APPLICATION_COMPLETE */
};

struct ev_source {
    bool history_dir;      /* path was a directory of several applications */
    struct ev_app_files *apps;
    size_t n_apps;
};

/* What path is: a single event log (file or directory) or a History Server directory.
 * SP_ERR_NO_PLAN when path holds no event log (a plan file, an empty directory). */
enum sp_status ev_source_resolve(const char *path, struct ev_source *out, struct diag *err);
void ev_source_free(struct ev_source *s);

/* Whether a regular file's first decompressed bytes are an event log's first line
 * ({"Event":"...) - cheap: decompresses one chunk.  Directories: ev_source_resolve. */
bool ev_file_is_eventlog(const char *path);

#endif
