import { readFile, writeFile } from 'node:fs/promises'
import { parseArgs } from 'node:util'
import { DynamoDBClient } from '@aws-sdk/client-dynamodb'
import { SchedulerClient } from '@aws-sdk/client-scheduler'
import { SessionActiveError } from '../../../shared/agent/session/session-active-error.ts'
import { cancelSessionSchedules } from '../../../shared/aws/eventbridge-scheduler.ts'
import { type A2Code, hasA2Code } from '../../../shared/log/error-brand.ts'
import { checkSessionId } from '../../../shared/log/event-envelope.ts'
import { eventLog } from '../../../shared/log/event-log.ts'
import {
  ERASED_ITEM_KINDS,
  type EraseReceipt,
  type EventStore,
} from '../../../shared/log/event-store.ts'
import { exportSession, importSession } from '../../../shared/log/session-export.ts'
import { AI_STATE_REDUCER } from '../../../shared/model/state/ai-state-reducer.ts'
import { sessionReducer } from '../../../shared/model/state/session-state.ts'
import { dynamoDBEventStore } from '../../../shared/stores/dynamodb/dynamodb-event-store.ts'
import { sessionIdsOf } from '../../../shared/stores/dynamodb/session-scan.ts'
import { awsSetupProblem } from '../aws-setup.ts'
import { exportSample, sampleSize } from './export-sample.ts'
import { deniedActions } from './grant-probe.ts'
import { OperatorNotGrantedError } from './operator-not-granted.ts'

export const LIFECYCLE_USAGE = `Usage: a2-aws erase <sessionId> --table <name> [--schedule-group <name>] [--force] [--json]
       a2-aws export <sessionId> --table <name> [--out <file>] [--snapshot <reducer>]
       a2-aws export --table <name> --sample <n> --out <dir> [--snapshot <reducer>]
       a2-aws import <file | -> --table <name> [--session <id>]

A session's data on a deployed table (AWS credentials and region from the
environment). erase removes the session from every item kind and prints a
receipt (counts per item kind); with --schedule-group it first cancels the
session's pending timers there (counted as timers); it refuses while a turn
is active unless --force, and erasing twice removes nothing the second time. export writes the
session's log as JSON Lines (stdout, or --out); with --sample, up to n of the
table's sessions (a Scan of their heads), one <sessionId>.jsonl each in the
--out directory, for a2-aws check. import writes such a file into
an empty session (- reads stdin). erase and import first check that the
credentials may do every write they make, and stop with nothing written
when not (exit 2, naming the actions; docs/operations.md has each policy).

  --table <name>      the agent's event log table
  --schedule-group <name>
                      the agent's Scheduler group (the construct's
                      scheduleGroup): erase cancels the session's timers there
  --region <region>   where the table is (default: the environment's)
  --endpoint <url>    a DynamoDB-compatible endpoint (moto, DynamoDB Local)
  --force             erase even while a turn is active (a stuck session)
  --session <id>      import under another session ID
  --out <file>        write the export there instead of stdout (with --sample:
                      the directory)
  --sample <n>        export up to n sessions of the table
  --snapshot <reducer>
                      export also the session's stored snapshot of this
                      reducer (repeatable; an agent's is ${AI_STATE_REDUCER.name},
                      or ${AI_STATE_REDUCER.name}+<its contract's reducer name>),
                      for a2-aws check to compare with the new code's reducer
  --json              print the erase receipt as JSON
  --help`

export type LifecycleCommand = 'erase' | 'export' | 'import'

export interface LifecycleIo {
  stdout: (text: string) => void
  stderr: (line: string) => void
  /** The store for a table (default: the DynamoDB store with the environment's credentials). */
  store?: (target: { table: string; region?: string; endpoint?: string }) => EventStore
  /**
   * Cancels a session's timers in a schedule group (default: EventBridge
   * Scheduler with the environment's credentials), for `--schedule-group`.
   */
  cancelTimers?: (target: {
    group: string
    region?: string
    endpoint?: string
  }) => (sessionId: string) => Promise<number>
  /** Up to `limit` session IDs of the table, for `export --sample` (default: a Scan of its heads). */
  sessionIds?: (
    target: { table: string; region?: string; endpoint?: string },
    limit: number,
  ) => Promise<string[]>
  /** Reads stdin, for `import -`. */
  stdin?: () => Promise<string>
  /**
   * The actions of the command the caller may not perform, asked before its
   * first write (default: the probe of `grant-probe.ts` with the
   * environment's credentials, when `store` is the default one; none with
   * another store, which has no IAM).
   */
  deniedActions?: (check: {
    command: 'erase' | 'import'
    sessionId: string
    scheduleGroup?: string
  }) => Promise<readonly string[]>
}

type Target = { table: string; region?: string; endpoint?: string }

const defaultStore = ({ table, ...where }: Target): EventStore =>
  dynamoDBEventStore({ client: new DynamoDBClient(clientConfig(where)), tableName: table })

