import { describe, expect, it } from 'vitest'
import { dynamoDBEventStore } from '../../../../shared/stores/dynamodb/dynamodb-event-store.ts'
import { eventLogTableForSuite } from '../../../support/aws.ts'
import { deployDuringApproval, expectTheTurnWentOn } from '../../../support/deploy-cases.ts'

// The cases of test/shared/agent/in-flight-rules.test.ts on one
// table, each version's process with its own store instance (its own hints
// of where the log ends), as two deploys' Lambda containers have.

const table = eventLogTableForSuite()
const perProcess = () =>
  dynamoDBEventStore({ client: table.client(), tableName: table.tableName() })

describe('a deploy between a tool call and its run (DynamoDB)', () => {
  it('runs an approved call whose tool the new version keeps', async () => {
    const outcome = await deployDuringApproval(perProcess, 'kept', 'unchanged')
    expect(outcome.ran).toEqual(['T-1'])
    expect(outcome.result).toMatchObject({ outcome: 'output', version: 'v2' })
    expectTheTurnWentOn(outcome)
  }, 60_000)

  it('answers a call of a removed tool with an error the model sees', async () => {
    const outcome = await deployDuringApproval(perProcess, 'removed', 'removed')
    expect(outcome.result).toMatchObject({ outcome: 'error' })
    expect(outcome.result.errorText).toMatch(
      /^Unknown tool "closeTicket": version v2 of the agent has no such tool/,
    )
    expectTheTurnWentOn(outcome)
  }, 60_000)

  it('refuses a call whose input the new schema refuses, and goes on', async () => {
    const outcome = await deployDuringApproval(perProcess, 'schema', 'schema-changed')
    expect(outcome.ran).toEqual([])
    expect(outcome.result.errorText).toMatch(/^The call's input no longer fits tool "closeTicket"/)
    expectTheTurnWentOn(outcome)
  }, 60_000)
})
