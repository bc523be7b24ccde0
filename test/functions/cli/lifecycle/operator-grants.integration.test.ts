import { DynamoDBClient, GetItemCommand, ScanCommand } from '@aws-sdk/client-dynamodb'
import { SchedulerClient } from '@aws-sdk/client-scheduler'
import { SQSClient } from '@aws-sdk/client-sqs'
import { App, Stack } from 'aws-cdk-lib'
import * as iam from 'aws-cdk-lib/aws-iam'
import { beforeAll, describe, expect, it } from 'vitest'
import { inspectCommand } from '../../../../functions/cli/inspect/inspect-command.ts'
import { deniedActions } from '../../../../functions/cli/lifecycle/grant-probe.ts'
import {
  type LifecycleIo,
  lifecycleCommand,
} from '../../../../functions/cli/lifecycle/lifecycle-command.ts'
import { createLocalResources } from '../../../../functions/local/runner/resources.ts'
import { A2Agent } from '../../../../infra/index.ts'
import { awsAgentParts } from '../../../../shared/aws/agent-environment.ts'
import type { AwsEnvironment } from '../../../../shared/aws/environment-variables.ts'
import { cancelSessionSchedules } from '../../../../shared/aws/eventbridge-scheduler.ts'
import type { OperatorCommand } from '../../../../shared/aws/operator-policy.ts'
import { eventLog } from '../../../../shared/index.ts'
import { dynamoDBEventStore } from '../../../../shared/stores/dynamodb/dynamodb-event-store.ts'
import { HEAD_SK, sessionItemKey } from '../../../../shared/stores/dynamodb/table-keys.ts'
import { awsClientConfig, resetMotoForSuite } from '../../../support/aws.ts'
import {
  authorizationsOf,
  denied,
  type ResourceNames,
  recording,
  render,
  roleStatements,
  type SentRequest,
  type Statement,
} from '../../../support/iam-policy.ts'
import { templateOf } from '../../../support/template.ts'

// moto checks no IAM. These run each data command on moto, record every
// request it makes, and hold each against the policy the construct grants
// for that command (grantErase() and the rest); then they play a
// hand-written policy that lacks an action, refusing on moto what AWS
// would refuse, to show the command stops before its first write.

let environment: AwsEnvironment
const clients = () => {
  const config = awsClientConfig()
  return {
    dynamodb: new DynamoDBClient(config),
    sqs: new SQSClient(config),
    scheduler: new SchedulerClient(config),
  }
}
beforeAll(async () => {
  await resetMotoForSuite()
  ;({ environment } = await createLocalResources(clients(), { prefix: 'a2-operator' }))
})

/** The operator roles of a stack, one granted per command, and how its template names resources. */
function granted() {
  const stack = new Stack(new App({ context: { 'aws:cdk:bundling-stacks': [] } }), 'Test')
  const construct = new A2Agent(stack, 'Agent', { entry: 'functions/example-agent.ts' })
  const roles = Object.fromEntries(
    (['inspect', 'export', 'import', 'erase'] as const).map((command) => {
      const role = new iam.Role(stack, `${command}Operator`, {
        assumedBy: new iam.AccountRootPrincipal(),
      })
      const grant = {
        inspect: () => construct.grantInspect(role),
        export: () => construct.grantExport(role),
        import: () => construct.grantImport(role),
        erase: () => construct.grantErase(role),
      }[command]
      grant()
      return [command, role]
    }),
  ) as Record<OperatorCommand, iam.Role>
  const template = templateOf(stack)
  const schedules = render(
    stack.resolve(
      stack.formatArn({
        service: 'scheduler',
        resource: 'schedule',
        resourceName: `${construct.scheduleGroup.scheduleGroupName}/*`,
      }),
    ),
  )
  const names: ResourceNames = {
    table: () => `<${template.logicalId(construct.table)}.Arn>`,
    schedule: (_group, name) => schedules.replace(/\*$/, name),
  }
  return {
    names,
    statementsOf: (command: OperatorCommand) =>
      roleStatements(template.resources, template.logicalId(roles[command])),
  }
}

/** A session with two turns' worth of events and, for erase, a timer an hour away (a schedule). */
async function seeded(sessionId: string, withTimer = false): Promise<void> {
  const { dynamodb, sqs, scheduler } = clients()
  await eventLog({
    store: dynamoDBEventStore({ client: dynamodb, tableName: environment.tableName }),
  })
    .session(sessionId)
    .append([
      { id: `${sessionId}-1`, type: 'note', payload: { n: 1 } },
      { id: `${sessionId}-2`, type: 'note', payload: { n: 2 } },
    ])
  if (withTimer) {
    await awsAgentParts({ environment, clients: { dynamodb, sqs, scheduler } }).scheduler.schedule({
      sessionId,
      name: 'follow-up',
      at: Date.now() + 3_600_000,
      events: [{ id: `${sessionId}-later`, type: 'note', payload: {} }],
    })
  }
}

