/* main.c: command line → load → emit or explorer.  Only main prints errors.
 *
 * One options struct, one function per mode: run_emit (--print / --json, and whenever
 * stdout is not a terminal) and run_explorer (ui_run).  New modes add an enum cli_mode
 * value, an entry in long_options/usage_text and a run_ function.
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sparkplan/analyze.h"
#include "sparkplan/diff.h"
#include "sparkplan/diffout.h"
#include "sparkplan/catalog.h"
#include "sparkplan/emit.h"
#include "sparkplan/evemit.h"
#include "sparkplan/evapps.h"
#include "sparkplan/evload.h"
#include "sparkplan/evview.h"
#include "sparkplan/insight.h"
#include "sparkplan/keys.h"
#include "sparkplan/load.h"
#include "sparkplan/loadjob.h"
#include "sparkplan/sample.h"
#include "sparkplan/sanitize.h"
#include "sparkplan/ui.h"

enum cli_mode {
    MODE_AUTO,   /* explorer on a terminal, outline otherwise */
    MODE_PRINT,  /* --print */
    MODE_JSON,   /* --json */
    MODE_LINT,   /* --lint: findings, exit 1 on a warning */
    MODE_SUMMARY,/* --summary */
    MODE_DIFF,   /* --diff A B: exit 0 equal, 1 different, 2 error */
};

struct cli_options {
    enum cli_mode mode;
    struct ui_options ui;
    const char *sample;  /* --sample NAME: the built-in sample a NULL input opens */
    /* Inputs in order; a NULL entry is the built-in sample (no FILE, stdin a terminal). */
    const char **inputs;
    size_t n_inputs;
    unsigned diff_norm;  /* --strict / --ignore=LIST */
    bool diff_json;      /* --diff with --json */
    bool diff_full;      /* --diff-full: no folding of unchanged subtrees */
};

enum { EXIT_USAGE = 2, EXIT_INPUT = 2 };

static const char usage_text[] =
    "Usage: sparkplan [OPTIONS] [FILE...]\n"
    "Explore Apache Spark query plans (what df.explain() or EXPLAIN printed) in the terminal.\n"
    "\n"
    "With no FILE, read standard input when it is a pipe or a file; on a terminal, open\n"
    "the built-in sample plan.  FILE '-' is standard input.  When standard output is not\n"
    "a terminal, or with --print or --json, write the plans instead of exploring them.\n"
    "The explorer shows a big plan file (4 MB or more) from its first MB at once and\n"
    "swaps the whole plan in when it is loaded; counts say \"loading\" until then.\n"
    "\n"
    "FILE may be a Spark event log: a log file (plain, zstd, lz4, snappy, lzf or gzip,\n"
    "told from its bytes), a rolling eventlog_v2_* directory, a Databricks or Spark 1.x log\n"
    "directory, or a History Server directory of many applications.  Its SQL queries are\n"
    "listed with what ran on every operator (rows, time, sizes, spill), as the Spark UI\n"
    "shows them; --json adds \"application\" and \"executions\", --summary lists the\n"
    "queries by duration, --lint adds the runtime rules SP080-SP087 (docs/eventlogs.md).\n"
    "The explorer opens a History Server directory on its application list (A).\n"
    "\n"
    "Output:\n"
    "  -p, --print         indented outline: every section, one node a line\n"
    "                      with *(codegen stage) and (operator id); warnings on stderr\n"
    "  -j, --json          the plan model as JSON, one object (one line) per FILE;\n"
    "                      a plan's \"source\": its notebook cell, query or log record\n"
    "\n"
    "Insight:\n"
    "      --lint          findings, one a line: FILE:LINE: SPnnn severity: message;\n"
    "                      exit 1 when there is a warning\n"
    "      --summary       exchanges, codegen stages, joins, scans and findings per FILE\n"
    "      --rules         every lint rule with its reason and advice\n"
    "      --explain-node OPERATOR\n"
    "                      what an operator does and what to check on it\n"
    "      --samples       the workshop sample plans with their descriptions\n"
    "      --sample NAME   open a sample plan (as if it were FILE)\n"
    "\n"
    "Diff:\n"
    "      --diff A B      what changed from plan A to plan B: the merged tree with marks\n"
    "                      (+ added, - removed, ~ changed, \u21c4 replaced, \u21b7 moved) and a\n"
    "                      summary line; exit 0 equal, 1 different, 2 error.  With --json,\n"
    "                      one JSON object.  A or B may pick a part of a file: FILE#2 (plan\n"
    "                      2), FILE@optimized, FILE@initial / FILE@final (an adaptive plan's\n"
    "                      trees), FILE#2@physical.  --diff FILE alone compares an adaptive\n"
    "                      plan's Initial and Final trees, else plans 1 and 2, else the\n"
    "                      analyzed and optimized plans\n"
    "      --ignore=LIST   normalisations: ids (exprids, planids, opids, codegen, subquery),\n"
    "                      stats, location, hashes, catalog, all (default), none\n"
    "      --strict        compare as printed (--ignore=none)\n"
    "      --diff-full     print unchanged subtrees instead of folding them as [=N]\n"
    "\n"
    "Explorer:\n"
    "      --ascii         ASCII tree guides even in a UTF-8 terminal\n"
    "      --theme NAME    colours: dark, light, projector, mono (default: SPARKPLAN_THEME,\n"
    "                      the config file, else to suit the terminal's background)\n"
    "      --no-color      no colours (also when NO_COLOR is set)\n"
    "  Settings kept in $XDG_CONFIG_HOME/sparkplan/config (else ~/.config/sparkplan/config):\n"
    "  theme, split, ascii, explain, one `key = value` a line; T, i, + and - write them.\n"
    "\n"
    "  -h, --help          show this help and exit\n"
    "  -V, --version       show the version and exit\n"
    /* The explorer's key summary is appended here from its key table. */
    "\n"
    "Exit status: 0 success, 1 no terminal for the explorer (TERM unset), a --lint\n"
    "warning, an unknown --explain-node operator or a --diff that found differences,\n"
    "2 bad input, usage, an input past the limit or a write error; 129, 130, 143 the\n"
    "explorer ended by SIGHUP, SIGINT, SIGTERM (128 + the signal).\n"
    "Limits: input 16 GiB or half the memory (SPARKPLAN_MAX_INPUT=64G changes it),\n"
    "4294967294 lines, 64 MiB per paste (a longer paste is cut and said).\n"
    "See sparkplan(1) and docs/reliability.md.\n";

