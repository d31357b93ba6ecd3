const {Command, Flags, Args} = require('@oclif/core')
class Add extends Command {
  static description = 'Add a remote'
  static aliases = ['ra']
  static args = { name: Args.string({description: 'remote name', required: true}), url: Args.string({description: 'remote url'}) }
  static flags = {
    fetch: Flags.boolean({char: 'f', description: 'fetch after add', allowNo: true}),
    depth: Flags.integer({description: 'clone depth', default: 1}),
    tag: Flags.string({char: 't', description: 'tag', multiple: true}),
    mode: Flags.string({description: 'mode', options: ['fast', 'slow'], required: true}),
  }
  async run() { const {args, flags} = await this.parse(Add); this.log(JSON.stringify({cmd: 'remote add', args, flags})) }
}
module.exports = Add
