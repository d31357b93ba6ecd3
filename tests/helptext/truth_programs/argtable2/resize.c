/* argtable2: the glossary and syntax it prints, and what it parsed. */
#include <argtable2.h>
#include <stdio.h>

int main(int argc, char **argv) {
    struct arg_file *output = arg_file0("o", "output", "<file>", "Where to write the image");
    struct arg_int *width = arg_int0("w", "width", "<n>", "Width of the box in pixels");
    struct arg_dbl *scale = arg_dbl0(NULL, "scale", "<x>", "Scale factor");
    struct arg_lit *verbose = arg_lit0("v", "verbose", "Say what is done");
    struct arg_int *retries = arg_int1(NULL, "retries", "<n>", "Attempts before giving up");
    struct arg_str *tag = arg_strn("t", "tag", "<tag>", 0, 10, "A tag to add");
    struct arg_lit *help = arg_lit0("h", "help", "Print this help and exit");
    struct arg_file *inputs = arg_filen(NULL, NULL, "<image>", 1, 100, "Images to resize");
    struct arg_end *end = arg_end(20);
    void *table[] = {output, width, scale, verbose, retries, tag, help, inputs, end};
    width->ival[0] = 640;
    output->filename[0] = "out.png";
    int errors = arg_parse(argc, argv, table);
    if (help->count > 0) {
        printf("Usage: resize");
        arg_print_syntax(stdout, table, "\n");
        printf("Resizes images to fit a box.\n\n");
        arg_print_glossary(stdout, table, "  %-25s %s\n");
        return 0;
    }
    if (errors > 0) {
        arg_print_errors(stderr, end, "resize");
        return 1;
    }
    printf("output=%s width=%d scale=%g verbose=%d retries=%d tags=%d", output->filename[0], width->ival[0],
           scale->count ? scale->dval[0] : 1.0, verbose->count, retries->ival[0], tag->count);
    for (int i = 0; i < tag->count; i++) printf(" tag=%s", tag->sval[i]);
    for (int i = 0; i < inputs->count; i++) printf(" input=%s", inputs->filename[i]);
    printf("\n");
    return 0;
}
