import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { dynamoDBEventStore } from '../../../../shared/stores/dynamodb/dynamodb-event-store.ts'
import { eventLogTableForSuite } from '../../../support/aws.ts'
import {
  playSession,
  problemsOf,
  scriptArbitrary,
  sharedScriptRun,
} from '../../../support/shared-script.ts'

// The same property as ids-store-unique.test.ts, on DynamoDB: its ID guards
// are items of their own, keyed by the event ID alone, across every session
// of the table. Smaller: moto serves one request at a time, and three
// sessions of three turns take it a dozen seconds.

const table = eventLogTableForSuite()

describe('sessions on one DynamoDB table driven by the same script', () => {
  it("every session completes every turn and none is refused for another session's IDs", async () => {
    let run = 0
    await fc.assert(
      fc.asyncProperty(scriptArbitrary({ turns: 2, toolSteps: 1 }), async (script) => {
        // Each run's sessions are new to the table.
        const sessions = ['a', 'b'].map((name) => `run${run}-${name}`)
        run++
        const shared = await sharedScriptRun(
          script,
          dynamoDBEventStore({ client: table.client(), tableName: table.tableName() }),
        )
        try {
          await Promise.all(sessions.map((id) => playSession(shared, id, script, 20_000)))
          await shared.agent.runtime.idle()
          const problems = (
            await Promise.all(sessions.map((id) => problemsOf(shared, id, script)))
          ).flat()
          const refused = shared.logged.filter((line) => line.includes('already stored'))
          expect({ problems, refused }).toEqual({ problems: [], refused: [] })
        } finally {
          await shared.close()
        }
      }),
      { numRuns: 3 },
    )
  }, 120_000)
})
