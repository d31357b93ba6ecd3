// yargs 18.2.0: command groups two levels deep, each listing its commands by the whole path.
import yargs from "yargs";
import { hideBin } from "yargs/helpers";
const out = (a) => console.log(JSON.stringify({ cmd: a._, name: a.name ?? null, force: a.force ?? null }));
yargs(hideBin(process.argv)).scriptName("y3")
  .command("repo", "manage repos", (y) => y
    .command("add <name>", "add one", (z) => z.positional("name", { type: "string", describe: "the name" }).option("force", { type: "boolean", describe: "force" }), out)
    .command("remote", "remotes", (z) => z
       .command("set <name>", "set one", (w) => w.positional("name", { type: "string", describe: "n" }), out)
       .command("rm <name>", "remove one", (w) => w.positional("name", { type: "string", describe: "n" }), out)
       .demandCommand(1))
    .demandCommand(1))
  .command("build", "build it", (y) => y, out)
  .demandCommand(1).strict().help().parse();
