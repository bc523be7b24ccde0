import { parseArgs } from 'node:util'
import { CHECK_NAMES, type CheckName } from './check-result.ts'
import { VerifyError } from './verify-error.ts'

export const VERIFY_USAGE = `Usage: a2-aws verify --stack <name> [--agent <path or output key>]
       a2-aws verify --url <agent url>

Checks a deployed agent: the account's Lambda concurrency quota as the last
deploy found it (concurrency), whether the stack's alarms notify anyone
(alarms), a one-token call to each Bedrock model the
agent is granted (models), a message answered (answer), SSE frames arriving as
written (streaming), a quiet stream kept open by heartbeats or ended cleanly (heartbeat), a
timer through EventBridge Scheduler (timer), a closed client ending its
Lambda invocation (closed), the stream router's invocations per turn over the
run (router). One PASS/WARN/FAIL/SKIP line per check; exits 1 on a FAIL.

  --stack <name>          read the agent from the stack's outputs (AWS credentials and
                          region from the environment, or --region)
  --agent <path|key>      the A2Agent, when the stack holds several (construct path or output key)
  --url <url>             the agent's URL; alone, the checks that need AWS APIs are skipped
  --region <region>       where the stack is (default: the environment's)
  --header 'name: value'  sent with every request (repeatable), for APIs behind authorization
  --only <checks>         run only these (comma-separated: ${CHECK_NAMES.join(', ')})
  --skip <checks>         run all but these
  --quiet-seconds <n>     how long the heartbeat check holds a quiet stream (default 75)
  --timer-minutes <n>     how far ahead the timer is due (default 2)
  --answer-seconds <n>    how long to wait for the answer (default 120)
  --message <text>        what the answer check says (a longer answer times streaming better)
  --json                  one JSON report instead of lines
  --help`

export interface VerifyArgs {
  stack?: string
  agent?: string
  url?: string
  region?: string
  headers: [name: string, value: string][]
  checks: CheckName[]
  quietSeconds: number
  timerMinutes: number
  answerSeconds: number
  message?: string
  json: boolean
  help: boolean
}

/**
 * Reads `verify`'s arguments (what follows `a2-aws verify`); anything wrong
 * is a `USAGE` error that says what.
 *
 * @example
 * parseVerifyArgs(['--stack', 'Support', '--skip', 'closed'])
 */
export function parseVerifyArgs(argv: readonly string[]): VerifyArgs {
  let parsed: ReturnType<typeof parse>
  try {
    parsed = parse(argv)
  } catch (error) {
    throw new VerifyError('USAGE', (error as Error).message)
  }
  const { values } = parsed
  const help = values.help === true
  if (!help && !values.stack && !values.url) {
    throw new VerifyError('USAGE', 'Name the agent: --stack <name> or --url <agent url>')
  }
  if (values.agent && !values.stack) {
    throw new VerifyError('USAGE', '--agent picks an agent of a stack: give --stack too')
  }
  if (values.only && values.skip) throw new VerifyError('USAGE', 'Give --only or --skip, not both')
  if (values.url) {
    let url: URL
    try {
      url = new URL(values.url)
    } catch {
      throw new VerifyError('USAGE', `--url is not a URL: ${values.url}`)
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') {
      throw new VerifyError('USAGE', `--url must be http(s): ${values.url}`)
    }
  }
  const only = values.only ? checkList('--only', values.only) : undefined
  const skipped = values.skip ? checkList('--skip', values.skip) : []
  const checks = CHECK_NAMES.filter(
    (name) => (only ? only.includes(name) : true) && !skipped.includes(name),
  )
  if (checks.length === 0) throw new VerifyError('USAGE', 'No check left to run')
  return {
    ...(values.stack ? { stack: values.stack } : {}),
    ...(values.agent ? { agent: values.agent } : {}),
    ...(values.url ? { url: values.url } : {}),
    ...(values.region ? { region: values.region } : {}),
    ...(values.message ? { message: values.message } : {}),
    headers: (values.header ?? []).map(header),
    checks,
    quietSeconds: positive('--quiet-seconds', values['quiet-seconds'], 75),
    timerMinutes: positive('--timer-minutes', values['timer-minutes'], 2),
    answerSeconds: positive('--answer-seconds', values['answer-seconds'], 120),
    json: values.json === true,
    help,
  }
}

function parse(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    strict: true,
    allowPositionals: false,
    options: {
      stack: { type: 'string' },
      agent: { type: 'string' },
      url: { type: 'string' },
      region: { type: 'string' },
      header: { type: 'string', multiple: true },
      only: { type: 'string' },
      skip: { type: 'string' },
      'quiet-seconds': { type: 'string' },
      'timer-minutes': { type: 'string' },
      'answer-seconds': { type: 'string' },
      message: { type: 'string' },
      json: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  })
}

function checkList(flag: string, value: string): CheckName[] {
  const names = value
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean)
  const unknown = names.filter((name) => !(CHECK_NAMES as readonly string[]).includes(name))
  if (unknown.length > 0) {
    throw new VerifyError(
      'USAGE',
      `${flag}: no check named ${unknown.join(', ')} (the checks: ${CHECK_NAMES.join(', ')})`,
    )
  }
  return names as CheckName[]
}

function header(value: string): [string, string] {
  const colon = value.indexOf(':')
  const name = colon > 0 ? value.slice(0, colon).trim() : ''
  if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) {
    throw new VerifyError('USAGE', `--header must be 'name: value', not ${JSON.stringify(value)}`)
  }
  return [name, value.slice(colon + 1).trim()]
}

function positive(flag: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback
  const number = Number(value)
  if (!Number.isFinite(number) || number <= 0) {
    throw new VerifyError('USAGE', `${flag} must be a positive number, not ${value}`)
  }
  return number
}
