#include <glib.h>
#include <stdio.h>
#include <locale.h>
static gboolean verbose = FALSE; static gchar **rest = NULL;
static GOptionEntry entries[] = {
  { "verbose", 'v', 0, G_OPTION_ARG_NONE, &verbose, "Be verbose", NULL },
  { NULL }
};
int main(int argc, char **argv) {
  setlocale(LC_ALL, ""); GError *error = NULL;
  GOptionContext *context = g_option_context_new("- test tree model performance");
  g_option_context_add_main_entries(context, entries, NULL);
  if (!g_option_context_parse(context, &argc, &argv, &error)) { fprintf(stderr, "failed: %s\n", error->message); return 1; }
  printf("{\"verbose\":%d,\"args\":[", verbose);
  for (int i=1; i<argc; i++) printf("%s\"%s\"", i>1?",":"", argv[i]);
  printf("]}\n"); return 0;
}
