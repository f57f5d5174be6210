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
#include <unistd.h>

#include "sparkplan/analyze.h"
#include "sparkplan/catalog.h"
#include "sparkplan/emit.h"
#include "sparkplan/insight.h"
#include "sparkplan/keys.h"
#include "sparkplan/load.h"
#include "sparkplan/sample.h"
#include "sparkplan/sanitize.h"
#include "sparkplan/ui.h"

enum cli_mode {
    MODE_AUTO,   /* explorer on a terminal, outline otherwise */
    MODE_PRINT,  /* --print */
    MODE_JSON,   /* --json */
    MODE_LINT,   /* --lint: findings, exit 1 on a warning */
    MODE_SUMMARY,/* --summary */
};

struct cli_options {
    enum cli_mode mode;
    struct ui_options ui;
    const char *sample;  /* --sample NAME: the built-in sample a NULL input opens */
    /* Inputs in order; a NULL entry is the built-in sample (no FILE, stdin a terminal). */
    const char **inputs;
    size_t n_inputs;
};

enum { EXIT_USAGE = 2, EXIT_INPUT = 2 };

static const char usage_text[] =
    "Usage: sparkplan [OPTIONS] [FILE...]\n"
    "Explore Apache Spark query plans (what df.explain() or EXPLAIN printed) in the terminal.\n"
    "\n"
    "With no FILE, read standard input when it is a pipe or a file; on a terminal, open\n"
    "the built-in sample plan.  FILE '-' is standard input.  When standard output is not\n"
    "a terminal, or with --print or --json, write the plans instead of exploring them.\n"
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
    "Exit status: 0 success, 1 no terminal for the explorer, a --lint warning or an\n"
    "unknown --explain-node operator, 2 bad input or usage.\n"
    "See sparkplan(1).\n";

static const char *const theme_names[] = {"dark", "light", "projector", "mono"};

static void usage_error(const char *fmt, const char *arg)
{
    fputs("sparkplan: ", stderr);
    fprintf(stderr, fmt, arg);
    fputc('\n', stderr);
    fputs("Usage: sparkplan [OPTIONS] [FILE...]\nTry 'sparkplan --help' for more.\n", stderr);
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
    if (insight_print_rules(stdout, &err) != SP_OK || fflush(stdout) != 0)
        return EXIT_INPUT;
    return 0;
}

static int explain_node(const char *name)
{
    struct diag err = {0};
    bool known = false;
    int width = 80;
    const struct catalog_entry *nocase = catalog_lookup(name) ? NULL : catalog_lookup_nocase(name);
    if (nocase)
        name = nocase->name; /* sortmergejoin -> SortMergeJoin */
    if (insight_print_entry(stdout, name, width, &known, &err) != SP_OK || fflush(stdout) != 0) {
        fprintf(stderr, "sparkplan: %s\n", err.message);
        return EXIT_INPUT;
    }
    const char *close[4];
    size_t n = known ? 0 : catalog_suggest(name, close, 4);
    for (size_t i = 0; i < n; i++)
        printf("%s %s%s", i ? "," : "Did you mean:", close[i], i + 1 == n ? "?\n" : "");
    return known ? 0 : 1;
}

static int print_samples(void)
{
    struct diag err = {0};
    if (insight_print_samples(stdout, &err) != SP_OK || fflush(stdout) != 0)
        return EXIT_INPUT;
    return 0;
}

/* Fills o from argv.  Returns -1 to go on, or the exit status to end with now. */
/* A missing argument (c == ':') or an unknown option: says so, returns EXIT_USAGE. */
static int option_error(int c, char **argv)
{
    if (c == ':') {
        usage_error("option '%s' needs an argument", argv[optind - 1]);
    } else if (optopt) {
        char opt[3] = {'-', (char)optopt, '\0'};
        usage_error("unknown option '%s'", opt);
    } else {
        usage_error("unknown option '%s'", argv[optind - 1]);
    }
    return EXIT_USAGE;
}

static int take_inputs(int argc, char **argv, struct cli_options *o);

static int parse_options(int argc, char **argv, struct cli_options *o)
{
    enum { OPT_ASCII = 256, OPT_THEME, OPT_NO_COLOR, OPT_LINT, OPT_SUMMARY, OPT_RULES,
           OPT_EXPLAIN_NODE, OPT_SAMPLES, OPT_SAMPLE };
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
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0},
    };
    memset(o, 0, sizeof *o);
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
            break;
        case OPT_ASCII:
            o->ui.ascii = true;
            break;
        case OPT_THEME:
            if (!theme_known(optarg)) {
                usage_error("unknown theme '%s' (dark, light, projector, mono)", optarg);
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
                usage_error("no sample named '%s' (see --samples)", optarg);
                return EXIT_USAGE;
            }
            break;
        case 'h':
            fputs(usage_text, stdout), keys_print_help(stdout);
            return fflush(stdout) == 0 ? 0 : EXIT_INPUT;
        case 'V':
            printf("sparkplan %s\n", SPARKPLAN_VERSION);
            return fflush(stdout) == 0 ? 0 : EXIT_INPUT;
        default:
            return option_error(c, argv);
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
        usage_error("--sample opens one plan: '%s' is one too many", argv[optind]);
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

/* NULL path: the built-in sample plan. */
static enum sp_status load_input(const char *path, struct document **doc, struct diag *err)
{
    if (path && strcmp(path, "-") == 0 && isatty(STDIN_FILENO)) /* else it looks hung */
        fputs("sparkplan: reading a plan from standard input; Ctrl-d to end\n", stderr);
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
        if (s != SP_OK) {
            fprintf(stderr, "sparkplan: %s\n", err.message);
            return EXIT_INPUT;
        }
    }
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
        enum sp_status s = load_input(path, &doc, &err);
        if (s != SP_OK) {
            report(input_name(path), err.line, "", err.message);
            input_status = sp_status_exit_code(s);
            continue;
        }
        s = analyze_document(doc, &a, &err);
        if (s == SP_OK) {
            if (!lint && o->n_inputs > 1)
                printf("%s==> %s <==\n", i ? "\n" : "", input_name(path));
            s = lint ? insight_print_lint(stdout, doc, a, &err)
                     : insight_print_summary(stdout, doc, a, &err);
            warned = warned || a->summary.n_warnings > 0;
        }
        analysis_free(a);
        document_free(doc);
        if (s != SP_OK || fflush(stdout) != 0) {
            fprintf(stderr, "sparkplan: %s\n", err.message[0] ? err.message : strerror(errno));
            return EXIT_INPUT;
        }
    }
    if (input_status)
        return input_status;
    return lint && warned ? 1 : 0;
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
    if (o.sample)
        sample_to_open = o.sample;
    if (o.mode == MODE_LINT || o.mode == MODE_SUMMARY)
        status = run_insight(&o);
    else if (o.mode != MODE_AUTO || !isatty(STDOUT_FILENO))
        status = run_emit(&o);
    else
        status = run_explorer(&o);
    free(o.inputs);
    return status;
}
