/* driver: the measuring half of `make bench` (built as build-bench/spbench).
 *
 *   spbench parse FILE           load_path + document_free once, nothing else (the process
 *                                whose wall time and peak RSS are "parse + model")
 *   spbench read FILE            get FILE's bytes the way load_path does (mapped when 1 MB
 *                                or more, else read into a fresh buffer), look at every
 *                                line end, let go: the floor of any loader that keeps them
 *                                (one memchr call per line, as the loader finds them)
 *   spbench scan FILE            the same mapping, every line end found 64 bytes a step
 *                                with a vector bitmask: the floor measured the fast way
 *   spbench index FILE [RUNS [check] [two]]
 *                                the compact plan index built in one pass (index.c): a
 *                                prototype of the design of BENCHMARKS.md finding 10;
 *                                check: compared operator by operator with the loader's model;
 *                                two: the second half's index built on a second thread;
 *                                scan: that, with the loader's quick paste scan beside it
 *                                on both threads (the design with today's paste checks)
 *   spbench load FILE [RUNS]     in-process: RUNS loads split by phase (read, clean, parse,
 *                                finish, free), the median of each
 *   spbench qscan FILE [RUNS]    in-process: the quick paste scan alone (clean_quick_scan)
 *                                over FILE mapped as the loader maps it: its first run
 *                                (which pays the first touch of every page) and the median
 *                                of RUNS more over the pages touched
 *   spbench run RUNS OUT -- CMD  fork/exec CMD RUNS times with stdout to OUT; prints the
 *                                median wall time and the largest peak RSS of the child
 *   spbench emit FILE print|json OUT [RUNS]
 *                                in-process: load once, then emit_print / emit_json into OUT
 *                                RUNS times (the writing alone, without the parse)
 *   spbench keys FILE [N]        in-process key costs on the row model (when rows.h exists)
 *   spbench fresh MB [RUNS]      MB of fresh memory made usable: mapped with MAP_POPULATE
 *                                as the arena maps its big chunks (one core), and touched
 *                                page by page from two threads at once (both cores): the
 *                                floor of building a model that size, medians
 *   spbench screen ROWS COLS TIMEOUT_S -- CMD ARGS...
 *                                CMD on a pseudo-terminal of its own; time from its start
 *                                to its first full screen (screen.c)
 *   spbench recache FILE...      each FILE's pages dropped from the page cache and read
 *                                back in 1 MB reads, as after reading it from disk (the
 *                                kernel's read-ahead makes large folios, up to 2 MB, where
 *                                the file system allows them)
 *   spbench folios FILE          FILE mapped at a 2 MB boundary as the loader maps it, its
 *                                pages made present: how much of it the kernel maps with
 *                                2 MB entries (its page cache in 2 MB folios), from
 *                                /proc/self/smaps_rollup
 *
 * Output is one "key=value ..." line per measurement so bench/run.sh can read it with awk.
 * Owns the documents it loads and frees them.  Never prints plan text.
 */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS, MAP_POPULATE */
#include <errno.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sparkplan/clean.h"
#include "sparkplan/emit.h"
#include "sparkplan/load.h"
#include "sparkplan/mapfile.h"
#include "sparkplan/parse.h"
#include "sparkplan/plan.h"

