// yargs 18.2.0: a command group whose help lists its commands by the whole path, "prog repo add <name>".
import yargs from "yargs";
import { hideBin } from "yargs/helpers";
yargs(hideBin(process.argv)).scriptName("prog")
  .command("repo", "manage repositories", (y) => y
    .command("add <name>", "add a repository", (y2) => y2.positional("name", { type: "string" }),
      (a) => console.log(JSON.stringify({ name: a.name })))
    .command("rm <name>", "remove a repository", (y2) => y2.positional("name", { type: "string" }),
      (a) => console.log(JSON.stringify({ name: a.name })))
    .demandCommand(1), () => {})
  .command("build", "build", () => {}, () => console.log("{}"))
  .demandCommand(1).strict().help().parse();
