#include <glib.h>
#include <stdio.h>
#include <locale.h>
static gint count = 1; static gboolean verbose = FALSE; static gchar *output = NULL; static gdouble ratio = 0.5;
static gchar **tags = NULL; static gchar **rest = NULL; static gboolean nocolor = FALSE; static gint64 big = 0; static gchar *filename = NULL;
static GOptionEntry entries[] = {
  { "count", 'n', 0, G_OPTION_ARG_INT, &count, "Repeat N times", "N" },
  { "verbose", 'v', 0, G_OPTION_ARG_NONE, &verbose, "Be verbose", NULL },
  { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output, "Write to FILE", "FILE" },
  { "ratio", 0, 0, G_OPTION_ARG_DOUBLE, &ratio, "A ratio", "R" },
  { "tag", 't', 0, G_OPTION_ARG_STRING_ARRAY, &tags, "Add a tag (repeatable)", "TAG" },
  { "no-color", 0, 0, G_OPTION_ARG_NONE, &nocolor, "Disable color", NULL },
  { "big", 0, 0, G_OPTION_ARG_INT64, &big, "A big number", NULL },
  { "name", 0, 0, G_OPTION_ARG_STRING, &filename, "A name", NULL },
  { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &rest, NULL, "FILE…" },
  { NULL }
};
int main(int argc, char **argv) {
  setlocale(LC_ALL, ""); GError *error = NULL;
  GOptionContext *context = g_option_context_new("SRC [DST] - copy things");
  g_option_context_set_summary(context, "A GLib GOption test program.");
  g_option_context_add_main_entries(context, entries, NULL);
  if (!g_option_context_parse(context, &argc, &argv, &error)) { fprintf(stderr, "option parsing failed: %s\n", error->message); return 1; }
  printf("{\"count\":%d,\"verbose\":%d,\"output\":\"%s\",\"ratio\":%g,\"nocolor\":%d,\"big\":%ld,\"name\":\"%s\",\"tags\":[", count, verbose, output?output:"", ratio, nocolor, (long)big, filename?filename:"");
  for (int i=0; tags && tags[i]; i++) printf("%s\"%s\"", i?",":"", tags[i]);
  printf("],\"rest\":[");
  for (int i=0; rest && rest[i]; i++) printf("%s\"%s\"", i?",":"", rest[i]);
  printf("]}\n"); return 0;
}
