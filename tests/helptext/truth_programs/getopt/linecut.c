/* linecut: a GNU-style C program (getopt_long, help written by hand as coreutils writes it).
   It cuts nothing: its help text and its getopt tables are compared. Run with TOOLBAY_TRUTH=1
   it prints those tables (struct option, the short option string, its positionals and the
   values it accepts) as JSON truth for the help-text corpus instead of running; see
   tests/helptext/tools/framework_truth.py. Build: cc -o linecut linecut.c */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char short_options[] = "b:c:d:f:nsz";
static const struct option long_options[] = {
    {"bytes", required_argument, NULL, 'b'},
    {"characters", required_argument, NULL, 'c'},
    {"delimiter", required_argument, NULL, 'd'},
    {"fields", required_argument, NULL, 'f'},
    {"only-delimited", no_argument, NULL, 's'},
    {"output-delimiter", required_argument, NULL, 'O'},
    {"complement", no_argument, NULL, 'C'},
    {"zero-terminated", no_argument, NULL, 'z'},
    {"color", optional_argument, NULL, 'K'},
    {"line-numbers", no_argument, NULL, 'n'},
    {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, 'V'},
    {NULL, 0, NULL, 0},
};
/* Values an option takes from a fixed list (getopt has no such notion: the program checks). */
static const char *const color_whens[] = {"always", "never", "auto", NULL};
static const struct { const char *name; int required; int variadic; } positionals[] = {{"FILE", 0, 1}};

static void usage(void) {
    fputs("Usage: linecut OPTION... [FILE]...\n"
          "Print selected parts of lines from each FILE to standard output.\n"
          "\n"
          "With no FILE, or when FILE is -, read standard input.\n"
          "\n"
          "Mandatory arguments to long options are mandatory for short options too.\n"
          "  -b, --bytes=LIST        select only these bytes\n"
          "  -c, --characters=LIST   select only these characters\n"
          "  -d, --delimiter=DELIM   use DELIM instead of TAB for field delimiter\n"
          "  -f, --fields=LIST       select only these fields;  also print any line\n"
          "                            that contains no delimiter character, unless\n"
          "                            the -s option is specified\n"
          "  -n, --line-numbers      number the output lines\n"
          "      --complement        complement the set of selected bytes, characters\n"
          "                            or fields\n"
          "  -s, --only-delimited    do not print lines not containing delimiters\n"
          "      --output-delimiter=STRING  use STRING as the output delimiter\n"
          "                            the default is to use the input delimiter\n"
          "      --color[=WHEN]      colour the selected parts; WHEN is 'always', 'never',\n"
          "                            or 'auto' (the default)\n"
          "  -z, --zero-terminated   line delimiter is NUL, not newline\n"
          "      --help        display this help and exit\n"
          "      --version     output version information and exit\n"
          "\n"
          "Use one, and only one of -b, -c or -f.  Each LIST is made up of one\n"
          "range, or many ranges separated by commas.  Selected input is written\n"
          "in the same order that it is read, and is written exactly once.\n",
          stdout);
}

static void print_truth(void) {
    printf("{\n  \"source\": \"getopt_long tables of `linecut`\",\n  \"options\": [\n");
    for (const struct option *o = long_options; o->name; o++) {
        const char *at = strchr(short_options, o->val);
        int has_short = o->val < 128 && at != NULL;
        printf("%s    {\"names\": [", o == long_options ? "" : ",\n");
        if (has_short) printf("\"-%c\", ", o->val);
        printf("\"--%s\"], \"takes_value\": %s, \"required\": false, \"choices\": [", o->name,
               o->has_arg == no_argument ? "false" : "true");
        const char *const *list = o->val == 'K' ? color_whens : NULL;
        for (int k = 0; list && list[k]; k++) printf("%s\"%s\"", k ? ", " : "", list[k]);
        printf("], \"repeatable\": false, \"default\": null}");
    }
    printf("\n  ],\n  \"positionals\": [\n");
    for (size_t k = 0; k < sizeof positionals / sizeof positionals[0]; k++)
        printf("    {\"name\": \"%s\", \"required\": %s, \"variadic\": %s, \"choices\": []}\n", positionals[k].name,
               positionals[k].required ? "true" : "false", positionals[k].variadic ? "true" : "false");
    printf("  ],\n  \"subcommands\": []\n}\n");
}

int main(int argc, char **argv) {
    if (getenv("TOOLBAY_TRUTH") && strcmp(getenv("TOOLBAY_TRUTH"), "1") == 0) {
        print_truth();
        return 0;
    }
    int c;
    while ((c = getopt_long(argc, argv, short_options, long_options, NULL)) != -1) {
        if (c == 'h') { usage(); return 0; }
        if (c == 'V') { puts("linecut 9.1"); return 0; }
        if (c == '?') { fputs("Try 'linecut --help' for more information.\n", stderr); return 1; }
    }
    return 0;
}
