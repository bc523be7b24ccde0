#!/usr/bin/env node
import { INSPECT_USAGE } from './inspect/inspect-args.ts'
// The a2-aws command (`npx a2-aws verify ...`, `npm run verify -- ...`,
// `npx a2-aws inspect <sessionId> ...`).
import { inspectCommand } from './inspect/inspect-command.ts'
import { VERIFY_USAGE } from './verify/args.ts'
import { verifyCommand } from './verify/verify-command.ts'

const [command, ...rest] = process.argv.slice(2)
const io = {
  stdout: (line: string) => void process.stdout.write(`${line}\n`),
  stderr: (line: string) => void process.stderr.write(`${line}\n`),
}
const USAGE = `${VERIFY_USAGE}\n\n${INSPECT_USAGE}`
if (command === 'verify') {
  process.exitCode = await verifyCommand(rest, io)
} else if (command === 'inspect') {
  process.exitCode = await inspectCommand(rest, io)
} else {
  io.stderr(command ? `a2-aws: no command ${command}\n\n${USAGE}` : USAGE)
  process.exitCode = 2
}
