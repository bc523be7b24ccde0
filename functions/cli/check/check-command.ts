import { checkSessions } from '../../../shared/agent/compatibility/check-sessions.ts'
import type {
  CheckedAgent,
  CheckedSession,
} from '../../../shared/agent/compatibility/checked-session.ts'
import { formatCompatibilityReport } from '../../../shared/agent/compatibility/format-report.ts'
import { storeSessions } from '../../../shared/agent/compatibility/session-sources.ts'
import { hasA2Code } from '../../../shared/log/error-brand.ts'
import type { EventStore } from '../../../shared/log/event-store.ts'
import { dynamoDBEventStore } from '../../../shared/stores/dynamodb/dynamodb-event-store.ts'
import { sessionIdsOf } from '../../../shared/stores/dynamodb/session-scan.ts'
import { awsSetupProblem } from '../aws-setup.ts'
import { tableClient } from '../inspect/table-client.ts'
import { CHECK_USAGE, type CheckArgs, parseCheckArgs } from './check-args.ts'
import { exportFiles, exportSessions, MissingExportError } from './export-files.ts'
import { AgentModuleError, loadAgent } from './load-agent.ts'

export interface CheckIo {
  stdout: (text: string) => void
  stderr: (line: string) => void
  /**
   * A table's store, and up to `limit` of its session IDs for `--sample`
   * (default: the DynamoDB store with the environment's credentials, and a
   * Scan of the session heads).
   */
  table?: (
    table: TableArgs,
  ) => Promise<{ store: EventStore; sessionIds(limit: number): Promise<string[]> }>
}

type TableArgs = NonNullable<CheckArgs['table']>

const defaultTable =
  (stderr: (line: string) => void) =>
  async ({ name, region, endpoint }: TableArgs) => {
    const { client, assumed } = await tableClient({
      ...(region ? { region } : {}),
      ...(endpoint ? { endpoint } : {}),
    })
    for (const line of assumed) stderr(`a2-aws check: ${line}`)
    return {
      store: dynamoDBEventStore({ client, tableName: name }),
      sessionIds: (limit: number) => sessionIdsOf(client, name, { limit }),
    }
  }

/** The sessions of a table to check: those named, or a sample. */
async function tableSessions(
  args: TableArgs,
  agent: CheckedAgent,
  io: CheckIo,
): Promise<AsyncIterable<CheckedSession>> {
  const { store, sessionIds } = await (io.table ?? defaultTable(io.stderr))(args)
  const ids = args.sample === undefined ? args.sessions : await sessionIds(args.sample)
  return storeSessions(store, ids, agent, `table ${args.name}`)
}

/**
 * `a2-aws check --agent <module> <exports...>`: the exit code. 0 when no
 * session would break, 1 when one would, 2 on wrong arguments, an agent
 * module that does not load, an export that cannot be read (never a pass),
 * or a table the AWS setup cannot reach.
 */
export async function checkCommand(argv: readonly string[], io: CheckIo): Promise<number> {
  const args = parseCheckArgs(argv)
  if (args === 'help') {
    io.stdout(`${CHECK_USAGE}\n`)
    return 0
  }
  if ('problem' in args) {
    io.stderr(`a2-aws check: ${args.problem}\n\n${CHECK_USAGE}`)
    return 2
  }
  let agent: Awaited<ReturnType<typeof loadAgent>> | undefined
  try {
    agent = await loadAgent(args.agent.module, args.agent.exportName)
    const sessions = args.table
      ? await tableSessions(args.table, agent, io)
      : exportSessions(await exportFiles(args.paths))
    const report = await checkSessions({ agent, sessions })
    io.stdout(
      args.json ? `${JSON.stringify(report, null, 2)}\n` : formatCompatibilityReport(report),
    )
    return report.ok ? 0 : 1
  } catch (error) {
    if (
      error instanceof AgentModuleError ||
      error instanceof MissingExportError ||
      hasA2Code(error, 'INVALID_EXPORT')
    ) {
      io.stderr(`a2-aws check: ${error.message}`)
      return 2
    }
    const setup = awsSetupProblem(error)
    if (setup) {
      io.stderr(`a2-aws check: ${setup}`)
      return 2
    }
    throw error
  } finally {
    // The agent's embedded timers and dispatch would keep the process alive.
    agent?.runtime?.close?.()
  }
}
