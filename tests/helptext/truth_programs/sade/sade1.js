const sade = require('sade');
const prog = sade('sade1');
prog.version('1.0.5').option('--global, -g', 'A global flag', false);
prog.command('build <src> [dest]')
  .describe('Build the source directory.')
  .option('-o, --output', 'Output directory', 'dist')
  .option('-c, --count', 'Repeat count', 3)
  .option('--minify', 'Minify output', true)
  .action((src, dest, opts) => { console.log(JSON.stringify({cmd:'build', src, dest, opts})); });
prog.command('remote add <name> <url>', '', {alias: ['ra']})
  .describe('Add a remote.')
  .option('-f, --fetch', 'Fetch after add')
  .action((name, url, opts) => { console.log(JSON.stringify({cmd:'remote add', name, url, opts})); });
prog.parse(process.argv);
