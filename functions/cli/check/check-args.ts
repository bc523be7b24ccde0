import { parseArgs } from 'node:util'

export const CHECK_USAGE = `Usage: a2-aws check --agent <module>[#export] <export file | directory>...
       a2-aws check --agent <module>[#export] --table <name> (--session <id>... | --sample <n>)

Checks stored sessions against new code before a deploy: each session's
events upcast and validated by the agent's contract, folded by its reducers
(and compared with a stored snapshot of a reducer of the same name), and its
tool calls yet to run (awaiting approval, approved, called) checked against
its tools. Prints each session that would break and why. Reads exports
(a2-aws export; a directory: every .jsonl file under it), or a table.
Exit 0: none would break; 1: a session would break; 2: wrong arguments, an
agent module that does not load, no export found, or an export that cannot
be read (the file and line named).

  --agent <module>[#export]  the new code's agent module (e.g. ./dist/agent.js): its
                             export of agent() (#name; default: the default export, or
                             the one agent the module exports)
  --table <name>             read the sessions from this DynamoDB table (with
                             --session, repeatable), their snapshots with them
  --session <id>             a session to read from --table
  --sample <n>               read up to n sessions of --table (a Scan of their heads)
  --region <region>          the table's region (default: the environment's)
  --endpoint <url>           a DynamoDB-compatible endpoint (moto, DynamoDB Local)
  --json                     the report as JSON
  --help`

export interface CheckArgs {
  agent: { module: string; exportName?: string }
  paths: string[]
  /** Sessions of a table: those named, or up to `sample` of them. */
  table?: { name: string; sessions: string[]; sample?: number; region?: string; endpoint?: string }
  json: boolean
}

/** The arguments, or the problem with them (a sentence for stderr), or help. */
export function parseCheckArgs(argv: readonly string[]): CheckArgs | { problem: string } | 'help' {
  let values: ReturnType<typeof parse>['values']
  let positionals: string[]
  try {
    ;({ values, positionals } = parse(argv))
  } catch (error) {
    return { problem: (error as Error).message }
  }
  if (values.help) return 'help'
  if (!values.agent) return { problem: 'name the new code: --agent <module>[#export]' }
  const hash = values.agent.lastIndexOf('#')
  const agent =
    hash > 0
      ? { module: values.agent.slice(0, hash), exportName: values.agent.slice(hash + 1) }
      : { module: values.agent }
  const sessions = values.session ?? []
  if (values.table) {
    if (positionals.length > 0) return { problem: 'read exports or a --table, not both' }
    const sample = values.sample === undefined ? undefined : Number(values.sample)
    if (sample !== undefined && !(Number.isSafeInteger(sample) && sample > 0)) {
      return {
        problem: `--sample takes a number of sessions, not ${JSON.stringify(values.sample)}`,
      }
    }
    if ((sessions.length === 0) === (sample === undefined)) {
      return { problem: 'name the sessions to read: --session <id>..., or --sample <n>' }
    }
    const table = {
      name: values.table,
      sessions,
      ...(sample === undefined ? {} : { sample }),
      ...(values.region ? { region: values.region } : {}),
      ...(values.endpoint ? { endpoint: values.endpoint } : {}),
    }
    return { agent, paths: [], table, json: values.json === true }
  }
  if (sessions.length > 0 || values.sample !== undefined) {
    return { problem: '--session and --sample read from a table: add --table <name>' }
  }
  if (positionals.length === 0)
    return { problem: 'name the exports to check (files or directories)' }
  return { agent, paths: positionals, json: values.json === true }
}

function parse(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: {
      agent: { type: 'string' },
      table: { type: 'string' },
      session: { type: 'string', multiple: true },
      sample: { type: 'string' },
      region: { type: 'string' },
      endpoint: { type: 'string' },
      json: { type: 'boolean' },
      help: { type: 'boolean' },
    },
  })
}
