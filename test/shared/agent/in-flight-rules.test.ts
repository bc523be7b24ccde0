import { describe, expect, it } from 'vitest'
import { memoryEventStore } from '../../../shared/stores/memory/memory-event-store.ts'
import { deployDuringApproval, expectTheTurnWentOn } from '../../support/deploy-cases.ts'

// The same cases run on DynamoDB in
// test/shared/stores/dynamodb/in-flight-rules.integration.test.ts.

describe('a deploy between a tool call and its run (memory store)', () => {
  const shared = () => {
    const store = memoryEventStore()
    return () => store
  }

  it('runs an approved call whose tool the new version keeps, with the new version recorded on its result', async () => {
    const outcome = await deployDuringApproval(shared(), 's', 'unchanged')
    expect(outcome.ran).toEqual(['T-1'])
    expect(outcome.result).toMatchObject({ outcome: 'output', version: 'v2' })
    expectTheTurnWentOn(outcome)
  })

  it('runs a call whose input the new schema accepts as that schema outputs it: a field the new version added gets its default', async () => {
    const outcome = await deployDuringApproval(shared(), 's', 'field-added')
    expect(outcome.ran).toEqual(['T-1 (resolved)'])
    expectTheTurnWentOn(outcome)
  })

  it('answers a call of a tool the new version removed with an error the model sees, naming both versions', async () => {
    const outcome = await deployDuringApproval(shared(), 's', 'removed')
    expect(outcome.result.outcome).toBe('error')
    expect(outcome.result.errorText).toBe(
      'Unknown tool "closeTicket": version v2 of the agent has no such tool (the call was made under version v1; the tool was removed or renamed since)',
    )
    expectTheTurnWentOn(outcome)
  })

  it('refuses to run a call whose input the new schema refuses, tells the model why, and goes on', async () => {
    const outcome = await deployDuringApproval(shared(), 's', 'schema-changed')
    expect(outcome.ran).toEqual([])
    expect(outcome.result.outcome).toBe('error')
    expect(outcome.result.errorText).toMatch(
      /^The call's input no longer fits tool "closeTicket" as version v2 of the agent defines it \(the call was made under version v1; the tool's input schema changed since\), so the tool was not run: /,
    )
    expectTheTurnWentOn(outcome)
  })
})
