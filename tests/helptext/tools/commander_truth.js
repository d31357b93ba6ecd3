// Truth for a real commander program, from the Command object that is asked to print its help.
//
//     TRUTH_OUT=truth.json node -r ./commander_truth.js <program.js> [subcommand] --help
//
// Preloaded before the program, it patches every copy of commander in the program's
// node_modules (commander 7 to 15), so that `outputHelp` (what `--help` calls) writes what
// that Command holds and exits: its options (short/long names, whether they take a value,
// mandatory, argChoices, variadic, defaultValue), its registered arguments and its
// subcommands. The same JSON shape as truth.py writes; nothing here reads a help text.
// Options have no types in commander (a custom parser is a function), so none is written;
// nor are positionals when the program wrote its own usage line.
"use strict";
const fs = require("fs");
const path = require("path");

function copies(root) {
  const found = [];
  const walk = (dir, depth) => {
    if (depth > 6) return;
    let entries;
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      if (!e.isDirectory()) continue;
      const full = path.join(dir, e.name);
      if (e.name === "commander" && path.basename(dir) === "node_modules") found.push(full);
      else if (e.name === "node_modules" || dir.endsWith("node_modules") || e.name.startsWith("@")) walk(full, depth + 1);
    }
  };
  walk(path.join(root, "node_modules"), 0);
  return found;
}

function text(value) {
  if (value === undefined || value === null || value === false || value === true) return null;
  if (Array.isArray(value)) return value.length ? value.join(",") : null;
  return String(value);
}

function helpOption(cmd) {
  if (typeof cmd._getHelpOption === "function") {
    const h = cmd._getHelpOption();
    return h ? [h.short, h.long].filter(Boolean) : [];
  }
  return [cmd._helpShortFlag, cmd._helpLongFlag].filter(Boolean);
}

function truth(cmd, source) {
  const help = new Set(helpOption(cmd));
  const options = cmd.options
    .filter((o) => !o.hidden && !help.has(o.long) && !help.has(o.short))
    .filter((o) => !(cmd._versionOptionName && o.attributeName() === cmd._versionOptionName))
    .map((o) => ({
      names: [o.short, o.long].filter(Boolean),
      takes_value: Boolean(o.required || o.optional),
      required: Boolean(o.mandatory),
      choices: (o.argChoices || []).map(String),
      // a custom parser may collect repeats (cspell's --exclude): then whether it repeats is not known
      ...(o.variadic || !o.parseArg ? { repeatable: Boolean(o.variadic) } : {}),
      default: o.required || o.optional ? text(o.defaultValue) : null,
    }));
  const args = cmd.registeredArguments || cmd._args || [];
  const positionals = args.map((a) => ({
    name: typeof a.name === "function" ? a.name() : a.name,
    required: Boolean(a.required),
    variadic: Boolean(a.variadic),
    choices: (a.argChoices || []).map(String),
  }));
  const subcommands = cmd.commands.filter((c) => !c._hidden).map((c) => c.name());
  let helpCommand = false;
  if (typeof cmd._getHelpCommand === "function") helpCommand = Boolean(cmd._getHelpCommand());
  else if (typeof cmd._hasImplicitHelpCommand === "function") helpCommand = cmd._hasImplicitHelpCommand();
  if (helpCommand && !subcommands.includes("help")) subcommands.push("help");
  // A usage the program wrote itself (.usage("<src...>")) may name positionals it takes from
  // program.args, which commander does not record: then its positionals are not known.
  if (cmd._usage) return { source, options, subcommands };
  return { source, options, positionals, subcommands };
}

function dump(document) {
  const lines = Object.entries(document).map(([key, value]) => {
    if (Array.isArray(value) && value.length && typeof value[0] === "object") {
      return ` ${JSON.stringify(key)}: [\n${value.map((v) => "  " + JSON.stringify(v)).join(",\n")}\n ]`;
    }
    return ` ${JSON.stringify(key)}: ${JSON.stringify(value)}`;
  });
  return "{\n" + lines.join(",\n") + "\n}\n";
}

for (const dir of copies(process.cwd())) {
  const commander = require(dir);
  const Command = commander.Command || commander.default?.Command;
  if (!Command || Command.prototype.__truthPatched) continue;
  Command.prototype.__truthPatched = true;
  Command.prototype.outputHelp = function outputHelp() {
    const version = require(path.join(dir, "package.json")).version;
    const names = [];
    for (let c = this; c; c = c.parent) names.unshift(c.name());
    const source = `commander ${version} definition of \`${names.join(" ")}\``;
    fs.writeFileSync(process.env.TRUTH_OUT, dump(truth(this, source)));
    process.exit(0);
  };
}