static const char *const theme_names[] = {"dark", "light", "projector", "mono"};

/* "sparkplan: BEFORE'ARG'AFTER" (no quotes without ARG) and the usage hint; ARG (from the
 * command line) and BEFORE (a message may quote the command line) are sanitized like
 * everything else shown. */
static void usage_error(const char *before, const char *arg, const char *after)
{
    fputs("sparkplan: ", stderr);
    sanitize_fwrite(stderr, slice_cstr(before));
    if (arg) {
        fputc('\'', stderr);
        sanitize_fwrite(stderr, slice_cstr(arg));
        fputc('\'', stderr);
    }
    fputs(after, stderr);
    fputc('\n', stderr);
    fputs("Usage: sparkplan [OPTIONS] [FILE...]\nTry 'sparkplan --help' for more.\n", stderr);
}

/* A write to stdout failed (a full disk, a closed pipe): say so, exit 2.  err: what the
 * writer said, when it said anything. */
static int write_failed(const struct diag *err)
{
    int e = errno;
    fputs("sparkplan: ", stderr);
    if (err && err->message[0])
        sanitize_fwrite(stderr, slice_cstr(err->message));
    else
        fprintf(stderr, "write error: %s", strerror(e ? e : EIO));
    fputc('\n', stderr);
    return EXIT_INPUT;
}

/* stdout flushed and closed without an error, or write_failed's status. */
static int finish_stdout(void)
{
    errno = 0;
    if (fflush(stdout) != 0 || ferror(stdout))
        return write_failed(NULL);
    return 0;
}

static bool theme_known(const char *name)
{
    for (size_t i = 0; i < sizeof theme_names / sizeof *theme_names; i++)
        if (strcmp(theme_names[i], name) == 0)
            return true;
    return false;
}

/* --rules, --explain-node, --samples: print and end with this status. */
static int print_rules(void)
{
    struct diag err = {0};
    errno = 0;
    if (insight_print_rules(stdout, &err) != SP_OK)
        return write_failed(&err);
    return finish_stdout();
}

static int explain_node(const char *name)
{
    struct diag err = {0};
    bool known = false;
    int width = 80;
    const struct catalog_entry *nocase = catalog_lookup(name) ? NULL : catalog_lookup_nocase(name);
    if (nocase)
        name = nocase->name; /* sortmergejoin -> SortMergeJoin */
    errno = 0;
    if (insight_print_entry(stdout, name, width, &known, &err) != SP_OK)
        return write_failed(&err);
    const char *close[4];
    size_t n = known ? 0 : catalog_suggest(name, close, 4);
    for (size_t i = 0; i < n; i++)
        printf("%s %s%s", i ? "," : "Did you mean:", close[i], i + 1 == n ? "?\n" : "");
    int st = finish_stdout();
    return st ? st : known ? 0 : 1;
}

static int print_samples(void)
{
    struct diag err = {0};
    errno = 0;
    if (insight_print_samples(stdout, &err) != SP_OK)
        return write_failed(&err);
    return finish_stdout();
}

/* The shift of a size suffix: "" 0, "K"/"KiB"/"KB" 10, M 20, G 30 (any case); -1 else. */
static int size_suffix_shift(const char *u)
{
    static const char units[] = "kmg";
    if (!*u)
        return 0;
    const char *at = strchr(units, u[0] | 0x20);
    if (!at || !*at)
        return -1;
    const char *rest = u + 1;
    if (*rest && strcasecmp(rest, "iB") != 0 && strcasecmp(rest, "B") != 0)
        return -1;
    return 10 * (int)(at - units + 1);
}

/* SPARKPLAN_MAX_INPUT: bytes, or a number with K, M or G (KiB, MiB, GiB).  False when the
 * variable is set to something else (said on stderr). */
