const sade = require('sade');
const prog = sade('sade2');
prog.version('1.0.0').option('--global, -g', 'A global flag', false);
prog.command('remote <name>').describe('Show a remote.').option('-v, --verbose', 'Verbose')
  .action((name, opts) => console.log(JSON.stringify({cmd:'remote', name, opts})));
prog.command('remote add <name> <url>').describe('Add a remote.').option('-f, --fetch', 'Fetch after add')
  .action((name, url, opts) => console.log(JSON.stringify({cmd:'remote add', name, url, opts})));
prog.command('config set key').describe('Set the key.').option('--force', 'Force')
  .action((key, opts) => console.log(JSON.stringify({cmd:'config set key', key, opts})));
prog.command('db migrate up [steps]').describe('Migrate up.').option('--dry', 'Dry')
  .action((steps, opts) => console.log(JSON.stringify({cmd:'db migrate up', steps, opts})));
prog.parse(process.argv);
