import { describe, expect, it } from 'vitest'
import { createEventLogTable } from '../../../shared/stores/dynamodb/create-table.ts'
import { dynamoDBEventStore } from '../../../shared/stores/dynamodb/dynamodb-event-store.ts'
import { type CrashPointsOptions, crashPoints } from '../../../shared/testing/crash-points.ts'
import { eventLogTableForSuite } from '../../support/aws.ts'
import {
  agentDefinition,
  approvedCharge,
  compactedTurns,
  compactingAgent,
  effects,
  reminder,
  reportedCommand,
  steerStopDeny,
} from '../../support/crash-conversations.ts'

// Crash points on the DynamoDB store (moto): in `npm test`, three points
// spread over two conversations (a run on moto takes seconds); every point
// of every conversation with `npm run test:crash` (A2_CRASH_MATRIX=all).
// Each run gets its own table: A2's derived event IDs repeat from run to
// run, and IDs are unique across a table.

const table = eventLogTableForSuite()
const matrix = process.env.A2_CRASH_MATRIX === 'all'
const points: CrashPointsOptions['points'] = matrix ? 'all' : { sample: 3 }
let tables = 0
const store = async (now: () => number) => {
  const tableName = `${table.tableName()}-crash-${++tables}`
  await createEventLogTable(table.client(), tableName)
  return dynamoDBEventStore({ client: table.client(), tableName, now })
}
const timeout = matrix ? 3_600_000 : 300_000

describe('crash points on the DynamoDB store', () => {
  const conversations = {
    'a charge that needs approval': approvedCharge,
    "a 'report' tool": reportedCommand,
    ...(matrix
      ? {
          'a timer set by a tool': reminder,
          'a steer, a Stop and a denial': steerStopDeny,
          'turns that compact first': compactedTurns,
        }
      : {}),
  }
  for (const [name, conversation] of Object.entries(conversations)) {
    it(
      `Given ${name}, When the process dies at a crash point, Then it recovers with the uncrashed transcript, every effect once and no event lost`,
      async () => {
        const report = await crashPoints({
          agent: conversation === compactedTurns ? compactingAgent : agentDefinition,
          effects,
          store,
          points,
          ...conversation,
          // The full matrix runs for many minutes: say where it is.
          ...(matrix
            ? {
                onRun: ({ run, of, point, failures }) =>
                  process.stderr.write(
                    `crash matrix: ${name}: run ${run} of ${of} (point ${point}), ${failures} failures\n`,
                  ),
              }
            : {}),
        })
        console.info(
          `${name}: ${report.points} crash points, ${report.runs} runs, ${report.duplicatedEffects} duplicated effects, ${report.lostEvents} lost events, ${report.stuckSessions} stuck sessions`,
        )
        expect(report.failures).toEqual([])
        expect(report.runs).toBeGreaterThan(1)
      },
      timeout,
    )
  }
})
