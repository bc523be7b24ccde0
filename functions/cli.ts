#!/usr/bin/env node
// The a2-aws command (`npx a2-aws verify ...`, `npm run verify -- ...`).
import { LIFECYCLE_USAGE, lifecycleCommand } from './lifecycle/lifecycle-command.ts'
import { VERIFY_USAGE } from './verify/args.ts'
import { verifyCommand } from './verify/verify-command.ts'

const [command, ...rest] = process.argv.slice(2)
const io = {
  stdout: (line: string) => void process.stdout.write(`${line}\n`),
  stderr: (line: string) => void process.stderr.write(`${line}\n`),
}
if (command === 'verify') {
  process.exitCode = await verifyCommand(rest, io)
} else if (command === 'erase' || command === 'export' || command === 'import') {
  const write = { ...io, stdout: (text: string) => void process.stdout.write(text) }
  process.exitCode = await lifecycleCommand(command, rest, write)
} else {
  const usage = `${VERIFY_USAGE}\n\n${LIFECYCLE_USAGE}`
  io.stderr(command ? `a2-aws: no command ${command}\n\n${usage}` : usage)
  process.exitCode = 2
}