static bool read_input_limit(void)
{
    const char *v = getenv("SPARKPLAN_MAX_INPUT");
    if (!v || !*v)
        return true;
    char *end;
    errno = 0;
    unsigned long long n = strtoull(v, &end, 10);
    int shift = end != v && v[0] != '-' ? size_suffix_shift(end) : -1;
    if (shift < 0 || errno || n == 0 || n > (SIZE_MAX >> shift)) {
        fputs("sparkplan: SPARKPLAN_MAX_INPUT: not a size: '", stderr);
        sanitize_fwrite(stderr, slice_cstr(v));
        fputs("' (bytes, or a number with K, M or G)\n", stderr);
        return false;
    }
    load_set_limits((size_t)n << shift, 0);
    return true;
}

/* Fills o from argv.  Returns -1 to go on, or the exit status to end with now. */
/* A missing argument (c == ':') or an unknown option: says so, returns EXIT_USAGE. */
static int option_error(int c, char **argv)
{
    if (c == ':') {
        usage_error("option ", argv[optind - 1], " needs an argument");
    } else if (optopt) {
        char opt[3] = {'-', (char)optopt, '\0'};
        usage_error("unknown option ", opt, "");
    } else {
        usage_error("unknown option ", argv[optind - 1], "");
    }
    return EXIT_USAGE;
}

static int take_inputs(int argc, char **argv, struct cli_options *o);

/* The command line's options (getopt_long); the codes past 255 are long-only. */
enum { OPT_ASCII = 256, OPT_THEME, OPT_NO_COLOR, OPT_LINT, OPT_SUMMARY, OPT_RULES,
       OPT_EXPLAIN_NODE, OPT_SAMPLES, OPT_SAMPLE, OPT_DIFF, OPT_IGNORE, OPT_STRICT,
       OPT_DIFF_FULL };
static const struct option long_options[] = {
    {"print", no_argument, NULL, 'p'},
    {"json", no_argument, NULL, 'j'},
    {"ascii", no_argument, NULL, OPT_ASCII},
    {"theme", required_argument, NULL, OPT_THEME},
    {"no-color", no_argument, NULL, OPT_NO_COLOR},
    {"lint", no_argument, NULL, OPT_LINT},
    {"summary", no_argument, NULL, OPT_SUMMARY},
    {"rules", no_argument, NULL, OPT_RULES},
    {"explain-node", required_argument, NULL, OPT_EXPLAIN_NODE},
    {"samples", no_argument, NULL, OPT_SAMPLES},
    {"sample", required_argument, NULL, OPT_SAMPLE},
    {"diff", no_argument, NULL, OPT_DIFF},
    {"ignore", required_argument, NULL, OPT_IGNORE},
    {"strict", no_argument, NULL, OPT_STRICT},
    {"diff-full", no_argument, NULL, OPT_DIFF_FULL},
    {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, 'V'},
    {NULL, 0, NULL, 0},
};

/* --diff and its normalisation options; -1 to go on, else the exit status. */
static int diff_option(int c, struct cli_options *o, bool *diff)
{
    struct diag nerr = {0};
    switch (c) {
    case OPT_DIFF:
        *diff = true;
        break;
    case OPT_STRICT:
        o->diff_norm = 0;
        break;
    case OPT_DIFF_FULL:
        o->diff_full = true;
        break;
    case OPT_IGNORE:
        if (diff_norm_parse(optarg, &o->diff_norm, &nerr) != SP_OK) {
            usage_error(nerr.message, NULL, ""); /* it may quote the argument */
            return EXIT_USAGE;
        }
        break;
    }
    return -1;
}

static int parse_options(int argc, char **argv, struct cli_options *o)
{
    memset(o, 0, sizeof *o);
    o->diff_norm = DIFF_NORM_DEFAULT;
    bool diff = false, json = false;
    int status;
    const char *no_color = getenv("NO_COLOR");
    o->ui.no_color = no_color && *no_color;
    opterr = 0; /* our own messages, with "sparkplan:" rather than argv[0] */
    int c;
    while ((c = getopt_long(argc, argv, ":pjhV", long_options, NULL)) != -1) {
        switch (c) {
        case 'p':
            o->mode = MODE_PRINT;
            break;
        case 'j':
            o->mode = MODE_JSON;
            json = true;
            break;
        case OPT_DIFF:
        case OPT_STRICT:
        case OPT_DIFF_FULL:
        case OPT_IGNORE:
            if ((status = diff_option(c, o, &diff)) >= 0)
                return status;
            break;
        case OPT_ASCII:
            o->ui.ascii = true;
            break;
        case OPT_THEME:
            if (!theme_known(optarg)) {
                usage_error("unknown theme ", optarg, " (dark, light, projector, mono)");
                return EXIT_USAGE;
            }
            o->ui.theme = optarg;
            break;
        case OPT_NO_COLOR:
            o->ui.no_color = true;
            break;
        case OPT_LINT:
            o->mode = MODE_LINT;
            break;
        case OPT_SUMMARY:
            o->mode = MODE_SUMMARY;
            break;
        case OPT_RULES:
            return print_rules();
        case OPT_EXPLAIN_NODE:
            return explain_node(optarg);
        case OPT_SAMPLES:
            return print_samples();
        case OPT_SAMPLE:
            o->sample = insight_sample_name(optarg);
            if (!o->sample) {
                usage_error("no sample named ", optarg, " (see --samples)");
                return EXIT_USAGE;
            }
            break;
        case 'h':
            fputs(usage_text, stdout), keys_print_help(stdout);
            return finish_stdout();
        case 'V':
            printf("sparkplan %s\n", SPARKPLAN_VERSION);
            return finish_stdout();
        default:
            return option_error(c, argv);
        }
    }
    if (diff) {
        o->mode = MODE_DIFF;
        o->diff_json = json;
        if (argc - optind < 1 || argc - optind > 2) {
            usage_error("--diff compares two plans: --diff A B (or one adaptive FILE)", NULL, "");
            return EXIT_USAGE;
        }
    }
    return take_inputs(argc, argv, o);
}

