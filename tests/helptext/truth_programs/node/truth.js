// Prints what commander or yargs itself holds for one command of a program here, as truth for
// the help-text corpus (the same JSON shape as tests/helptext/tools/truth.py writes):
//
//     node truth.js commander imgtool.js [subcommand]
//     node truth.js yargs deployer.js [subcommand]
//
// commander: the Command objects the program builds (options, registeredArguments, commands).
// yargs: the options yargs holds once the command's builder has run (getOptions,
// getDemandedOptions) and the command handlers yargs parsed from the command strings.
// Nothing here reads a help text.
const path = require("path");

const [framework, file, sub] = process.argv.slice(2);
const program = require(path.resolve(__dirname, file));
const source = `${framework} definition of \`${path.basename(file, ".js")}${sub ? " " + sub : ""}\``;

function text(value) {
  if (value === undefined || value === null || value === false) return null;
  return Array.isArray(value) ? (value.length ? JSON.stringify(value) : null) : String(value);
}

function commanderTruth() {
  let cmd = program.build();
  if (sub) cmd = cmd.commands.find((c) => c.name() === sub);
  const options = [...cmd.options, cmd._getHelpOption()].filter(Boolean).map((opt) => ({
    names: [opt.short, opt.long].filter(Boolean),
    takes_value: Boolean(opt.required || opt.optional),
    required: Boolean(opt.mandatory),
    choices: opt.argChoices || [],
    repeatable: Boolean(opt.variadic),
    default: opt.required || opt.optional ? text(opt.defaultValue) : null,
  }));
  const positionals = cmd.registeredArguments.map((arg) => ({
    name: arg.name(), required: arg.required, variadic: arg.variadic, choices: arg.argChoices || [],
  }));
  const commands = cmd.commands.map((c) => c.name());
  const helpCommand = cmd._getHelpCommand();
  if (helpCommand) commands.push(helpCommand.name());
  return { source, options, positionals, subcommands: commands };
}

function yargsTruth() {
  const log = console.log;
  let held = null;
  let handlers = null;
  if (sub) {
    const spec = program.commands[sub];
    const builder = spec.builder;
    spec.builder = (y) => {
      const built = builder(y);
      held = { options: JSON.parse(JSON.stringify(built.getOptions())), demanded: built.getDemandedOptions() };
      return built;
    };
    console.log = () => {};
    const root = program.root([sub, "--help"]).exitProcess(false);
    root.parse();
    console.log = log;
    handlers = root.getInternalMethods().getCommandInstance().getCommandHandlers();
  } else {
    const root = program.root([]);
    held = { options: root.getOptions(), demanded: root.getDemandedOptions() };
    handlers = root.getInternalMethods().getCommandInstance().getCommandHandlers();
  }
  const o = held.options;
  const spec = sub ? handlers[sub] : { demanded: [], optional: [] };
  const positionalNames = new Set([...spec.demanded, ...spec.optional].map((p) => p.cmd[0]));
  const aliasOf = new Set(Object.values(o.alias).flat());
  const kind = (key) => (o.boolean.includes(key) ? "boolean" : o.number.includes(key) ? "number"
    : o.array.includes(key) ? null : o.count.includes(key) ? "integer" : "string");
  const options = Object.keys(o.key).filter((k) => !aliasOf.has(k) && !positionalNames.has(k)).map((key) => {
    const names = [key, ...(o.alias[key] || [])].map((n) => (n.length === 1 ? "-" : "--") + n);
    const takesValue = !o.boolean.includes(key) && !o.count.includes(key);
    const item = {
      names: names.sort((a, b) => a.length - b.length),
      takes_value: takesValue,
      required: key in held.demanded,
      choices: o.choices[key] || [],
      repeatable: o.array.includes(key) || o.count.includes(key),
      default: takesValue ? text(o.default[key]) : null,
    };
    if (takesValue && kind(key)) item.type = kind(key);
    return item;
  });
  const positionals = [...spec.demanded.map((p) => [p, true]), ...spec.optional.map((p) => [p, false])]
    .map(([p, required]) => ({
      name: p.cmd[0], required, variadic: p.variadic, choices: o.choices[p.cmd[0]] || [],
    }));
  const subcommands = sub ? [] : Object.keys(handlers);
  return { source, options, positionals, subcommands };
}

const truth = framework === "commander" ? commanderTruth() : yargsTruth();
process.stdout.write(JSON.stringify(truth, null, 2) + "\n");
