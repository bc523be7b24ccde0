import { describe, expect, it } from 'vitest'
import { agent } from '../../../../shared/agent/index.ts'
import { dynamoDBEventStore } from '../../../../shared/stores/dynamodb/dynamodb-event-store.ts'
import { scriptedModel } from '../../../../shared/testing/scripted-model.ts'
import { track, until } from '../../../support/agent-log.ts'
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

describe('a timer whose handler a deploy removed (DynamoDB)', () => {
  it('appends its event, runs nothing for it, and says so', async () => {
    const info: string[] = []
    const after = track(
      agent({
        name: 'reminders',
        version: 'v2',
        store: perProcess(),
        model: scriptedModel([]).model,
        handlers: { 'invoice.sent': () => {} },
        logger: { info: (line: string) => info.push(line), warn() {}, error() {} },
      }),
    )
    await after
      .session('timer')
      .schedule('remind', { delay: 10 }, { type: 'reminder.due', payload: {} })
    await until(async () => (await after.runtime.log.session('timer').read()).length === 1, 10_000)
    await until(() => info.length > 0, 10_000)
    expect(info).toEqual([
      'a2: timer "remind" of session timer appended a "reminder.due" event, which no handler of version v2 handles: it is in the log for the reducer, and nothing runs for it',
    ])
  }, 60_000)
})
