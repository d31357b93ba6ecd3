const {Cli, Command, Option, Builtins} = require('clipanion');
class AddCommand extends Command {
  static paths = [['remote', 'add'], ['ra']];
  static usage = Command.Usage({description: 'Add a remote', details: 'Adds a named remote.'});
  fetch = Option.Boolean('-f,--fetch', false, {description: 'Fetch after adding'});
  depth = Option.String('--depth', {description: 'Clone depth'});
  tags = Option.Array('-t,--tag', {description: 'Tag to add'});
  verbose = Option.Counter('-v,--verbose', {description: 'Verbosity'});
  name = Option.String();
  url = Option.String();
  async execute() { this.context.stdout.write(JSON.stringify({cmd:'remote add', fetch:this.fetch, depth:this.depth, tags:this.tags, verbose:this.verbose, name:this.name, url:this.url}) + '\n'); }
}
class BuildCommand extends Command {
  static paths = [['build']];
  static usage = Command.Usage({description: 'Build things'});
  out = Option.String('-o,--out', 'dist', {description: 'Output dir'});
  color = Option.String('--color', {tolerateBoolean: true, description: 'Color mode'});
  files = Option.Rest();
  async execute() { this.context.stdout.write(JSON.stringify({cmd:'build', out:this.out, color:this.color, files:this.files}) + '\n'); }
}
const cli = new Cli({binaryName: 'clip1', binaryLabel: 'Clip test', binaryVersion: '1.0.0', enableColors: false});
cli.register(AddCommand); cli.register(BuildCommand); cli.register(Builtins.HelpCommand); cli.register(Builtins.VersionCommand);
cli.runExit(process.argv.slice(2));
