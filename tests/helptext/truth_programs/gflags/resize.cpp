// Resizes images to fit a box: a gflags program whose help and parsing are gflags' own.
#include <gflags/gflags.h>
#include <iostream>

DEFINE_string(output, "out.png", "Where to write the image");
DEFINE_int32(width, 640, "Width of the box in pixels");
DEFINE_double(scale, 1.0, "Scale factor");
DEFINE_bool(verbose, false, "Say what is done");
DEFINE_bool(color, true, "Colour the output");
DEFINE_int64(retries, 3, "Attempts before giving up");
DEFINE_uint32(level, 0, "How much to say");

int main(int argc, char** argv) {
  gflags::SetUsageMessage("Resizes images to fit a box.\nUsage: resize [flags] IMAGE...");
  gflags::ParseCommandLineFlags(&argc, &argv, true);
  std::cout << "output=" << FLAGS_output << " width=" << FLAGS_width << " scale=" << FLAGS_scale << " verbose=" << FLAGS_verbose
            << " color=" << FLAGS_color << " retries=" << FLAGS_retries << " level=" << FLAGS_level << " args=" << argc - 1 << "\n";
  return 0;
}