const clientConfig = ({ region, endpoint }: Omit<Target, 'table'>) => ({
  ...(region ? { region } : {}),
  ...(endpoint ? { endpoint } : {}),
})

const defaultDeniedActions =
  (target: Target): NonNullable<LifecycleIo['deniedActions']> =>
  ({ command, sessionId, scheduleGroup }) =>
    deniedActions(command, {
      dynamodb: new DynamoDBClient(clientConfig(target)),
      tableName: target.table,
      sessionId,
      ...(scheduleGroup
        ? {
            schedules: {
              scheduler: new SchedulerClient(clientConfig(target)),
              groupName: scheduleGroup,
            },
          }
        : {}),
    })

const defaultCancelTimers =
  ({ group, region, endpoint }: { group: string; region?: string; endpoint?: string }) =>
  (sessionId: string): Promise<number> =>
    cancelSessionSchedules(
      new SchedulerClient({ ...(region ? { region } : {}), ...(endpoint ? { endpoint } : {}) }),
      group,
      sessionId,
    )

/**
 * `a2-aws erase|export|import ...`. Answers the exit code: 0 done, 1 refused
 * (an active session, a non-empty import target, an unreadable file), 2 when
 * the arguments are wrong, the AWS setup is missing, or the credentials lack
 * an action the command needs (found before its first write).
 */
export async function lifecycleCommand(
  command: LifecycleCommand,
  argv: readonly string[],
  io: LifecycleIo,
): Promise<number> {
  let parsed: ReturnType<typeof parse>
  try {
    parsed = parse(argv)
  } catch (error) {
    io.stderr(`a2-aws ${command}: ${(error as Error).message}\n\n${LIFECYCLE_USAGE}`)
    return 2
  }
  const { values, positionals } = parsed
  if (values.help) {
    io.stdout(`${LIFECYCLE_USAGE}\n`)
    return 0
  }
  if (command === 'export' && values.sample !== undefined) return sampled(values, positionals, io)
  const [subject] = positionals
  const problem =
    subject === undefined
      ? command === 'import'
        ? 'name the file to import (or - for stdin)'
        : 'name the session'
      : !values.table
        ? 'name the table: --table <name>'
        : positionals.length > 1
          ? `one ${command === 'import' ? 'file' : 'session'} at a time`
          : undefined
  if (problem || subject === undefined || !values.table) {
    io.stderr(`a2-aws ${command}: ${problem}\n\n${LIFECYCLE_USAGE}`)
    return 2
  }
  const target: Target = {
    table: values.table,
    ...(values.region ? { region: values.region } : {}),
    ...(values.endpoint ? { endpoint: values.endpoint } : {}),
  }
  const store = (io.store ?? defaultStore)(target)
  // Before the first write, whether every write it makes is granted: an
  // erase refused half-way (after its seal, or its tombstones) would leave
  // a session that reads empty and keeps its head and ID guards.
  const checkGrants = io.deniedActions ?? (io.store ? undefined : defaultDeniedActions(target))
  const granted = async (
    writing: 'erase' | 'import',
    sessionId: string,
    scheduleGroup?: string,
  ): Promise<void> => {
    const denied = await checkGrants?.({
      command: writing,
      // A session ID the store refuses is refused here, before the probe.
      sessionId: checkSessionId(sessionId),
      ...(scheduleGroup ? { scheduleGroup } : {}),
    })
    if (denied && denied.length > 0) {
      throw new OperatorNotGrantedError(writing, denied, values.table as string, scheduleGroup)
    }
  }
  try {
    if (command === 'erase') {
      const group = values['schedule-group']
      await granted('erase', subject, group)
      const cancelTimers = group
        ? (io.cancelTimers ?? defaultCancelTimers)({
            group,
            ...(values.region ? { region: values.region } : {}),
            ...(values.endpoint ? { endpoint: values.endpoint } : {}),
          })
        : undefined
      const receipt = await erase(store, subject, values.force === true, cancelTimers)
      io.stdout(
        values.json ? `${JSON.stringify(receipt, null, 2)}\n` : receiptText(receipt, values.table),
      )
    } else if (command === 'export') {
      const jsonl = await exportSession(store, subject, { snapshots: values.snapshot ?? [] })
      if (values.out) await writeFile(values.out, jsonl)
      else io.stdout(jsonl)
    } else {
      const text =
        subject === '-' ? await (io.stdin ?? readStdin)() : await readFile(subject, 'utf8')
      await granted('import', values.session ?? exportedSession(text))
      const imported = await importSession(
        store,
        text,
        values.session ? { sessionId: values.session } : {},
      )
      io.stdout(`imported ${imported.events} events into session ${imported.sessionId}\n`)
    }
    return 0
  } catch (error) {
    const refused: A2Code[] = [
      'SESSION_ACTIVE',
      'SESSION_NOT_EMPTY',
      'INVALID_EXPORT',
      'INVALID_SESSION_ID',
      'INVALID_EVENT',
      'PARTIAL_DUPLICATE_BATCH',
    ]
    if (refused.some((code) => hasA2Code(error, code))) {
      io.stderr(`a2-aws ${command}: ${(error as Error).message}`)
      return 1
    }
    if (hasA2Code(error, 'OPERATOR_NOT_GRANTED')) {
      io.stderr(`a2-aws ${command}: ${error.message}`)
      return 2
    }
    const setup = awsSetupProblem(error)
    if (setup) {
      io.stderr(`a2-aws ${command}: ${setup}`)
      return 2
    }
    throw error
  }
}

