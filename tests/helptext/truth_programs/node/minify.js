// minify: a single-command commander program (no subcommands), as terser or svgo are.
const { Command, Option } = require("commander");

function build() {
  const program = new Command();
  program
    .name("minify")
    .description("Minify JavaScript and CSS files.")
    .version("0.9.3", "-v, --version", "print the version")
    .argument("[files...]", "files to minify (standard input when none)")
    .option("-o, --output <file>", "write the result to a file instead of standard output")
    .addOption(new Option("-l, --language <lang>", "language of the input").choices(["js", "css"]))
    .addOption(new Option("--ecma <version>", "ECMAScript version to emit")
      .choices(["5", "2015", "2020", "2022"]).default("2020"))
    .option("-m, --mangle", "shorten local names")
    .option("--no-compress", "skip compression")
    .option("--source-map [file]", "write a source map (beside the output when no file is given)")
    .option("-d, --define <name=value...>", "replace a global with a constant")
    .requiredOption("--license <mode>", "what to do with licence comments: keep, strip or inline")
    .option("--max-line-len <n>", "wrap output lines at this length", "32000")
    .action(() => {});
  return program;
}

module.exports = { build };

if (require.main === module) {
  build().parse(process.argv);
}