/**
 * A client that refuses, as AWS would, every request `statements` does not
 * allow (AccessDeniedException, before anything is done), and records what
 * it lets through.
 */
function enforcing<C extends { send: (...args: never[]) => unknown }>(
  client: C,
  service: SentRequest['service'],
  statements: readonly Statement[] | undefined,
  names: ResourceNames,
  sent: SentRequest[],
): C {
  const recorded = recording(client, service, sent)
  return Object.assign(Object.create(client) as C, {
    send: async (command: { constructor: { name: string }; input: Record<string, unknown> }) => {
      const request: SentRequest = {
        service,
        command: command.constructor.name.replace(/Command$/, ''),
        input: command.input,
      }
      const refused = statements ? denied(statements, authorizationsOf([request], names)) : []
      if (refused.length > 0) {
        throw Object.assign(new Error(`User is not authorized to perform: ${refused[0]}`), {
          name: 'AccessDeniedException',
        })
      }
      return (recorded.send as (command: unknown) => unknown)(command)
    },
  })
}

/** The data command's io on moto: its store, timers and probe on clients that enforce `statements`. */
function operatorIo(
  names: ResourceNames,
  statements?: readonly Statement[],
  { probe = true } = {},
) {
  const sent: SentRequest[] = []
  const probed: SentRequest[] = []
  const out: string[] = []
  const err: string[] = []
  const { dynamodb, scheduler } = clients()
  const io: LifecycleIo = {
    stdout: (text) => void out.push(text),
    stderr: (line) => void err.push(line),
    store: ({ table }) =>
      dynamoDBEventStore({
        client: enforcing(dynamodb, 'dynamodb', statements, names, sent),
        tableName: table,
      }),
    cancelTimers:
      ({ group }) =>
      (sessionId) =>
        cancelSessionSchedules(
          enforcing(scheduler, 'scheduler', statements, names, sent),
          group,
          sessionId,
        ),
    deniedActions: async ({ command, sessionId, scheduleGroup }) =>
      probe
        ? deniedActions(command, {
            dynamodb: enforcing(dynamodb, 'dynamodb', statements, names, probed),
            tableName: environment.tableName,
            sessionId,
            ...(scheduleGroup
              ? {
                  schedules: {
                    scheduler: enforcing(scheduler, 'scheduler', statements, names, probed),
                    groupName: scheduleGroup,
                  },
                }
              : {}),
          })
        : [],
  }
  return { io, sent, probed, out, err }
}

const actionsOf = (requests: readonly SentRequest[], names: ResourceNames) =>
  new Set(authorizationsOf(requests, names).map(({ action }) => action))
const grantedActions = (statements: readonly Statement[]) =>
  new Set(statements.flatMap((statement) => [statement.Action].flat()))

describe("the data commands' policies (grantErase, grantImport, grantExport, grantInspect), as AWS would hold them", () => {
  it('erase --schedule-group: every request it and its probe make is granted, and it needs each action granted', async () => {
    const { names, statementsOf } = granted()
    await seeded('op-erase', true)
    const { io, sent, probed, out } = operatorIo(names, statementsOf('erase'))
    const code = await lifecycleCommand(
      'erase',
      [
        'op-erase',
        '--table',
        environment.tableName,
        '--schedule-group',
        environment.timers.scheduleGroup,
        '--json',
      ],
      io,
    )
    expect(code).toBe(0)
    expect(JSON.parse(out.join(''))).toMatchObject({ events: 2, heads: 1, idGuards: 2, timers: 1 })
    expect(denied(statementsOf('erase'), authorizationsOf([...sent, ...probed], names))).toEqual([])
    // Nothing granted that an erase does not use, but the transaction's
    // ConditionCheck of a late, headless pass (what lands after the head's
    // delete), which this quiet session did not need.
    const used = actionsOf(sent, names)
    expect(
      [...grantedActions(statementsOf('erase'))].filter((action) => !used.has(action)),
    ).toEqual(['dynamodb:ConditionCheckItem'])
  })

  it('import, export and inspect: every request is granted, and each action granted is used', async () => {
    const { names, statementsOf } = granted()
    await seeded('op-source')
    const exported = operatorIo(names, statementsOf('export'))
    expect(
      await lifecycleCommand(
        'export',
        ['op-source', '--table', environment.tableName],
        exported.io,
      ),
    ).toBe(0)
    const jsonl = exported.out.join('')
    expect(jsonl).toContain('"sessionId":"op-source"')

    // Event IDs are unique per table: the copy comes back after the original is erased.
    await lifecycleCommand('erase', ['op-source', '--table', environment.tableName], {
      ...operatorIo(names).io,
    })
    const imported = operatorIo(names, statementsOf('import'))
    imported.io.stdin = async () => jsonl
    expect(
      await lifecycleCommand('import', ['-', '--table', environment.tableName], imported.io),
    ).toBe(0)
    expect(imported.out.join('')).toContain('imported 2 events into session op-source')

    const inspected: SentRequest[] = []
    const lines: string[] = []
    const { dynamodb } = clients()
    expect(
      await inspectCommand(['op-source', '--table', environment.tableName], {
        stdout: (line) => void lines.push(line),
        stderr: () => {},
        dynamoDB: () => enforcing(dynamodb, 'dynamodb', statementsOf('inspect'), names, inspected),
      }),
    ).toBe(0)

    for (const [command, requests] of [
      ['export', exported.sent],
      ['import', [...imported.sent, ...imported.probed]],
      ['inspect', inspected],
    ] as const) {
      expect(denied(statementsOf(command), authorizationsOf(requests, names)), command).toEqual([])
    }
    // Each action granted is used, but three of import's, which an append
    // needs off this plain path: a run met by its own ID guards (the import
    // run again after a failure) reads them and the events they name to
    // tell a replay (BatchGetItem, Query), and a run past a head that lags
    // checks the event it follows (a ConditionCheck).
    for (const [command, requests, unused] of [
      ['export', exported.sent, []],
      [
        'import',
        imported.sent,
        ['dynamodb:Query', 'dynamodb:BatchGetItem', 'dynamodb:ConditionCheckItem'],
      ],
      // The claims the diagnosis asks for (GetItem): a session no agent ran has none to ask.
      ['inspect', inspected, ['dynamodb:GetItem']],
    ] as const) {
      const used = actionsOf(requests, names)
      expect(
        [...grantedActions(statementsOf(command))].filter((action) => !used.has(action)),
        command,
      ).toEqual(unused)
    }
  })
})