/* The plans named after the options (or the sample, or stdin); -1 to go on. */
static int take_inputs(int argc, char **argv, struct cli_options *o)
{
    o->n_inputs = argc > optind ? (size_t)(argc - optind) : 1;
    o->inputs = calloc(o->n_inputs, sizeof *o->inputs);
    if (!o->inputs) {
        fputs("sparkplan: out of memory\n", stderr);
        return EXIT_INPUT;
    }
    if (o->sample && argc > optind) {
        usage_error("--sample opens one plan: ", argv[optind], " is one too many");
        free(o->inputs);
        return EXIT_USAGE;
    }
    if (o->sample) {
        o->inputs[0] = NULL;
    } else if (argc > optind) {
        for (int i = optind; i < argc; i++)
            o->inputs[i - optind] = argv[i];
    } else {
        /* Nothing named: a pipe or redirected file is the plan, a terminal gets the sample. */
        o->inputs[0] = isatty(STDIN_FILENO) ? NULL : "-";
    }
    return -1;
}

/* The built-in sample a NULL input opens (--sample NAME, else the default). */
static const char *sample_to_open = SAMPLE_DEFAULT_NAME;

/* Standard input, read whole once its first bytes had to be seen (is it an event log?):
 * the buffer is then handed to whichever loader takes it. */
static char *stdin_bytes;
static size_t stdin_len;
static bool stdin_taken;
static enum sp_status stdin_status;   /* why stdin_bytes is NULL: too large, a read error */
static struct diag stdin_err;

/* On a terminal, reading standard input looks like a hang: say what is awaited, once. */
static void say_reading_stdin(void)
{
    static bool said;
    if (!said && isatty(STDIN_FILENO))
        fputs("sparkplan: reading a plan from standard input; Ctrl-d to end\n", stderr);
    said = true;
}

/* Within the input limit (load.h): a stream that never ends stops there. */
static bool read_stdin_once(void)
{
    if (stdin_taken)
        return stdin_bytes != NULL;
    stdin_taken = true;
    say_reading_stdin();
    stdin_status = load_read_stream(stdin, &stdin_bytes, &stdin_len, &stdin_err);
    return stdin_bytes != NULL;
}

static bool stdin_is_eventlog(void)
{
    if (!read_stdin_once())
        return false;
    const char *p = stdin_bytes;
    size_t n = stdin_len;
    if (n >= 3 && memcmp(p, "\xef\xbb\xbf", 3) == 0)
        p += 3, n -= 3;
    if (ev_codec_detect((const unsigned char *)p, n) != EV_PLAIN)
        return true; /* compressed: only event logs are read compressed */
    return n >= 9 && memcmp(p, "{\"Event\":", 9) == 0;
}

/* NULL path: the built-in sample plan. */
static enum sp_status load_input(const char *path, struct document **doc, struct diag *err)
{
    if (path && strcmp(path, "-") == 0 && stdin_taken) {
        char *bytes = stdin_bytes;
        stdin_bytes = NULL;
        if (!bytes) {
            *err = stdin_err;
            return stdin_status != SP_OK ? stdin_status : SP_ERR_IO;
        }
        return load_bytes("stdin", bytes, stdin_len, doc, err);
    }
    if (path && strcmp(path, "-") == 0)
        say_reading_stdin();
    if (path)
        return load_path(path, doc, err);
    const struct sample_file *s = sample_find(sample_to_open);
    char *bytes = s ? malloc(s->len + 1) : NULL;
    if (!bytes) {
        diag_set(err, 0, s ? "out of memory" : "no built-in sample");
        return s ? SP_ERR_NOMEM : SP_ERR_NO_PLAN;
    }
    memcpy(bytes, s->data, s->len + 1);
    return load_bytes(s->name, bytes, s->len, doc, err);
}

static const char *input_name(const char *path)
{
    if (!path)
        return sample_to_open;
    return strcmp(path, "-") == 0 ? "stdin" : path;
}

/* "sparkplan: FILE: message" or "sparkplan: FILE:LINE: message".  File names and messages
 * (which may quote plan text) go through the sanitizer like everything else shown. */
static void report(const char *name, uint32_t line, const char *what, const char *message)
{
    fputs("sparkplan: ", stderr);
    sanitize_fwrite(stderr, slice_cstr(name));
    if (line)
        fprintf(stderr, ":%lu", (unsigned long)line);
    fprintf(stderr, ": %s", what);
    sanitize_fwrite(stderr, slice_cstr(message));
    fputc('\n', stderr);
}

static void report_warnings(const struct document *doc)
{
    for (const struct plan_warning *w = doc->first_warning; w; w = w->next) {
        if (!w->where) {
            report(doc->name, w->line, "warning: ", w->message);
            continue;
        }
        /* A notebook: "FILE:cell 12:3: warning: ..." */
        fputs("sparkplan: ", stderr);
        sanitize_fwrite(stderr, slice_cstr(doc->name));
        fputc(':', stderr);
        sanitize_fwrite(stderr, slice_cstr(w->where));
        fputs(": warning: ", stderr);
        sanitize_fwrite(stderr, slice_cstr(w->message));
        fputc('\n', stderr);
    }
}

