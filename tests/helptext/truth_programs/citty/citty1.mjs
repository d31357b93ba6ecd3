import { defineCommand, runMain } from 'citty';
const add = defineCommand({
  meta: { name: 'add', description: 'Add a remote' },
  args: {
    name: { type: 'positional', description: 'Remote name', required: true },
    url: { type: 'positional', description: 'Remote URL', required: false },
    fetch: { type: 'boolean', description: 'Fetch after add', alias: 'f' },
    depth: { type: 'string', description: 'Clone depth', default: '1' },
    color: { type: 'boolean', description: 'Use color', default: true },
    mode: { type: 'enum', options: ['fast', 'slow'], description: 'Mode' },
    token: { type: 'string', description: 'Token', required: true },
  },
  run({ args }) { console.log(JSON.stringify({cmd: 'add', ...args})); },
});
const main = defineCommand({
  meta: { name: 'citty1', version: '1.0.0', description: 'Citty test' },
  subCommands: { add },
});
runMain(main);