#include "keys.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double tv_seconds(struct timeval tv)
{
    return (double)tv.tv_sec + (double)tv.tv_usec * 1e-6;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

double bench_median(double *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double bench_now(void) { return now(); }

static int usage(void)
{
    fputs("usage: spbench parse FILE | read FILE | scan FILE [read] | index FILE [RUNS [check] [two] [scan]] | load FILE [RUNS] | qscan FILE [RUNS] | emit FILE print|json OUT [RUNS] | run RUNS OUT -- CMD ARGS... | vs RUNS OUT FILE -- CMD ARGS... | keys FILE [N] | fresh MB [RUNS] | screen ROWS COLS TIMEOUT_S -- CMD ARGS... | recache FILE... | folios FILE\n",
          stderr);
    return 2;
}

/* The bytes of FILE, read the way load_stream does not (one stat-sized read), so the
 * phase split can time clean/parse/finish without the read. */
static char *read_all(const char *path, size_t *len)
{
    int fd = open(path, O_RDONLY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        perror(path);
        exit(1);
    }
    char *buf = malloc((size_t)st.st_size + 1);
    size_t got = 0;
    while (buf && got < (size_t)st.st_size) {
        ssize_t n = read(fd, buf + got, (size_t)st.st_size - got);
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    close(fd);
    if (!buf) {
        fputs("spbench: out of memory\n", stderr);
        exit(1);
    }
    buf[got] = '\0';
    /* Every page touched from user space once, here: on the paravirtualised guest that
       first touch costs 8 us a 4 KB page even after read() filled it, and it belongs to
       getting the bytes (read=), not to the first phase that reads them (clean=). */
    volatile char sink = 0;
    for (size_t i = 0; i < got; i += 4096)
        sink ^= buf[i];
    (void)sink;
    *len = got;
    return buf;
}

static int cmd_parse(const char *path)
{
    struct document *doc = NULL;
    struct diag err = {0};
    if (load_path(path, &doc, &err) != SP_OK) {
        fprintf(stderr, "spbench: %s: %s\n", path, err.message);
        return 1;
    }
    document_free(doc);
    if (getenv("SPBENCH_VERBOSE"))
        fprintf(stderr, "spbench: plans from a second parse: %zu, details blocks from a "
                        "second reader: %zu\n",
                parse_tail_plans_taken(), parse_split_blocks_taken());
    return 0;
}

static size_t count_lines(const char *p, size_t len)
{
    size_t n = 0;
    for (const char *end = p + len; (p = memchr(p, '\n', (size_t)(end - p))); p++)
        n++;
    return n;
}

static int cmd_read(const char *path)
{
    int fd = open(path, O_RDONLY);
    struct stat st;
    char *mapped = NULL;
    if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
        mapped = mapfile_open(fd, (size_t)st.st_size);
    volatile size_t sink;
    if (mapped) {
        sink = count_lines(mapped, (size_t)st.st_size);
        mapfile_close(mapped, (size_t)st.st_size);
    } else {
        size_t len;
        char *bytes = read_all(path, &len);
        sink = count_lines(bytes, len);
        free(bytes);
    }
    (void)sink;
    if (fd >= 0)
        close(fd);
    return 0;
}

/* Every line end of a block of 64 bytes as one bit of a mask: four SSE2 compares, no call per
 * line.  Each '\n' is visited (its offset summed), as a loader that records line ends would. */
static size_t scan_lines64(const char *p, size_t len, size_t *sum)
{
    size_t n = 0, s = 0, i = 0;
#ifdef __SSE2__
    const __m128i nl = _mm_set1_epi8('\n');
    for (; i + 64 <= len; i += 64) {
        uint64_t m = 0;
        for (int k = 0; k < 4; k++) {
            __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(p + i + 16 * k));
            m |= (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, nl)) << (16 * k);
        }
        for (; m; m &= m - 1, n++)
            s += i + (size_t)__builtin_ctzll(m);
    }
#endif
    for (; i < len; i++)
        if (p[i] == '\n')
            s += i, n++;
    *sum = s;
    return n;
}

/* The floor of finding every line end the fast way: the file mapped as the loader maps it
 * (mapfile_open, MAP_POPULATE) and its newlines found 64 bytes a step (scan_lines64). */
/* A regular file opened for reading, its size in *len; -1 (said on stderr) otherwise. */
static int open_regular(const char *path, size_t *len)
{
    int fd = open(path, O_RDONLY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        perror(path);
        if (fd >= 0)
            close(fd);
        return -1;
    }
    *len = (size_t)st.st_size;
    return fd;
}

/* path mapped as the loader maps it (mapfile_open), or NULL; *len its length. */
static char *map_regular(const char *path, size_t *len)
{
    int fd = open_regular(path, len);
    if (fd < 0)
        return NULL;
    char *mapped = mapfile_open(fd, *len);
    close(fd);
    return mapped;
}

static int cmd_scan(const char *path)
{
    size_t len;
    char *mapped = map_regular(path, &len);
    if (!mapped)
        return 1;
    size_t sum;
    volatile size_t sink = scan_lines64(mapped, len, &sum) + sum;
    (void)sink;
    mapfile_close(mapped, len);
    return 0;
}

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The quick scan alone over the file mapped as the loader maps it: its first run pays the
 * first touch of every page (on a guest whose host fills the page tables lazily, more than
 * the scan itself: finding 10), the runs after it only the scan. */
static int cmd_qscan(const char *path, int runs)
{
    size_t len;
    char *mapped = map_regular(path, &len);
    if (!mapped)
        return 1;
    double *t = calloc((size_t)runs, sizeof *t), *c = calloc((size_t)runs, sizeof *c);
    if (!t || !c)
        return 1;
    double t0 = now();
    bool dirty = clean_quick_scan(mapped, len);
    double first = now() - t0;
    for (int r = 0; r < runs; r++) {
        t0 = now();
        double c0 = cpu_now();
        if (clean_quick_scan(mapped, len) != dirty)
            return 1;
        c[r] = cpu_now() - c0;
        t[r] = now() - t0;
    }
    /* cpu: this thread's CPU time, steadier than the wall time on a busy machine. */
    printf("first=%.6f scan=%.6f cpu=%.6f dirty=%d bytes=%zu\n", first,
           bench_median(t, (size_t)runs), bench_median(c, (size_t)runs), dirty, len);
    free(t);
    free(c);
    mapfile_close(mapped, len);
    return 0;
}

/* The other way to have every byte addressable: read() into fresh anonymous memory asked
 * for as 2 MB pages, 8 MB a call, finding the line ends of each piece as it arrives.  On a
 * machine where the first touch of each 4 KB page of a mapped file is dear (a guest whose
 * host fills its page tables lazily) this can beat the mapping; where fresh memory is dear
 * (a host that takes back a guest's free memory) it loses.  Both are measured. */
static int cmd_scan_read(const char *path)
{
    size_t len, huge = (size_t)2 << 20;
    int fd = open_regular(path, &len);
    if (fd < 0)
        return 1;
    size_t cap = (len + 1 + huge - 1) / huge * huge;
    char *b = mmap(NULL, cap, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (b == MAP_FAILED) {
        close(fd);
        return 1;
    }
#ifdef MADV_HUGEPAGE
    madvise(b, cap, MADV_HUGEPAGE);
#endif
    size_t off = 0, lines = 0, sum = 0;
    while (off < len) {
        size_t want = len - off < ((size_t)8 << 20) ? len - off : (size_t)8 << 20;
        ssize_t r = read(fd, b + off, want);
        if (r <= 0)
            break;
        size_t s;
        lines += scan_lines64(b + off, (size_t)r, &s);
        sum += s;
        off += (size_t)r;
    }
    close(fd);
    volatile size_t sink = lines + sum;
    (void)sink;
    munmap(b, cap);
    return off == len ? 0 : 1;
}

/* RUNS loads split by phase (the steps of load_bytes); each phase's median is printed. */
static int cmd_load(const char *path, int runs)
{
    enum { READ, CLEAN, PARSE, FINISH, FREE, TOTAL, N_PHASES };
    double *t[N_PHASES];
    for (int k = 0; k < N_PHASES; k++)
        t[k] = calloc((size_t)runs, sizeof *t[k]);
    size_t nodes = 0, arena = 0, len = 0;
    for (int r = 0; r < runs; r++) {
        double t0 = now();
        char *bytes = read_all(path, &len);
        double t1 = now();
        struct diag err = {0};
        struct document *doc = document_new(path, bytes, len);
        if (!doc || clean_document(doc, &err) != SP_OK) {
            fprintf(stderr, "spbench: clean: %s\n", err.message);
            return 1;
        }
        source_drop_input(&doc->src); /* as load_bytes does: the input is not needed now */
        double t2 = now();
        if (parse_document(doc, &err) != SP_OK) {
            fprintf(stderr, "spbench: parse: %s\n", err.message);
            return 1;
        }
        double t3 = now();
        if (!document_finish(doc)) {
            fputs("spbench: finish: out of memory\n", stderr);
            return 1;
        }
        double t4 = now();
        nodes = doc->n_all_nodes;
        arena = document_model_bytes(doc) + doc->src.arena.used_bytes; /* the model and the text */
        document_free(doc);
        double t5 = now();
        t[READ][r] = t1 - t0;
        t[CLEAN][r] = t2 - t1;
        t[PARSE][r] = t3 - t2;
        t[FINISH][r] = t4 - t3;
        t[FREE][r] = t5 - t4;
        t[TOTAL][r] = t5 - t0;
    }
    double m[N_PHASES];
    for (int k = 0; k < N_PHASES; k++) {
        m[k] = bench_median(t[k], (size_t)runs);
        free(t[k]);
    }
    printf("load=%.6f read=%.6f clean=%.6f parse=%.6f finish=%.6f free=%.6f nodes=%zu "
           "arena=%zu bytes=%zu\n",
           m[TOTAL], m[READ], m[CLEAN], m[PARSE], m[FINISH], m[FREE], nodes, arena, len);
    return 0;
}

static int cmd_emit(const char *path, const char *mode, const char *out, int runs)
{
    struct document *doc = NULL;
    struct diag err = {0};
    if (load_path(path, &doc, &err) != SP_OK) {
        fprintf(stderr, "spbench: %s: %s\n", path, err.message);
        return 1;
    }
    bool json = strcmp(mode, "json") == 0;
    double *t = calloc((size_t)runs, sizeof *t);
    long bytes = 0;
    for (int r = 0; r < runs; r++) {
        double t0 = now();
        FILE *f = fopen(out, "w");
        if (!f) {
            perror(out);
            return 1;
        }
        enum sp_status s = json ? emit_json(f, doc, &err) : emit_print(f, doc, &err);
        bytes = ftell(f);
        if (fclose(f) != 0 || s != SP_OK) {
            fprintf(stderr, "spbench: %s: %s\n", out, err.message);
            return 1;
        }
        t[r] = now() - t0;
    }
    printf("time=%.6f bytes=%ld\n", bench_median(t, (size_t)runs), bytes);
    free(t);
    document_free(doc);
    return 0;
}

struct touch_job {
    volatile char *p;
    size_t n;
};

static void *touch_pages(void *arg)
{
    struct touch_job *j = arg;
    for (size_t i = 0; i < j->n; i += 4096)
        j->p[i] = 1;
    return NULL;
}

/* The cost of the model's memory alone, whatever fills it: on this VM fresh memory comes at
 * 1-2 GB/s (BENCHMARKS.md finding 1), which for a 136 MB model is a floor of its own. */
static int cmd_fresh(double mb, int runs)
{
    size_t n = (size_t)(mb * 1048576.0);
    if (n < 8192)
        n = 8192;
    double *one = calloc((size_t)runs, sizeof *one), *two = calloc((size_t)runs, sizeof *two);
    for (int r = 0; r < runs; r++) {
        double t0 = now();
        char *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS
#ifdef MAP_POPULATE
                       | MAP_POPULATE
#endif
                       , -1, 0);
        if (p == MAP_FAILED) {
            perror("spbench: mmap");
            return 1;
        }
        struct touch_job whole = {p, n};
        touch_pages(&whole); /* no-op without MAP_POPULATE's work already done */
        one[r] = now() - t0;
        munmap(p, n);

        p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) {
            perror("spbench: mmap");
            return 1;
        }
        t0 = now();
        size_t half = n / 2 / 4096 * 4096;
        struct touch_job first = {p, half}, second = {p + half, n - half};
        pthread_t th;
        bool threaded = pthread_create(&th, NULL, touch_pages, &second) == 0;
        touch_pages(&first);
        if (threaded)
            pthread_join(th, NULL);
        else
            touch_pages(&second);
        two[r] = now() - t0;
        munmap(p, n);
    }
    printf("one_core=%.6f two_cores=%.6f mb=%.1f\n", bench_median(one, (size_t)runs),
           bench_median(two, (size_t)runs), (double)n / 1048576.0);
    free(one);
    free(two);
    return 0;
}