/* An event log (a file whose first line is an event, or a log or History Server
 * directory): read by evload, not by the plan loader. */
static bool is_eventlog(const char *path)
{
    struct stat st;
    if (path && strcmp(path, "-") == 0)
        return stdin_is_eventlog();
    if (!path || stat(path, &st) != 0)
        return false;
    if (S_ISREG(st.st_mode))
        return ev_file_is_eventlog(path);
    if (!S_ISDIR(st.st_mode))
        return false;
    /* a directory without a log is reported as a directory, like any other */
    struct ev_source src;
    struct diag err = {0};
    bool found = ev_source_resolve(path, &src, &err) == SP_OK;
    if (found)
        ev_source_free(&src);
    return found;
}

static void report_ev_warnings(const struct ev_app *app)
{
    for (size_t i = 0; i < app->n_warnings; i++)
        report(app->warnings[i].file, (uint32_t)app->warnings[i].line, "warning: ",
               app->warnings[i].message);
}

/* Every application of an event-log path in the mode asked for.  Returns the exit status
 * of the inputs (0, or 2 when one could not be read); *warned for --lint. */
static int run_eventlog(const struct cli_options *o, const char *path, bool *warned)
{
    struct ev_source src;
    struct diag err = {0};
    enum sp_status s;
    if (strcmp(path, "-") == 0) { /* a log on standard input: one application, in memory */
        static char *names[1] = {"stdin"};
        static struct ev_app_files one = {.name = "stdin", .files = names, .n_files = 1};
        src = (struct ev_source){.apps = &one, .n_apps = 1};
        s = SP_OK;
    } else {
        s = ev_source_resolve(path, &src, &err);
    }
    if (s != SP_OK) {
        report(path, 0, "", err.message);
        return sp_status_exit_code(s);
    }
    int status = 0;
    bool list = src.history_dir && (o->mode == MODE_PRINT || o->mode == MODE_SUMMARY ||
                                     o->mode == MODE_AUTO);
    struct evemit_app_row *rows = list ? calloc(src.n_apps, sizeof *rows) : NULL;
    size_t n_rows = 0;
    for (size_t i = 0; i < src.n_apps; i++) {
        struct ev_app *app = NULL;
        if (strcmp(path, "-") == 0)
            s = evload_bytes("stdin", stdin_bytes, stdin_len, &app, &err);
        else
            s = evload_app(&src.apps[i], &app, &err);
        if (s != SP_OK) {
            report(src.apps[i].name, err.line, "", err.message);
            status = sp_status_exit_code(s);
            continue;
        }
        bool w = false;
        if (src.history_dir && o->mode != MODE_JSON && o->mode != MODE_LINT) {
            fputs(i ? "\n==> " : "==> ", stdout);
            sanitize_fwrite(stdout, slice_cstr(src.apps[i].name));
            fputs(" <==\n", stdout);
        }
        if (o->mode == MODE_JSON)
            s = evemit_json(stdout, app, &err);
        else if (o->mode == MODE_LINT)
            s = evemit_lint(stdout, app, &w, &err);
        else if (o->mode == MODE_SUMMARY)
            s = evemit_summary(stdout, app, &err);
        else
            s = evemit_print(stdout, app, &err);
        *warned = *warned || w;
        if (rows)
            evemit_app_row(app, &rows[n_rows++]);
        if (o->mode != MODE_JSON && o->mode != MODE_SUMMARY)
            report_ev_warnings(app);
        ev_app_free(app);
        if (s != SP_OK) {
            report(src.apps[i].name, 0, "", err.message);
            status = EXIT_INPUT;
            break;
        }
    }
    if (rows && n_rows > 0 && status == 0) { /* the applications at a glance, last */
        fputc('\n', stdout);
        if (evemit_app_list(stdout, path, rows, n_rows, &err) != SP_OK)
            status = EXIT_INPUT;
    }
    free(rows);
    if (strcmp(path, "-") == 0) {
        free(stdin_bytes);
        stdin_bytes = NULL;
    } else {
        ev_source_free(&src);
    }
    return status;
}

/* --print / --json / stdout not a terminal: each input loaded, written and freed in turn,
 * so memory holds one document at a time.  A bad input is reported and skipped. */
static int run_emit(const struct cli_options *o)
{
    int status = 0;
    bool json = o->mode == MODE_JSON;
    for (size_t i = 0; i < o->n_inputs; i++) {
        const char *path = o->inputs[i];
        struct document *doc = NULL;
        struct diag err = {0};
        if (is_eventlog(path)) {
            bool warned = false;
            int st = run_eventlog(o, path, &warned);
            status = st ? st : status;
            continue;
        }
        enum sp_status s = load_input(path, &doc, &err);
        if (s != SP_OK) {
            report(input_name(path), err.line, "", err.message);
            status = sp_status_exit_code(s);
            continue;
        }
        if (!json && o->n_inputs > 1) {
            fputs(i ? "\n==> " : "==> ", stdout);
            sanitize_fwrite(stdout, slice_cstr(input_name(path)));
            fputs(" <==\n", stdout);
        }
        if (fflush(stdout) != 0) {
            diag_set(&err, 0, "write error: %s", strerror(errno));
            s = SP_ERR_IO;
        } else {
            s = json ? emit_json(stdout, doc, &err) : emit_print(stdout, doc, &err);
        }
        if (s == SP_OK && !json)
            report_warnings(doc);
        document_free(doc);
        if (s != SP_OK)
            return write_failed(&err);
    }
    if (finish_stdout() != 0)
        return EXIT_INPUT;
    return status;
}