describe('a data command with a policy that lacks an action', () => {
  const head = async (sessionId: string) =>
    (
      await clients().dynamodb.send(
        new GetItemCommand({
          TableName: environment.tableName,
          Key: sessionItemKey(sessionId, HEAD_SK),
        }),
      )
    ).Item
  /** The erase policy without one of its actions, as a hand-written policy might be. */
  const lacking = (statements: readonly Statement[], action: string): Statement[] =>
    statements.map((statement) => ({
      ...statement,
      Action: [statement.Action].flat().filter((granted) => granted !== action),
    }))

  it('erase stops before its first write, naming what is missing; the session is as it was', async () => {
    const { names, statementsOf } = granted()
    for (const missing of ['dynamodb:BatchWriteItem', 'dynamodb:DeleteItem']) {
      const sessionId = `op-${missing.split(':')[1]?.toLowerCase()}`
      await seeded(sessionId)
      const before = await clients().dynamodb.send(
        new ScanCommand({ TableName: environment.tableName }),
      )
      const { io, err, sent } = operatorIo(names, lacking(statementsOf('erase'), missing))
      expect(
        await lifecycleCommand('erase', [sessionId, '--table', environment.tableName], io),
      ).toBe(2)
      expect(err.join('\n')).toMatch(
        new RegExp(
          `^a2-aws erase: your AWS credentials may not ${missing}[ ,].*nothing was written.*grantErase`,
        ),
      )
      expect(sent).toEqual([])
      const after = await clients().dynamodb.send(
        new ScanCommand({ TableName: environment.tableName }),
      )
      expect(after.Items).toEqual(before.Items)
      expect(await head(sessionId)).toBeDefined()
    }
  })

  it('would stop half-way without the check: after the seal or the tombstones, its head and guards left (what the review found)', async () => {
    const { names, statementsOf } = granted()
    await seeded('op-halfway')
    const { io } = operatorIo(names, lacking(statementsOf('erase'), 'dynamodb:DeleteItem'), {
      probe: false,
    })
    await expect(
      lifecycleCommand('erase', ['op-halfway', '--table', environment.tableName], io),
    ).rejects.toMatchObject({ name: 'AccessDeniedException' })
    // The events are tombstones now, and the head is still there.
    expect(await head('op-halfway')).toBeDefined()
    const log = eventLog({
      store: dynamoDBEventStore({ client: clients().dynamodb, tableName: environment.tableName }),
    })
    expect((await log.session('op-halfway').read()).length).toBeLessThan(2)
  })

  it("the probe writes nothing on a table that checks no IAM: every answer is an authorized request's refusal", async () => {
    const { dynamodb, scheduler } = clients()
    await seeded('op-probe')
    const before = await dynamodb.send(new ScanCommand({ TableName: environment.tableName }))
    for (const command of ['erase', 'import'] as const) {
      expect(
        await deniedActions(command, {
          dynamodb,
          tableName: environment.tableName,
          sessionId: 'op-probe',
          schedules: { scheduler, groupName: environment.timers.scheduleGroup },
        }),
        command,
      ).toEqual([])
    }
    const after = await dynamodb.send(new ScanCommand({ TableName: environment.tableName }))
    expect(after.Items).toEqual(before.Items)
  })
})
