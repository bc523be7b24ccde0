import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { memoryEventStore } from '../../../../shared/stores/memory/memory-event-store.ts'
import {
  playSession,
  problemsOf,
  scriptArbitrary,
  sharedScriptRun,
} from '../../../support/shared-script.ts'

// "Event IDs are unique across a store's sessions": the IDs A2 derives must
// be too, so sessions that do exactly the same things never collide.

describe('sessions on one store driven by the same script', () => {
  it("every session completes every turn and none is refused for another session's IDs (memory store)", async () => {
    await fc.assert(
      fc.asyncProperty(scriptArbitrary(), async (script) => {
        const run = await sharedScriptRun(script, memoryEventStore())
        try {
          const sessions = ['s0', 's1', 's2', 's3']
          await Promise.all(sessions.map((id) => playSession(run, id, script, 8_000)))
          await run.agent.runtime.idle()
          const problems = (
            await Promise.all(sessions.map((id) => problemsOf(run, id, script)))
          ).flat()
          const refused = run.logged.filter((line) => line.includes('already stored'))
          expect({ problems, refused }).toEqual({ problems: [], refused: [] })
        } finally {
          await run.close()
        }
      }),
      { numRuns: 25 },
    )
  }, 60_000)
})