/* --lint / --summary: each input loaded, analyzed, written and freed in turn.  --lint's
 * status: 2 when an input could not be read, else 1 when any warning was found, else 0. */
static int run_insight(const struct cli_options *o)
{
    bool lint = o->mode == MODE_LINT;
    int input_status = 0;
    bool warned = false;
    for (size_t i = 0; i < o->n_inputs; i++) {
        const char *path = o->inputs[i];
        struct document *doc = NULL;
        struct analysis *a = NULL;
        struct diag err = {0};
        if (is_eventlog(path)) {
            int st = run_eventlog(o, path, &warned);
            input_status = st ? st : input_status;
            continue;
        }
        enum sp_status s = load_input(path, &doc, &err);
        if (s != SP_OK) {
            report(input_name(path), err.line, "", err.message);
            input_status = sp_status_exit_code(s);
            continue;
        }
        s = lint ? analyze_document(doc, &a, &err) : analyze_document_counts(doc, &a, &err);
        if (s == SP_OK) {
            if (!lint && o->n_inputs > 1) {
                fputs(i ? "\n==> " : "==> ", stdout);
                sanitize_fwrite(stdout, slice_cstr(input_name(path)));
                fputs(" <==\n", stdout);
            }
            s = lint ? insight_print_lint(stdout, doc, a, &err)
                     : insight_print_summary(stdout, doc, a, &err);
            warned = warned || a->summary.n_warnings > 0;
        }
        analysis_free(a);
        document_free(doc);
        if (s != SP_OK)
            return write_failed(&err);
        if (finish_stdout() != 0)
            return EXIT_INPUT;
    }
    if (input_status)
        return input_status;
    return lint && warned ? 1 : 0;
}

/* One side of --diff: "FILE", "FILE#2", "FILE@final"; *doc is loaded unless it is the same
 * file as other (then shared).  Reports and returns the exit status on failure, else -1. */
static int diff_load(const char *arg, const char *other_path, struct document *other,
                     char **path, struct document **doc, const char **spec)
{
    size_t at = diff_spec_split(arg);
    *path = strndup(arg, at);
    *spec = arg + at;
    if (!*path) {
        fputs("sparkplan: out of memory\n", stderr);
        return EXIT_INPUT;
    }
    if (other && other_path && strcmp(other_path, *path) == 0) {
        *doc = other;
        return -1;
    }
    struct diag err = {0};
    enum sp_status s = load_input(*path, doc, &err);
    if (s != SP_OK) {
        report(input_name(*path), err.line, "", err.message);
        return EXIT_INPUT;
    }
    return -1;
}

/* With one FILE: an adaptive plan's Initial and Final trees, else its first two plans,
 * else its analyzed and optimized plans. */
static void diff_default_specs(const struct document *doc, const char **sa, const char **sb)
{
    struct diff_side probe;
    struct diag err = {0};
    if (diff_select(doc, "@initial", &probe, &err) == SP_OK) {
        diff_side_free(&probe);
        *sa = "@initial", *sb = "@final";
    } else if (doc->n_plans >= 2) {
        *sa = "#1", *sb = "#2";
    } else {
        *sa = "@analyzed", *sb = "@optimized";
    }
}

static int diff_output(const struct cli_options *o, const struct diff_result *r)
{
    struct diag err = {0};
    const char *lang = getenv("LC_ALL");
    if (!lang || !*lang)
        lang = getenv("LC_CTYPE");
    if (!lang || !*lang)
        lang = getenv("LANG");
    bool utf8 = !o->ui.ascii && lang && (strstr(lang, "UTF-8") || strstr(lang, "utf8") ||
                                         strstr(lang, "UTF8") || strstr(lang, "utf-8"));
    struct diffout_options out = {utf8, !o->diff_full};
    enum sp_status s = o->diff_json ? diffout_json(stdout, r, &err)
                                    : diffout_text(stdout, r, &out, &err);
    if (s != SP_OK) {
        fprintf(stderr, "sparkplan: %s\n", err.message);
        return EXIT_INPUT;
    }
    return r->equal ? 0 : 1;
}

