#!/usr/bin/env node
// The a2-aws command (`npx a2-aws verify ...`, `npm run verify -- ...`,
// `npx a2-aws inspect <sessionId> ...`, `erase`, `export`, `import`, `check`).
import { CHECK_USAGE } from './check/check-args.ts'
import { checkCommand } from './check/check-command.ts'
import { INSPECT_USAGE } from './inspect/inspect-args.ts'
import { inspectCommand } from './inspect/inspect-command.ts'
import { LIFECYCLE_USAGE, lifecycleCommand } from './lifecycle/lifecycle-command.ts'
import { VERIFY_USAGE } from './verify/args.ts'
import { verifyCommand } from './verify/verify-command.ts'

const [command, ...rest] = process.argv.slice(2)
const io = {
  stdout: (line: string) => void process.stdout.write(`${line}\n`),
  stderr: (line: string) => void process.stderr.write(`${line}\n`),
}
const USAGE = `${VERIFY_USAGE}\n\n${INSPECT_USAGE}\n\n${LIFECYCLE_USAGE}\n\n${CHECK_USAGE}`
if (command === '--help' || command === '-h' || command === 'help') {
  io.stdout(USAGE)
} else if (command === 'verify') {
  process.exitCode = await verifyCommand(rest, io)
} else if (command === 'inspect') {
  process.exitCode = await inspectCommand(rest, io)
} else if (command === 'check') {
  const write = { ...io, stdout: (text: string) => void process.stdout.write(text) }
  process.exitCode = await checkCommand(rest, write)
} else if (command === 'erase' || command === 'export' || command === 'import') {
  const write = { ...io, stdout: (text: string) => void process.stdout.write(text) }
  process.exitCode = await lifecycleCommand(command, rest, write)
} else {
  io.stderr(command ? `a2-aws: no command ${command}\n\n${USAGE}` : USAGE)
  process.exitCode = 2
}
