#!/usr/bin/env node
require('@oclif/core').execute({dir: __dirname + '/..'})
