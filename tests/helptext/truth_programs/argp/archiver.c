/* archiver: a GNU argp program whose --help, --usage and --version argp itself prints.
   It archives nothing: its help text and its argp_option table are compared. Run with
   TOOLBAY_TRUTH=1 it prints that table (and its positionals) as JSON truth for the help-text
   corpus instead of running; see tests/helptext/tools/framework_truth.py.
   Build: cc -o archiver archiver.c (glibc has argp). */
#include <argp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *argp_program_version = "archiver 3.1.4";
const char *argp_program_bug_address = "<bugs@archiver.example>";

/* Positionals as the program takes them; ARGS_DOC is written from this table. */
static const struct { const char *name; int required; int variadic; } positionals[] = {
    {"ARCHIVE", 1, 0},
    {"FILE", 0, 1},
};
static const char args_doc[] = "ARCHIVE [FILE...]";
static const char doc[] = "archiver -- pack FILEs into ARCHIVE, or list and unpack it."
                          "\vWith no FILE, the current folder is packed.";

/* Values an option takes from a fixed list (argp has no such notion: the program checks). */
static const char *const compressions[] = {"none", "gzip", "xz", "zstd", NULL};
static const char *const formats[] = {"tar", "zip", "cpio", NULL};

static struct argp_option options[] = {
    {0, 0, 0, 0, "Mode:", 1},
    {"create", 'c', 0, 0, "create a new archive", 1},
    {"list", 't', 0, 0, "list the contents of an archive", 1},
    {"extract", 'x', 0, 0, "extract files from an archive", 1},
    {0, 0, 0, 0, "Options:", 2},
    {"directory", 'C', "DIR", 0, "change to DIR before doing anything", 2},
    {"compress", 'z', "METHOD", 0, "compress with METHOD: one of none, gzip, xz, zstd", 2},
    {"format", 'H', "FORMAT", 0, "archive format (tar, zip or cpio)", 2},
    {"level", 'l', "N", 0, "compression level, 1 to 9", 2},
    {"exclude", 'X', "PATTERN", 0, "leave out files matching PATTERN (may be given several times)", 2},
    {"backup", 'b', "CONTROL", OPTION_ARG_OPTIONAL, "back up files that would be overwritten", 2},
    {"verbose", 'v', 0, 0, "list files as they are processed", 2},
    {"quiet", 'q', 0, 0, "print nothing but errors", 2},
    {"owner", 1000, "NAME", 0, "record NAME as the owner of added files", 2},
    {"dereference", 'h', 0, 0, "follow symbolic links", 2},
    {0},
};

static const char *const *choices_of(int key) {
    return key == 'z' ? compressions : key == 'H' ? formats : NULL;
}

static int repeats(int key) { return key == 'X'; }

static void print_truth(void) {
    printf("{\n  \"source\": \"argp definition of `archiver`\",\n  \"options\": [\n");
    int first = 1;
    for (const struct argp_option *o = options; o->name || o->key || o->doc; o++) {
        if (!o->name && !o->key) continue; /* a group heading */
        printf("%s    {\"names\": [", first ? "" : ",\n");
        first = 0;
        int named = 0;
        if (o->key > 0 && o->key < 128) { printf("\"-%c\"", o->key); named = 1; }
        if (o->name) printf("%s\"--%s\"", named ? ", " : "", o->name);
        printf("], \"takes_value\": %s, \"required\": false, \"choices\": [", o->arg ? "true" : "false");
        const char *const *list = choices_of(o->key);
        for (int k = 0; list && list[k]; k++) printf("%s\"%s\"", k ? ", " : "", list[k]);
        printf("], \"repeatable\": %s, \"default\": null}", repeats(o->key) ? "true" : "false");
    }
    /* argp adds these three itself */
    printf(",\n    {\"names\": [\"-?\", \"--help\"], \"takes_value\": false, \"required\": false, \"choices\": [], "
           "\"repeatable\": false, \"default\": null},\n");
    printf("    {\"names\": [\"--usage\"], \"takes_value\": false, \"required\": false, \"choices\": [], "
           "\"repeatable\": false, \"default\": null},\n");
    printf("    {\"names\": [\"-V\", \"--version\"], \"takes_value\": false, \"required\": false, \"choices\": [], "
           "\"repeatable\": false, \"default\": null}\n  ],\n  \"positionals\": [\n");
    for (size_t k = 0; k < sizeof positionals / sizeof positionals[0]; k++)
        printf("%s    {\"name\": \"%s\", \"required\": %s, \"variadic\": %s, \"choices\": []}", k ? ",\n" : "",
               positionals[k].name, positionals[k].required ? "true" : "false",
               positionals[k].variadic ? "true" : "false");
    printf("\n  ],\n  \"subcommands\": []\n}\n");
}

static error_t parse_opt(int key, char *arg, struct argp_state *state) {
    const char *const *list = choices_of(key);
    if (list) {
        for (int k = 0; list[k]; k++)
            if (strcmp(arg, list[k]) == 0) return 0;
        argp_error(state, "invalid value '%s'", arg);
    }
    if (key == ARGP_KEY_NO_ARGS) argp_usage(state);
    return key == ARGP_KEY_ARG || key == ARGP_KEY_END || key < 128 || key == 1000 ? 0 : ARGP_ERR_UNKNOWN;
}

static struct argp argp = {options, parse_opt, args_doc, doc, 0, 0, 0};

int main(int argc, char **argv) {
    if (getenv("TOOLBAY_TRUTH") && strcmp(getenv("TOOLBAY_TRUTH"), "1") == 0) {
        print_truth();
        return 0;
    }
    argp_parse(&argp, argc, argv, 0, 0, 0);
    return 0;
}
