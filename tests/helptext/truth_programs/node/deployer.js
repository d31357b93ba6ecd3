// deployer: a yargs program (deploy, roll back and inspect services) whose help yargs prints.
// It deploys nothing: its help text and yargs' own objects for it are compared (truth.js).
// `node deployer.js [command] --help`.
const yargs = require("yargs/yargs");

const commands = {
  deploy: {
    command: "deploy <env> [services..]",
    describe: "Deploy services to an environment",
    builder: (y) => y
      .positional("env", { describe: "target environment", choices: ["staging", "production"] })
      .positional("services", { describe: "services to deploy (all when none)", type: "string" })
      .option("tag", { alias: "t", type: "string", describe: "image tag to deploy", demandOption: true })
      .option("replicas", { alias: "r", type: "number", default: 2, describe: "replicas per service" })
      .option("strategy", { choices: ["rolling", "recreate", "blue-green"], default: "rolling",
        describe: "how old replicas are replaced" })
      .option("dry-run", { type: "boolean", describe: "print the plan only" })
      .option("set", { type: "array", describe: "key=value overrides" })
      .option("timeout", { type: "number", describe: "seconds to wait for health checks" }),
  },
  rollback: {
    command: "rollback <env> <release>",
    describe: "Roll an environment back to an earlier release",
    builder: (y) => y
      .positional("env", { describe: "environment", type: "string" })
      .positional("release", { describe: "release number", type: "number" })
      .option("force", { alias: "f", type: "boolean", describe: "skip the confirmation" }),
  },
  status: {
    command: "status [env]",
    describe: "Show what runs where",
    builder: (y) => y
      .positional("env", { describe: "environment (all when none)", type: "string" })
      .option("output", { alias: "o", choices: ["table", "json", "yaml"], default: "table",
        describe: "output format" })
      .option("watch", { alias: "w", type: "boolean", describe: "refresh every few seconds" }),
  },
};

function root(argv) {
  let y = yargs(argv)
    .scriptName("deployer")
    .usage("$0 <command> [options]")
    .option("config", { alias: "c", type: "string", describe: "configuration file", default: "deploy.yaml" })
    .option("verbose", { alias: "v", type: "count", describe: "talk more (repeat for more)" })
    .option("region", { type: "string", describe: "cloud region", demandOption: true })
    .demandCommand(1)
    .version("1.3.0")
    .help()
    .wrap(100)
    .strict();
  for (const spec of Object.values(commands)) {
    y = y.command(spec.command, spec.describe, spec.builder, () => {});
  }
  return y;
}

module.exports = { root, commands };

if (require.main === module) {
  root(process.argv.slice(2)).parse();
}
