import type { DynamoDBClient } from '@aws-sdk/client-dynamodb'
import { type A2Code, hasA2Code } from '../../../shared/log/error-brand.ts'
import { INSPECT_USAGE, type InspectArgs, parseInspectArgs } from './inspect-args.ts'
import { inspectSession } from './inspect-report.ts'
import { renderText } from './render-text.ts'
import { httpSource, type SessionSource, tableSource } from './session-source.ts'
import { tableClient } from './table-client.ts'

export interface InspectIo {
  stdout: (line: string) => void
  stderr: (line: string) => void
  /** The clock the diagnosis reads (default `Date.now`). */
  now?: () => number
  /**
   * Builds the DynamoDB client for `--table` (default: `tableClient`, the
   * SDK's from the environment, with an emulator's defaults on loopback).
   */
  dynamoDB?: (args: Pick<InspectArgs, 'region' | 'endpoint'>) => DynamoDBClient
}

async function sourceOf(args: InspectArgs, io: InspectIo): Promise<SessionSource> {
  if (args.url) return httpSource(args.url, args.headers)
  if (io.dynamoDB) return tableSource(io.dynamoDB(args), args.table as string)
  const { client, assumed } = await tableClient(args)
  // On stderr, so that --json stays one report on stdout.
  for (const line of assumed) {
    io.stderr(`a2-aws inspect: ${line} for ${args.endpoint} (on this machine: an emulator)`)
  }
  return tableSource(client, args.table as string)
}

/** What inspect cannot answer: a source it cannot read, an index outside the log, bad arguments. */
const CANNOT_ANSWER: readonly A2Code[] = ['SOURCE_FAILED', 'INDEX_OUT_OF_RANGE', 'USAGE']

/**
 * `a2-aws inspect <sessionId> ...`: reads the session (from an agent's
 * endpoint or its table, read-only), and prints its timeline and diagnosis,
 * the state at `--at`, or the `--diff` (text, or `--json`). Answers the
 * exit code: 0 when it could answer, 1 for a session with no events, 2 for
 * bad arguments or a source it cannot read.
 */
export async function inspectCommand(argv: readonly string[], io: InspectIo): Promise<number> {
  let args: InspectArgs
  try {
    args = parseInspectArgs(argv)
  } catch (error) {
    if (!hasA2Code(error, 'USAGE')) throw error
    io.stderr(`a2-aws inspect: ${error.message}\n\n${INSPECT_USAGE}`)
    return 2
  }
  if (args.help) {
    io.stdout(INSPECT_USAGE)
    return 0
  }
  try {
    const report = await inspectSession(await sourceOf(args, io), args.sessionId, {
      now: (io.now ?? Date.now)(),
      ...(args.at === undefined ? {} : { at: args.at }),
      ...(args.diff === undefined ? {} : { diff: args.diff }),
      ...(args.claimTtlMs === undefined ? {} : { claimTtlMs: args.claimTtlMs }),
    })
    if (args.json) io.stdout(JSON.stringify(report, null, 2))
    else for (const line of renderText(report)) io.stdout(line)
    return 0
  } catch (error) {
    if (hasA2Code(error, 'NO_EVENTS')) {
      io.stderr(`a2-aws inspect: ${error.message}`)
      return 1
    }
    if (CANNOT_ANSWER.some((code) => hasA2Code(error, code))) {
      io.stderr(`a2-aws inspect: ${(error as Error).message}`)
      return 2
    }
    throw error
  }
}
