#include <CLI/CLI.hpp>
#include <iostream>
int main(int argc, char** argv) {
  CLI::App app{"Resizes images to fit a box."};
  app.name("resize");
  std::string output = "out.png"; int width = 640; double scale = 1.0; bool verbose = false;
  std::vector<std::string> inputs; std::string mode = "fit"; int retries = 0; std::vector<std::string> tags; int level = 0;
  app.add_option("-o,--output", output, "Where to write the image")->capture_default_str();
  app.add_option("-w,--width", width, "Width of the box in pixels")->capture_default_str();
  app.add_option("--scale", scale, "Scale factor")->capture_default_str();
  app.add_flag("-v,--verbose", verbose, "Say what is done");
  app.add_option("-m,--mode", mode, "How to fit the box")->check(CLI::IsMember({"fit", "fill", "crop"}))->capture_default_str();
  app.add_option("--retries", retries, "Attempts before giving up")->required();
  app.add_option("-t,--tag", tags, "A tag to add (repeatable)");
  app.add_flag("-l,--level", level, "More detail, each time given");
  app.add_option("inputs", inputs, "Images to resize")->required();
  CLI11_PARSE(app, argc, argv);
  std::cout << "output=" << output << " width=" << width << " scale=" << scale << " verbose=" << verbose << " mode=" << mode
            << " retries=" << retries << " tags=" << tags.size() << " level=" << level << " inputs=" << inputs.size() << "\n";
  return 0;
}
