// yargs: a command's positional given after "--" is not bound (it stays in argv._ and the
// positional keeps its default); every word starting with "-" is read as an option.
import yargs from "yargs";
import { hideBin } from "yargs/helpers";
yargs(hideBin(process.argv)).scriptName("ydash")
  .command("$0 [target]", "build a target", (y) => y.positional("target", { type: "string", default: "all" })
    .option("jobs", { type: "number", describe: "parallel jobs" })
    .option("tags", { type: "array", describe: "tags to apply" }),
    (a) => console.log(JSON.stringify({ target: a.target, jobs: a.jobs ?? null, tags: a.tags ?? null })))
  .strict().help().parse();
