#!/usr/bin/env node
// The a2-aws command (`npx a2-aws verify ...`, `npm run verify -- ...`).
import { VERIFY_USAGE } from './verify/args.ts'
import { verifyCommand } from './verify/verify-command.ts'

const [command, ...rest] = process.argv.slice(2)
const io = {
  stdout: (line: string) => void process.stdout.write(`${line}\n`),
  stderr: (line: string) => void process.stderr.write(`${line}\n`),
}
if (command === 'verify') {
  process.exitCode = await verifyCommand(rest, io)
} else {
  io.stderr(command ? `a2-aws: no command ${command}\n\n${VERIFY_USAGE}` : VERIFY_USAGE)
  process.exitCode = 2
}
