#include <cxxopts.hpp>
#include <iostream>
int main(int argc, char** argv) {
  cxxopts::Options options("resize", "Resizes images to fit a box.");
  options.add_options()
    ("o,output", "Where to write the image", cxxopts::value<std::string>()->default_value("out.png"))
    ("w,width", "Width of the box in pixels", cxxopts::value<int>()->default_value("640"))
    ("scale", "Scale factor", cxxopts::value<double>())
    ("v,verbose", "Say what is done")
    ("m,mode", "How to fit the box: fit, fill or crop", cxxopts::value<std::string>()->default_value("fit"))
    ("t,tag", "A tag to add", cxxopts::value<std::vector<std::string>>())
    ("c,color", "Colour the output", cxxopts::value<bool>()->default_value("true"))
    ("h,help", "Print usage")
    ("inputs", "Images to resize", cxxopts::value<std::vector<std::string>>());
  options.parse_positional({"inputs"});
  options.positional_help("IMAGE...");
  auto result = options.parse(argc, argv);
  if (result.count("help")) { std::cout << options.help() << std::endl; return 0; }
  std::cout << "output=" << result["output"].as<std::string>() << " width=" << result["width"].as<int>()
            << " verbose=" << result.count("verbose") << " mode=" << result["mode"].as<std::string>()
            << " color=" << result["color"].as<bool>() << " tags=" << result.count("tag") << "\n";
  return 0;
}