/** `export --sample`: its arguments checked, then the sessions exported. */
async function sampled(
  values: ReturnType<typeof parse>['values'],
  positionals: readonly string[],
  io: LifecycleIo,
): Promise<number> {
  const size = sampleSize(values.sample ?? '')
  const problem =
    typeof size !== 'number'
      ? size.problem
      : positionals.length > 0
        ? '--sample exports sessions of the table: name no session'
        : !values.table
          ? 'name the table: --table <name>'
          : !values.out
            ? 'name the directory: --out <dir>'
            : undefined
  if (problem || typeof size !== 'number' || !values.table || !values.out) {
    io.stderr(`a2-aws export: ${problem}\n\n${LIFECYCLE_USAGE}`)
    return 2
  }
  const target: Target = {
    table: values.table,
    ...(values.region ? { region: values.region } : {}),
    ...(values.endpoint ? { endpoint: values.endpoint } : {}),
  }
  const list = io.sessionIds ?? defaultSessionIds
  return exportSample(
    { sample: size, out: values.out, snapshots: values.snapshot ?? [] },
    { store: (io.store ?? defaultStore)(target), sessionIds: (limit) => list(target, limit) },
    io,
  )
}

const defaultSessionIds = ({ table, ...where }: Target, limit: number): Promise<string[]> =>
  sessionIdsOf(new DynamoDBClient(clientConfig(where)), table, { limit })

/**
 * Refuses while the agent's state has an active turn, and cancels the
 * session's timers before its items go, as `session.erase()` does.
 */
async function erase(
  store: EventStore,
  sessionId: string,
  force: boolean,
  cancelTimers: ((sessionId: string) => Promise<number>) | undefined,
): Promise<EraseReceipt & { timers?: number }> {
  if (!force) {
    // Read-only: a refusal writes nothing (no snapshot of the conversation),
    // and needs no write permission to refuse.
    const reader = eventLog({ store, snapshotEvery: Number.POSITIVE_INFINITY })
    const { state } = await reader.session(sessionId).state(sessionReducer(undefined))
    const { active } = state.ai
    if (active) throw new SessionActiveError(sessionId, `turn ${active.turnId} is ${active.phase}`)
  }
  const timers = cancelTimers ? await cancelTimers(sessionId) : undefined
  const receipt = await store.erase(sessionId)
  return timers === undefined ? receipt : { ...receipt, timers }
}

/** The receipt as an operator reads it: one line per item kind (and the timers cancelled). */
function receiptText(receipt: EraseReceipt & { timers?: number }, table: string): string {
  const width = Math.max(...ERASED_ITEM_KINDS.map((kind) => kind.length))
  const total = ERASED_ITEM_KINDS.reduce((sum, kind) => sum + receipt[kind], 0)
  const lines = [
    total === 0
      ? `session ${receipt.sessionId}: nothing to erase in ${table} (already erased, or never there)`
      : `erased session ${receipt.sessionId} from ${table}: ${total} items`,
    ...ERASED_ITEM_KINDS.map((kind) => `  ${kind.padEnd(width)}  ${receipt[kind]}`),
    ...(receipt.timers === undefined ? [] : [`  ${'timers'.padEnd(width)}  ${receipt.timers}`]),
  ]
  return `${lines.join('\n')}\n`
}

function parse(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: {
      table: { type: 'string' },
      'schedule-group': { type: 'string' },
      region: { type: 'string' },
      endpoint: { type: 'string' },
      force: { type: 'boolean' },
      session: { type: 'string' },
      out: { type: 'string' },
      sample: { type: 'string' },
      snapshot: { type: 'string', multiple: true },
      json: { type: 'boolean' },
      help: { type: 'boolean' },
    },
  })
}

/**
 * The session an export's header names, for the grant check's probe (it
 * writes in the session's partition); the import itself reads the file
 * again, and refuses one without a header.
 */
function exportedSession(text: string): string {
  try {
    const end = text.indexOf('\n')
    const header = JSON.parse(end === -1 ? text : text.slice(0, end)) as { sessionId?: unknown }
    if (typeof header.sessionId === 'string' && header.sessionId) return header.sessionId
  } catch {
    // Not an export: importSession says so, after the probe.
  }
  return 'a2-aws-import'
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString('utf8')
}