/* --diff A B (or --diff FILE): exit 0 equal after normalisation, 1 different, 2 error. */
static int run_diff(const struct cli_options *o)
{
    char *path_a = NULL, *path_b = NULL;
    struct document *doc_a = NULL, *doc_b = NULL;
    const char *spec_a = "", *spec_b = "";
    struct diff_side side_a = {0}, side_b = {0};
    struct diff_result *r = NULL;
    struct diag err = {0};
    int status = diff_load(o->inputs[0], NULL, NULL, &path_a, &doc_a, &spec_a);
    if (status < 0 && o->n_inputs == 2)
        status = diff_load(o->inputs[1], path_a, doc_a, &path_b, &doc_b, &spec_b);
    if (status < 0 && o->n_inputs == 1) {
        doc_b = doc_a;
        path_b = strdup(path_a);
        if (!*spec_a)
            diff_default_specs(doc_a, &spec_a, &spec_b);
        else
            spec_b = spec_a;
    }
    if (status < 0 && diff_select(doc_a, spec_a, &side_a, &err) != SP_OK) {
        report(input_name(path_a), 0, "", err.message);
        status = EXIT_INPUT;
    }
    if (status < 0 && diff_select(doc_b, spec_b, &side_b, &err) != SP_OK) {
        report(input_name(path_b), 0, "", err.message);
        status = EXIT_INPUT;
    }
    if (status < 0 && diff_sides(&side_a, &side_b, o->diff_norm, &r, &err) != SP_OK) {
        fprintf(stderr, "sparkplan: %s\n", err.message);
        status = EXIT_INPUT;
    }
    if (status < 0)
        status = diff_output(o, r);
    diff_free(r);
    diff_side_free(&side_a);
    diff_side_free(&side_b);
    if (doc_b != doc_a)
        document_free(doc_b);
    document_free(doc_a);
    free(path_a);
    free(path_b);
    return status;
}

/* An application as the explorer shows it: its queries' final plans and its evview. */
struct ev_shown {
    struct ev_app *app;
    struct evview ev;
    struct document **docs;
    size_t n_docs;
};

static void ev_shown_free(struct ev_shown *x)
{
    if (!x)
        return;
    if (x->docs)
        evview_free(&x->ev);
    free(x->docs);
    ev_app_free(x->app);
    free(x);
}

/* Takes app; NULL (err says why) without memory or without a query that has a plan. */
static struct ev_shown *ev_shown_new(struct ev_app *app, char *err, size_t errcap)
{
    struct ev_shown *x = calloc(1, sizeof *x);
    struct document **docs = calloc(app->n_execs + 1, sizeof *docs);
    if (!x || !docs || !evview_init(&x->ev, app)) {
        snprintf(err, errcap, "out of memory");
        free(docs);
        free(x);
        ev_app_free(app);
        return NULL;
    }
    x->app = app;
    x->docs = docs;
    for (size_t i = 0; i < app->n_execs; i++) {
        const struct ev_plan *p = ev_exec_final(&app->execs[i]);
        if (p && p->doc && p->section)
            x->docs[x->n_docs++] = p->doc;
    }
    if (x->n_docs == 0) {
        snprintf(err, errcap, "%s: no SQL query with a plan in this log (--summary says what "
                              "it holds)", app->name_shown);
        ev_shown_free(x);
        return NULL;
    }
    return x;
}

/* A History Server directory in the explorer: one application shown, the next one read
 * when the application list asks (ui.h). */
struct ev_explored {
    const struct ev_source *src;
    struct ev_shown *shown, *next;
};

static bool explored_load(void *ctx, size_t i, struct ui_app_view *out, char *err, size_t cap)
{
    struct ev_explored *x = ctx;
    struct ev_app *app = NULL;
    struct diag d = {0};
    if (evload_app(&x->src->apps[i], &app, &d) != SP_OK) {
        snprintf(err, cap, "%s: %s", x->src->apps[i].name, d.message);
        return false;
    }
    ev_shown_free(x->next);
    x->next = ev_shown_new(app, err, cap);
    if (!x->next)
        return false;
    *out = (struct ui_app_view){x->next->docs, x->next->n_docs, &x->next->ev, 0, ""};
    const struct ev_app *a = x->next->app;
    out->n_warnings = a->n_warnings;
    if (a->n_warnings)
        snprintf(out->first_warning, sizeof out->first_warning, "%s:%llu: %s",
                 a->warnings[0].file ? a->warnings[0].file : a->name_shown,
                 (unsigned long long)a->warnings[0].line, a->warnings[0].message);
    return true;
}

static void explored_swap(void *ctx)
{
    struct ev_explored *x = ctx;
    ev_shown_free(x->shown);
    x->shown = x->next;
    x->next = NULL;
}

/* The first application of src that can be shown (its index in *first), or NULL. */
static struct ev_shown *first_shown(const struct ev_source *src, size_t *first)
{
    char msg[300];
    for (size_t i = 0; i < src->n_apps; i++) {
        struct ev_app *app = NULL;
        struct diag err = {0};
        if (evload_app(&src->apps[i], &app, &err) != SP_OK) {
            report(src->apps[i].name, err.line, "", err.message);
            continue;
        }
        report_ev_warnings(app);
        struct ev_shown *x = ev_shown_new(app, msg, sizeof msg);
        if (x) {
            *first = i;
            return x;
        }
        if (src->n_apps == 1)
            report(src->apps[i].name, 0, "", msg);
    }
    return NULL;
}

/* The explorer on an event log: its queries' final plans, the other versions as their tabs,
 * the query list first (ui.h).  A History Server directory: the application list first,
 * each application read when it is opened, the list's briefs read on a thread. */