/* One run of a child, stdout to out (stderr is kept): its wall time, CPU time (user + sys
 * of this child alone), the largest peak RSS of the children waited for so far, and a
 * non-zero exit status or 128 + signal.  -1 when it could not be started. */
static int run_child(const char *out, char **argv, double *secs, double *cpu, long *max_rss_kb,
                     int *status_seen)
{
    struct rusage before;
    getrusage(RUSAGE_CHILDREN, &before);
    double t0 = now();
    pid_t pid = fork();
    if (pid < 0) {
        perror("fork");
        return -1;
    }
    if (pid == 0) {
        int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd < 0 || dup2(fd, 1) < 0)
            _exit(127);
        close(fd);
        execvp(argv[0], argv);
        perror(argv[0]);
        _exit(127);
    }
    int status;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) {
            perror("wait4");
            return -1;
        }
    }
    *secs = now() - t0;
    /* The largest peak over the children waited for so far: a caller that runs two
     * commands (cmd_vs) reads it only after runs of the command it reports. */
    struct rusage ru;
    getrusage(RUSAGE_CHILDREN, &ru);
    if (ru.ru_maxrss > *max_rss_kb)
        *max_rss_kb = ru.ru_maxrss; /* Linux: kilobytes */
    /* CPU time of this child alone: robust when the machine is busy. */
    *cpu = tv_seconds(ru.ru_utime) + tv_seconds(ru.ru_stime) - tv_seconds(before.ru_utime) -
           tv_seconds(before.ru_stime);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        *status_seen = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return 0;
}

