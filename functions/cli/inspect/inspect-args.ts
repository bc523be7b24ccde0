import { parseArgs } from 'node:util'
import { InspectError } from './inspect-error.ts'

export const INSPECT_USAGE = `Usage: a2-aws inspect <sessionId> --url <agent url> [options]
       a2-aws inspect <sessionId> --table <table name> [options]

Shows one session: its timeline (index, time, type, author, summary; streamed
progress folded into one line per model step) and why it is not moving (what
the turn waits on: a model step or a tool and its worker's claim, an approval,
a timer, a dead letter). Read-only.

  --url <url>             the agent's HTTP endpoint (e.g. http://127.0.0.1:3000/api/agent);
                          reads GET ?events and ?claims, behind its read authorization
  --header 'name: value'  sent with every request (repeatable), e.g. an authorization header
  --table <name>          the agent's DynamoDB table, with your AWS credentials (Query and
                          GetItem only)
  --region <region>       the table's region (default: the environment's)
  --endpoint <url>        a DynamoDB-compatible endpoint (moto, DynamoDB Local); on this
                          machine's loopback, a region (us-east-1) and dummy credentials
                          are assumed when none are configured, and said
  --at <n>                the event at index n and the state after it (0: before any event)
  --diff <a>..<b>         what changed in the state from index a to index b
  --claim-ttl <ms>        the agent's claimTtlMs, for when a Pause now's settle timer fires
                          (default 30000)
  --json                  one JSON report instead of text
  --help`

export interface InspectArgs {
  sessionId: string
  url?: string
  headers: [name: string, value: string][]
  table?: string
  region?: string
  endpoint?: string
  at?: number
  diff?: { from: number; to: number }
  claimTtlMs?: number
  json: boolean
  help: boolean
}

const parse = (argv: readonly string[]) =>
  parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: {
      url: { type: 'string' },
      header: { type: 'string', multiple: true },
      table: { type: 'string' },
      region: { type: 'string' },
      endpoint: { type: 'string' },
      at: { type: 'string' },
      diff: { type: 'string' },
      'claim-ttl': { type: 'string' },
      json: { type: 'boolean' },
      help: { type: 'boolean' },
    },
  })

function index(flag: string, raw: string): number {
  const value = Number(raw)
  if (raw.trim() === '' || !Number.isSafeInteger(value) || value < 0)
    throw new InspectError('USAGE', `${flag} takes a log index (0 or more), not "${raw}"`)
  return value
}

function httpUrl(flag: string, raw: string): string {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    throw new InspectError('USAGE', `${flag} is not a URL: ${raw}`)
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new InspectError('USAGE', `${flag} must be http(s): ${raw}`)
  return raw
}

/**
 * Reads `inspect`'s arguments (what follows `a2-aws inspect`); anything
 * wrong is a `USAGE` error that says what.
 *
 * @example
 * parseInspectArgs(['demo', '--url', 'http://127.0.0.1:3000/api/agent', '--at', '5'])
 */
export function parseInspectArgs(argv: readonly string[]): InspectArgs {
  let parsed: ReturnType<typeof parse>
  try {
    parsed = parse(argv)
  } catch (error) {
    throw new InspectError('USAGE', (error as Error).message)
  }
  const { values, positionals } = parsed
  const help = values.help === true
  const base = { headers: [] as [string, string][], json: values.json === true, help }
  if (help) return { sessionId: positionals[0] ?? '', ...base }
  if (positionals.length !== 1)
    throw new InspectError('USAGE', 'Name one session: a2-aws inspect <sessionId> ...')
  const sessionId = positionals[0] as string
  if (!values.url === !values.table)
    throw new InspectError('USAGE', 'Read the session from --url <agent url> or --table <name>')
  if ((values.region || values.endpoint) && !values.table)
    throw new InspectError('USAGE', '--region and --endpoint are for --table')
  if (values.header && !values.url) throw new InspectError('USAGE', '--header is for --url')
  const headers = (values.header ?? []).map((header): [string, string] => {
    const colon = header.indexOf(':')
    if (colon <= 0) throw new InspectError('USAGE', `--header takes 'name: value', not "${header}"`)
    return [header.slice(0, colon).trim(), header.slice(colon + 1).trim()]
  })
  let diff: InspectArgs['diff']
  if (values.diff !== undefined) {
    const match = /^(\d+)\.\.(\d+)$/.exec(values.diff)
    if (!match) throw new InspectError('USAGE', `--diff takes <a>..<b>, not "${values.diff}"`)
    diff = { from: index('--diff', match[1] as string), to: index('--diff', match[2] as string) }
  }
  let claimTtlMs: number | undefined
  if (values['claim-ttl'] !== undefined) {
    claimTtlMs = index('--claim-ttl', values['claim-ttl'])
    if (claimTtlMs === 0) throw new InspectError('USAGE', '--claim-ttl takes milliseconds above 0')
  }
  return {
    ...base,
    sessionId,
    headers,
    ...(values.url ? { url: httpUrl('--url', values.url) } : {}),
    ...(values.table ? { table: values.table } : {}),
    ...(values.region ? { region: values.region } : {}),
    ...(values.endpoint ? { endpoint: httpUrl('--endpoint', values.endpoint) } : {}),
    ...(values.at === undefined ? {} : { at: index('--at', values.at) }),
    ...(diff ? { diff } : {}),
    ...(claimTtlMs === undefined ? {} : { claimTtlMs }),
  }
}
