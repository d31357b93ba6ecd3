// imgtool: a commander program (resize, convert, inspect images) whose help commander prints.
// It does no image work: it exists so that its help text and commander's own objects for it
// can be compared (truth.js walks those objects). `node imgtool.js [command] --help`.
const { Command, Option } = require("commander");

function build() {
  const program = new Command();
  program
    .name("imgtool")
    .description("Resize, convert and inspect images.")
    .version("2.4.1")
    .option("-c, --config <file>", "read settings from a JSON file")
    .option("--color <when>", "colour output", "auto")
    .option("-q, --quiet", "print nothing but errors");

  program
    .command("resize")
    .description("Resize an image to a width and height")
    .argument("<input>", "image to resize")
    .argument("[output]", "where to write the result")
    .requiredOption("-w, --width <px>", "target width in pixels")
    .option("-H, --height <px>", "target height in pixels (keeps the ratio when left out)")
    .addOption(new Option("-f, --fit <mode>", "how the image fits the box")
      .choices(["cover", "contain", "fill", "inside", "outside"]).default("cover"))
    .option("-Q, --quality [n]", "JPEG or WebP quality, 1-100", "85")
    .option("--no-strip", "keep the metadata")
    .addOption(new Option("-k, --kernel <name>", "resampling kernel")
      .choices(["nearest", "cubic", "lanczos3"]))
    .action(() => {});

  program
    .command("convert")
    .description("Convert images to another format")
    .argument("<files...>", "images to convert")
    .addOption(new Option("-t, --to <format>", "output format")
      .choices(["png", "jpeg", "webp", "avif"]).makeOptionMandatory())
    .option("-o, --out-dir <dir>", "output folder", ".")
    .option("--tag <tags...>", "tags to write into the metadata")
    .option("--dry-run", "only print what would be done")
    .option("-j, --jobs <n>", "parallel conversions", "4")
    .action(() => {});

  program
    .command("info")
    .description("Print the size, format and metadata of images")
    .argument("[files...]", "images to inspect (standard input when none)")
    .addOption(new Option("--format <fmt>", "how to print").choices(["text", "json", "yaml"]).default("text"))
    .option("--exif", "include EXIF tags")
    .action(() => {});
  return program;
}

module.exports = { build };

if (require.main === module) {
  build().parse(process.argv);
}