/* Wall time and peak RSS of a child; stdout goes to out (stderr is kept). */
static int cmd_run(int runs, const char *out, char **argv)
{
    double *t = calloc((size_t)runs, sizeof *t), *cpu = calloc((size_t)runs, sizeof *cpu);
    long max_rss_kb = 0;
    int status_seen = 0;
    for (int r = 0; r < runs; r++)
        if (run_child(out, argv, &t[r], &cpu[r], &max_rss_kb, &status_seen) != 0)
            return 1;
    printf("time=%.6f cpu=%.6f rss_kb=%ld status=%d\n", bench_median(t, (size_t)runs),
           bench_median(cpu, (size_t)runs), max_rss_kb, status_seen);
    free(t);
    free(cpu);
    return 0;
}

/* A command against `wc -l FILE`, run in turns (wc, command, wc, command...), so that each
 * ratio compares two runs a moment apart: on a shared or paravirtualised machine the time
 * of `wc -l` itself swings by half over minutes (46-99 ms for the same file in one night),
 * and a ratio of two medians taken minutes apart carries that swing.  Prints the command's
 * median time, CPU and peak RSS (the peak of wc itself is a couple of MB, far below any
 * command measured), wc's median, and the median of the per-turn ratios. */
static int cmd_vs(int runs, const char *out, const char *file, char **argv)
{
    double *t = calloc((size_t)runs, sizeof *t), *cpu = calloc((size_t)runs, sizeof *cpu);
    double *base = calloc((size_t)runs, sizeof *base), *ratio = calloc((size_t)runs, sizeof *ratio);
    char *wc[] = {"wc", "-l", (char *)file, NULL};
    long max_rss_kb = 0, wc_rss_kb = 0;
    int status_seen = 0, wc_status = 0;
    for (int r = 0; r < runs; r++) {
        double wc_cpu;
        if (run_child("/dev/null", wc, &base[r], &wc_cpu, &wc_rss_kb, &wc_status) != 0 ||
            run_child(out, argv, &t[r], &cpu[r], &max_rss_kb, &status_seen) != 0)
            return 1;
        ratio[r] = base[r] > 0 ? t[r] / base[r] : 0;
    }
    printf("time=%.6f cpu=%.6f rss_kb=%ld status=%d wc=%.6f ratio=%.4f\n",
           bench_median(t, (size_t)runs), bench_median(cpu, (size_t)runs), max_rss_kb,
           status_seen ? status_seen : wc_status, bench_median(base, (size_t)runs),
           bench_median(ratio, (size_t)runs));
    free(t);
    free(cpu);
    free(base);
    free(ratio);
    return 0;
}