static int explore_eventlog(struct cli_options *o, const char *path)
{
    struct ev_source src = {0};
    struct diag err = {0};
    struct ev_explored x = {.src = &src};
    size_t first = 0;
    if (strcmp(path, "-") == 0) {
        struct ev_app *app = NULL;
        o->ui.tty_from_dev = true;
        if (evload_bytes("stdin", stdin_bytes, stdin_len, &app, &err) != SP_OK) {
            report(path, err.line, "", err.message);
            return EXIT_INPUT;
        }
        report_ev_warnings(app);
        char msg[300];
        if (!(x.shown = ev_shown_new(app, msg, sizeof msg)))
            report(path, 0, "", msg);
    } else {
        enum sp_status s = ev_source_resolve(path, &src, &err);
        if (s != SP_OK) {
            report(path, err.line, "", err.message);
            return sp_status_exit_code(s);
        }
        x.shown = first_shown(&src, &first);
    }
    int status = EXIT_INPUT;
    struct evapps list;
    struct ui_apps apps = {&list, &x, explored_load, explored_swap};
    bool listed = x.shown && src.history_dir && evapps_start(&list, &src);
    if (x.shown) {
        if (!isatty(STDIN_FILENO))
            o->ui.tty_from_dev = true;
        list.current = list.sel = first;
        o->ui.ev = &x.shown->ev;
        o->ui.apps = listed ? &apps : NULL;
        status = ui_run(x.shown->docs, x.shown->n_docs, &o->ui);
        o->ui.ev = NULL;
        o->ui.apps = NULL;
    }
    if (listed)
        evapps_stop(&list);
    ev_shown_free(x.shown);
    ev_shown_free(x.next);
    if (strcmp(path, "-") != 0)
        ev_source_free(&src);
    return status;
}

/* One big plan file: the explorer shows a preview of its beginning while the whole of it
 * loads on a thread (loadjob.h), then the whole document; without a preview it waits for
 * the load as for any input.  -1 when no thread could be had (the caller loads it), else
 * the exit status, a failed load reported once the terminal is restored. */
static int explore_while_loading(struct cli_options *o, const char *path)
{
    /* The preview first (a few ms): the loader's first use sets its limits, which two
     * threads must not do at once. */
    struct document *preview = loadjob_preview(path);
    struct loadjob job;
    if (!loadjob_start(&job, path)) {
        document_free(preview);
        return -1;
    }
    if (!isatty(STDIN_FILENO))
        o->ui.tty_from_dev = true;
    int status = 0;
    struct document *doc;
    struct diag err = {0};
    enum sp_status s = SP_OK;
    if (preview) {
        o->ui.loading = &job;
        status = ui_run(&preview, 1, &o->ui);
        o->ui.loading = NULL;
        s = loadjob_finish(&job, &doc, &err);
    } else if ((s = loadjob_finish(&job, &doc, &err)) == SP_OK) {
        status = ui_run(&doc, 1, &o->ui);
    }
    if (s != SP_OK && s != SP_ERR_CANCELLED) {
        report(input_name(path), err.line, "", err.message);
        status = status ? status : sp_status_exit_code(s);
    }
    loadjob_free(&job);
    document_free(preview);
    return status;
}

/* The interactive explorer over every input.  Any input that fails to load ends the run
 * before the screen is taken, so the message stays readable. */
static int run_explorer(struct cli_options *o)
{
    struct document **docs = calloc(o->n_inputs, sizeof *docs);
    if (!docs) {
        fputs("sparkplan: out of memory\n", stderr);
        return EXIT_INPUT;
    }
    int status = 0;
    size_t n_docs = 0;
    for (size_t i = 0; i < o->n_inputs; i++) /* an event log is explored on its own */
        if (is_eventlog(o->inputs[i])) {
            free(docs);
            return explore_eventlog(o, o->inputs[i]);
        }
    if (o->n_inputs == 1 && loadjob_wanted(o->inputs[0])) {
        int st = explore_while_loading(o, o->inputs[0]);
        if (st >= 0) {
            free(docs);
            return st;
        }
    }
    for (size_t i = 0; i < o->n_inputs; i++) {
        const char *path = o->inputs[i];
        struct diag err = {0};
        enum sp_status s = load_input(path, &docs[n_docs], &err);
        if (s != SP_OK) {
            report(input_name(path), err.line, "", err.message);
            status = sp_status_exit_code(s);
            continue;
        }
        n_docs++;
        if (path && strcmp(path, "-") == 0)
            o->ui.tty_from_dev = true;
    }
    /* Keys cannot come from a stdin that is a pipe or a file. */
    if (!isatty(STDIN_FILENO))
        o->ui.tty_from_dev = true;
    if (status == 0)
        status = ui_run(docs, n_docs, &o->ui);
    for (size_t i = 0; i < n_docs; i++)
        document_free(docs[i]);
    free(docs);
    return status;
}

int main(int argc, char **argv)
{
    struct cli_options o;
    int status = parse_options(argc, argv, &o);
    if (status >= 0)
        return status;
    if (!read_input_limit()) {
        free(o.inputs);
        return EXIT_USAGE;
    }
    if (o.sample)
        sample_to_open = o.sample;
    if (o.mode == MODE_DIFF)
        status = run_diff(&o);
    else if (o.mode == MODE_LINT || o.mode == MODE_SUMMARY)
        status = run_insight(&o);
    else if (o.mode != MODE_AUTO || !isatty(STDOUT_FILENO))
        status = run_emit(&o);
    else
        status = run_explorer(&o);
    free(o.inputs);
    return status;
}
