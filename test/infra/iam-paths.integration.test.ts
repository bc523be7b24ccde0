import { DeleteItemCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb'
import { SchedulerClient } from '@aws-sdk/client-scheduler'
import { SQSClient } from '@aws-sdk/client-sqs'
import { App, Stack } from 'aws-cdk-lib'
import { beforeAll, describe, expect, it } from 'vitest'
import { createLocalResources } from '../../functions/local/runner/resources.ts'
import { A2Agent, type A2AgentProps } from '../../infra/index.ts'
import { type AgentOptions, agent } from '../../shared/agent/index.ts'
import { inputs } from '../../shared/ai.ts'
import { awsAgentParts } from '../../shared/aws/agent-environment.ts'
import type { AwsEnvironment } from '../../shared/aws/environment-variables.ts'
import { eventLog } from '../../shared/index.ts'
import { dynamoDBEventStore } from '../../shared/stores/dynamodb/dynamodb-event-store.ts'
import { eraseSession } from '../../shared/stores/dynamodb/erase-session.ts'
import { HEAD_SK, sessionItemKey } from '../../shared/stores/dynamodb/table-keys.ts'
import { scriptedModel } from '../../shared/testing/scripted-model.ts'
import { awsClientConfig, resetMotoForSuite } from '../support/aws.ts'
import {
  authorizationsOf,
  denied,
  type ResourceNames,
  recording,
  render,
  roleStatements,
  type SentRequest,
} from '../support/iam-policy.ts'
import { templateOf } from '../support/template.ts'

// moto checks no IAM: these run a code path on moto, record every request it
// makes, and check each against the role the construct gives the function
// that runs it on AWS. A missing grant is an AccessDenied only AWS would show.

/** An agent's template (not bundled) and the lookups the checks need. */
function deployed(props: Partial<A2AgentProps> = {}) {
  const stack = new Stack(new App({ context: { 'aws:cdk:bundling-stacks': [] } }), 'Test')
  const construct = new A2Agent(stack, 'Agent', { entry: 'functions/example-agent.ts', ...props })
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
  return {
    construct,
    statementsOf: (fn: keyof A2Agent['functions']) =>
      roleStatements(template.resources, template.logicalId(construct.functions[fn].role as never)),
    names: (environment: AwsEnvironment): ResourceNames => ({
      table: () => `<${template.logicalId(construct.table)}.Arn>`,
      queue: (url) => {
        const lane = Object.entries(environment.queueUrls).find(([, laneUrl]) => laneUrl === url)
        if (!lane) return url
        return `<${template.logicalId(construct.laneQueues[lane[0] as 'admission'])}.Arn>`
      },
      schedule: (_group, name) => schedules.replace(/\*$/, name),
    }),
  }
}

const APPENDING = [
  'http',
  'admission',
  'generation',
  'tools',
  'handlers',
  'ingress',
  'timers',
] as const

let environment: AwsEnvironment
const setup = () => {
  const config = awsClientConfig()
  return {
    dynamodb: new DynamoDBClient(config),
    sqs: new SQSClient(config),
    scheduler: new SchedulerClient(config),
  }
}
beforeAll(async () => {
  await resetMotoForSuite()
  ;({ environment } = await createLocalResources(setup(), { prefix: 'a2-iam' }))
})

describe("retention's heal on append, as the appending functions may do it on AWS", () => {
  /** Every request an append makes that meets a session whose head TTL deleted. */
  async function healRequests(): Promise<SentRequest[]> {
    const { dynamodb } = setup()
    const sessionId = `expired-${Math.random().toString(36).slice(2, 8)}`
    const log = eventLog({
      store: dynamoDBEventStore({ client: dynamodb, tableName: environment.tableName }),
      retentionMs: 60_000,
    })
    await log.session(sessionId).append([
      { id: `${sessionId}-1`, type: 'note', payload: { era: 'old' } },
      { id: `${sessionId}-2`, type: 'note', payload: { era: 'old' } },
    ])
    // What DynamoDB's TTL does: it deletes the head item alone.
    await dynamodb.send(
      new DeleteItemCommand({
        TableName: environment.tableName,
        Key: sessionItemKey(sessionId, HEAD_SK),
      }),
    )
    const sent: SentRequest[] = []
    const healing = eventLog({
      store: dynamoDBEventStore({
        client: recording(dynamodb, 'dynamodb', sent),
        tableName: environment.tableName,
      }),
      retentionMs: 60_000,
    })
    const stored = await healing
      .session(sessionId)
      .append([{ id: `${sessionId}-1`, type: 'note', payload: { era: 'new' } }])
    expect(stored.map((event) => event.index)).toEqual([1])
    return sent
  }

  it('is allowed to every appending function when retention is set: Deletes inside the transaction only', async () => {
    const sent = await healRequests()
    expect(
      sent.some(
        (request) =>
          request.command === 'TransactWriteItems' &&
          JSON.stringify(request.input.TransactItems).includes('"Delete"'),
      ),
    ).toBe(true)
    const retained = deployed({ retention: '30 days' })
    for (const fn of APPENDING) {
      expect(
        denied(retained.statementsOf(fn), authorizationsOf(sent, retained.names(environment))),
        fn,
      ).toEqual([])
      // A lone delete stays denied.
      expect(
        denied(retained.statementsOf(fn), [
          { action: 'dynamodb:DeleteItem', resource: retained.names(environment).table('') },
          { action: 'dynamodb:BatchWriteItem', resource: retained.names(environment).table('') },
        ]),
        fn,
      ).toHaveLength(2)
    }
  })

  it('would be denied without the grant (the review found it: moto passed it, AWS answers AccessDenied)', async () => {
    const sent = await healRequests()
    const kept = deployed()
    expect(
      denied(kept.statementsOf('http'), authorizationsOf(sent, kept.names(environment))),
    ).toEqual([
      expect.stringMatching(
        /^dynamodb:DeleteItem on <AgentTable[0-9A-F]{8}\.Arn> \(.*TransactWriteItems/,
      ),
    ])
  })
})

describe("retention's sweep in the router, as the router function may run it on AWS", () => {
  /** Every request the router's erase of a session whose head TTL deleted makes. */
  async function sweepRequests(): Promise<SentRequest[]> {
    const { dynamodb } = setup()
    const sessionId = `swept-${Math.random().toString(36).slice(2, 8)}`
    await eventLog({
      store: dynamoDBEventStore({ client: dynamodb, tableName: environment.tableName }),
      retentionMs: 60_000,
    })
      .session(sessionId)
      .append([{ id: `${sessionId}-1`, type: 'note', payload: {} }])
    await dynamodb.send(
      new DeleteItemCommand({
        TableName: environment.tableName,
        Key: sessionItemKey(sessionId, HEAD_SK),
      }),
    )
    const sent: SentRequest[] = []
    // What the router's handler runs for a TTL delete of a head (router-handler.ts).
    const receipt = await eraseSession(
      recording(dynamodb, 'dynamodb', sent),
      environment.tableName,
      sessionId,
      { headless: true },
    )
    expect(receipt).toMatchObject({ events: 1, idGuards: 1 })
    return sent
  }

  it('is allowed with retention: reads, and Deletes inside the transaction only', async () => {
    const sent = await sweepRequests()
    const retained = deployed({ retention: '30 days' })
    const table = retained.names(environment).table('')
    expect(
      denied(retained.statementsOf('router'), authorizationsOf(sent, retained.names(environment))),
    ).toEqual([])
    expect(
      denied(retained.statementsOf('router'), [
        { action: 'dynamodb:DeleteItem', resource: table },
        { action: 'dynamodb:BatchWriteItem', resource: table },
        { action: 'dynamodb:PutItem', resource: table },
      ]),
    ).toHaveLength(3)
  })

  it('is denied without retention: the router may touch no item then', async () => {
    const sent = await sweepRequests()
    const kept = deployed()
    const refusals = denied(
      kept.statementsOf('router'),
      authorizationsOf(sent, kept.names(environment)),
    )
    expect(refusals.map((refusal) => refusal.split(' ')[0]).sort()).toEqual([
      'dynamodb:BatchGetItem',
      'dynamodb:ConditionCheckItem',
      'dynamodb:DeleteItem',
      'dynamodb:Query',
    ])
  })
})

/**
 * An agent on the AWS parts over clients that record every request, for
 * checking each against a function's role; `options` joins the agent's.
 */
function recordedAgent(options: Partial<AgentOptions> & { name: string }) {
  const sent: SentRequest[] = []
  const clients = setup()
  const aws = awsAgentParts({
    environment,
    clients: {
      dynamodb: recording(clients.dynamodb, 'dynamodb', sent),
      sqs: recording(clients.sqs, 'sqs', sent),
      scheduler: recording(clients.scheduler, 'scheduler', sent),
    },
  })
  const served = agent({
    model: scriptedModel([]).model,
    store: aws.store,
    dispatcher: aws.dispatcher,
    scheduler: aws.scheduler,
    logger: { info: () => {}, warn: () => {}, error: () => {} },
    ...options,
  })
  return { sent, aws, served }
}

describe('a GET, as the stream function may serve it on AWS', () => {
  it('reads the log and wakes admission for work left in the session, which its role allows, and nothing else', async () => {
    const { sent, served } = recordedAgent({
      name: 'iam-get',
      // The reader comes a minute later, past SQS's redelivery of the
      // message's own wake-up (the dispatcher's redeliversWithinMs).
      now: () => Date.now() + 60_000,
    })
    try {
      // A message the controller has not admitted yet (nothing runs the lanes
      // here): work a reader recovers, so the GET wakes admission.
      await served.runtime.log.session('read-me').append(
        inputs.message({
          id: 'read-me-1',
          role: 'user',
          parts: [{ type: 'text', text: 'Where is my order?' }],
        }),
      )
      sent.length = 0
      const url = 'http://agent.test/agent?sessionId=read-me'
      const stream = await served.fetch(new Request(url))
      const reader = (stream.body as ReadableStream<Uint8Array>).getReader()
      let text = ''
      while (!text.includes(': head '))
        text += new TextDecoder().decode((await reader.read()).value)
      await reader.cancel()
      for (const query of ['&head', '&events', '&claims=k1,k2']) {
        const answer = await served.fetch(new Request(`${url}${query}`))
        expect(answer.status, query).toBe(200)
      }
    } finally {
      served.runtime.close()
    }
    expect(new Set(sent.map((request) => `${request.service} ${request.command}`))).toEqual(
      new Set(['dynamodb GetItem', 'dynamodb Query', 'sqs SendMessageBatch']),
    )
    const template = deployed()
    expect(
      denied(template.statementsOf('stream'), authorizationsOf(sent, template.names(environment))),
    ).toEqual([])
  })
})

describe('session.erase() in a tool or handler, as a lane function may run it on AWS', () => {
  /** Every request an erase makes of a session with events and a pending Scheduler timer. */
  async function eraseRequests(): Promise<SentRequest[]> {
    const { sent, aws, served } = recordedAgent({
      name: 'iam-erase',
    })
    const sessionId = `erase-${Math.random().toString(36).slice(2, 8)}`
    try {
      await served.runtime.log
        .session(sessionId)
        .append([{ id: `${sessionId}-1`, type: 'note', payload: {} }])
      // An hour away: an EventBridge Scheduler schedule, which the erase cancels.
      await aws.scheduler.schedule({
        sessionId,
        name: 'follow-up',
        at: Date.now() + 3_600_000,
        events: [{ id: 'follow-up-1', type: 'note', payload: { later: true } }],
      })
      sent.length = 0
      const receipt = await served.session(sessionId).erase()
      expect(receipt).toMatchObject({ timers: 1, heads: 1, events: 1 })
    } finally {
      served.runtime.close()
    }
    return sent
  }

  it('is allowed to the lane functions with erase: true: the schedules in its group, the table items', async () => {
    const sent = await eraseRequests()
    const kinds = new Set(sent.map((request) => `${request.service} ${request.command}`))
    for (const kind of [
      'scheduler ListSchedules',
      'scheduler DeleteSchedule',
      'dynamodb BatchWriteItem',
      'dynamodb DeleteItem',
    ])
      expect(kinds).toContain(kind)
    const erasing = deployed({ erase: true })
    for (const lane of ['admission', 'generation', 'tools', 'handlers'] as const) {
      expect(
        denied(erasing.statementsOf(lane), authorizationsOf(sent, erasing.names(environment))),
        lane,
      ).toEqual([])
    }
  })

  it('would be denied without it, which is why the functions fail such an erase at once (ERASE_NOT_GRANTED)', async () => {
    const sent = await eraseRequests()
    const kept = deployed()
    const refusals = denied(
      kept.statementsOf('tools'),
      authorizationsOf(sent, kept.names(environment)),
    )
    expect(refusals.map((refusal) => refusal.split(' ')[0])).toEqual(
      expect.arrayContaining([
        'scheduler:ListSchedules',
        'scheduler:DeleteSchedule',
        'dynamodb:BatchWriteItem',
        'dynamodb:DeleteItem',
      ]),
    )
  })
})