/* ---- the input's page cache ------------------------------------------------------------ */

/* The same bytes cost wc -l and the loader more or less depending on how the page cache
 * holds them (BENCHMARKS.md finding 12): wc -l of the 233 MB formatted plan took 46-58 ms on
 * an input kept for hours (7 % of it in 2 MB folios) and 22-28 ms once it was dropped and
 * read back (96 %), and the loader's mapping costs least with 2 MB folios.  Dropping a file's
 * pages and reading them back puts every input in one state, the state of a plan read from
 * disk, whatever happened to the file before. */
static int recache_one(const char *path)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0) {
        perror(path);
        return 1;
    }
    double t0 = now();
    /* Only clean pages can be dropped: the file's writes go to the disk first. */
    if (fsync(fd) != 0 && errno != EINVAL)
        perror(path);
    int e = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    if (e != 0)
        fprintf(stderr, "spbench: %s: posix_fadvise: %s\n", path, strerror(e));
    size_t cap = (size_t)1 << 20, total = 0;
    char *buf = malloc(cap);
    ssize_t got = 0;
    /* Bound: the file's bytes, 1 MB a round. */
    while (buf && (got = read(fd, buf, cap)) > 0)
        total += (size_t)got;
    if (got < 0)
        perror(path);
    free(buf);
    close(fd);
    printf("file=%s bytes=%zu seconds=%.3f\n", path, total, now() - t0);
    return got < 0 || !buf;
}

static int cmd_recache(char **paths)
{
    int bad = 0;
    for (; *paths; paths++)
        bad |= recache_one(*paths);
    return bad;
}

/* FilePmdMapped of this process, in KB (-1: not known). */
static long file_pmd_mapped_kb(void)
{
    FILE *f = fopen("/proc/self/smaps_rollup", "r");
    char line[256];
    long kb = -1;
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, "FilePmdMapped:", 14) == 0)
            kb = atol(line + 14);
    if (f)
        fclose(f);
    return kb;
}

