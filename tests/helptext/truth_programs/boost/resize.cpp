// Resizes images to fit a box: a boost::program_options program whose help and parsing are the library's own.
#include <boost/program_options.hpp>
#include <iostream>
#include <string>
#include <vector>

namespace po = boost::program_options;

int main(int argc, char** argv) {
  std::string output, mode;
  int width = 0, retries = 0, level = 0;
  double scale = 0;
  bool verbose = false;
  std::vector<std::string> tags, inputs;
  po::options_description options("Resizes images to fit a box.\n\nUsage: resize [options] IMAGE...\n\nOptions");
  options.add_options()
    ("help,h", "print this help")
    ("output,o", po::value(&output)->default_value("out.png"), "where to write the image")
    ("width,w", po::value(&width)->default_value(640), "width of the box in pixels")
    ("scale", po::value(&scale), "scale factor")
    ("verbose,v", po::bool_switch(&verbose), "say what is done")
    ("retries", po::value(&retries)->required(), "attempts before giving up")
    ("level,l", po::value(&level)->implicit_value(1)->default_value(0), "how much to say")
    ("tag,t", po::value(&tags)->composing(), "a tag to add")
    ("inputs", po::value(&inputs), "images to resize");
  po::positional_options_description positional;
  positional.add("inputs", -1);
  po::variables_map vm;
  po::store(po::command_line_parser(argc, argv).options(options).positional(positional).run(), vm);
  if (vm.count("help")) { std::cout << options << "\n"; return 0; }
  po::notify(vm);
  std::cout << "output=" << output << " width=" << width << " scale=" << scale << " verbose=" << verbose << " retries=" << retries
            << " level=" << level << " tags=" << tags.size() << " inputs=" << inputs.size() << "\n";
  return 0;
}