static int cmd_folios(const char *path)
{
    int fd = open(path, O_RDONLY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        perror(path);
        if (fd >= 0)
            close(fd);
        return 1;
    }
    size_t n = (size_t)st.st_size, align = (size_t)2 << 20;
    if (n == 0) {
        printf("bytes=0 pmd_kb=0 share=0\n");
        close(fd);
        return 0;
    }
    /* At a 2 MB boundary, as mapfile.c maps a big file: only there can a 2 MB folio be
       mapped by one entry. */
    char *area = mmap(NULL, n + align, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (area == MAP_FAILED) {
        perror("spbench: mmap");
        close(fd);
        return 1;
    }
    char *p = (char *)(((uintptr_t)area + align - 1) & ~(uintptr_t)(align - 1));
    if (mmap(p, n, PROT_READ, MAP_PRIVATE | MAP_FIXED, fd, 0) == MAP_FAILED) {
        perror(path);
        munmap(area, n + align);
        close(fd);
        return 1;
    }
    volatile char sink = 0;
    for (size_t i = 0; i < n; i += 4096) /* bound: one load a page */
        sink ^= p[i];
    (void)sink;
    long kb = file_pmd_mapped_kb();
    printf("bytes=%zu pmd_kb=%ld share=%.3f\n", n, kb,
           kb < 0 ? -1.0 : (double)kb * 1024.0 / (double)n);
    munmap(area, n + align);
    close(fd);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return usage();
    if (strcmp(argv[1], "parse") == 0)
        return cmd_parse(argv[2]);
    if (strcmp(argv[1], "read") == 0)
        return cmd_read(argv[2]);
    if (strcmp(argv[1], "scan") == 0)
        return argc > 3 && strcmp(argv[3], "read") == 0 ? cmd_scan_read(argv[2]) : cmd_scan(argv[2]);
    if (strcmp(argv[1], "index") == 0) {
        bool check = false, two = false, scan = false;
        for (int k = 4; k < argc; k++) { /* bound: the arguments */
            check = check || strcmp(argv[k], "check") == 0;
            two = two || strcmp(argv[k], "two") == 0;
            scan = scan || strcmp(argv[k], "scan") == 0;
        }
        return bench_index(argv[2], argc > 3 && atoi(argv[3]) > 0 ? atoi(argv[3]) : 1, check,
                           two, scan);
    }
    if (strcmp(argv[1], "load") == 0)
        return cmd_load(argv[2], argc > 3 ? atoi(argv[3]) > 0 ? atoi(argv[3]) : 1 : 1);
    if (strcmp(argv[1], "qscan") == 0)
        return cmd_qscan(argv[2], argc > 3 && atoi(argv[3]) > 0 ? atoi(argv[3]) : 5);
    if (strcmp(argv[1], "run") == 0 && argc > 5 && strcmp(argv[4], "--") == 0)
        return cmd_run(atoi(argv[2]) > 0 ? atoi(argv[2]) : 1, argv[3], argv + 5);
    if (strcmp(argv[1], "vs") == 0 && argc > 6 && strcmp(argv[5], "--") == 0)
        return cmd_vs(atoi(argv[2]) > 0 ? atoi(argv[2]) : 1, argv[3], argv[4], argv + 6);
    if (strcmp(argv[1], "emit") == 0 && argc > 4)
        return cmd_emit(argv[2], argv[3], argv[4], argc > 5 && atoi(argv[5]) > 0 ? atoi(argv[5]) : 1);
    if (strcmp(argv[1], "keys") == 0)
        return bench_keys(argv[2], argc > 3 ? atol(argv[3]) : 0);
    if (strcmp(argv[1], "fresh") == 0)
        return cmd_fresh(atof(argv[2]), argc > 3 && atoi(argv[3]) > 0 ? atoi(argv[3]) : 1);
    if (strcmp(argv[1], "recache") == 0)
        return cmd_recache(argv + 2);
    if (strcmp(argv[1], "folios") == 0)
        return cmd_folios(argv[2]);
    if (strcmp(argv[1], "screen") == 0 && argc > 6 && strcmp(argv[5], "--") == 0)
        return bench_screen(atoi(argv[2]) > 0 ? atoi(argv[2]) : 40,
                            atoi(argv[3]) > 0 ? atoi(argv[3]) : 120,
                            atof(argv[4]) > 0 ? atof(argv[4]) : 60, argv + 6);
    return usage();
}
