import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { App, RemovalPolicy, Stack } from 'aws-cdk-lib'
import { Match, type Template } from 'aws-cdk-lib/assertions'
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch'
import * as sns from 'aws-cdk-lib/aws-sns'
import { describe, expect, it } from 'vitest'
import { A2Agent } from '../../infra/index.ts'
import { AGENT_METRICS } from '../../shared/agent/wiring/agent-metrics.ts'
import { VERIFY_OUTPUT_DESCRIPTION } from '../../shared/aws/verify-output.ts'
import { cfnLint } from '../support/cfn-lint.ts'
import { type Resource, templateOf, unacknowledgedNagFindings } from '../support/template.ts'

// One synth (with esbuild bundling) for the whole file.
const app = new App()
const stack = new Stack(app, 'Test', { env: { account: '123456789012', region: 'us-east-1' } })
const agent = new A2Agent(stack, 'Agent', { entry: 'functions/example-agent.ts' })
const byDefault = templateOf(stack)
const { template, resources, ofType, logicalId, propertiesOf } = byDefault

// Every prop away from its default, in one more stack (not bundled: only the
// template matters).
const customApp = new App({ context: { 'aws:cdk:bundling-stacks': [] } })
const customStack = new Stack(customApp, 'Customized')
const onCall = new sns.Topic(customStack, 'OnCall', { enforceSSL: true })
const customAgent = new A2Agent(customStack, 'Agent', {
  entry: 'functions/example-agent.ts',
  metrics: { namespace: 'Acme/Agents', service: 'support-prod' },
  tracing: true,
  modelTelemetry: true,
  alarms: {
    topic: onCall,
    turnFailureRate: 0.25,
    routerIteratorAgeMs: 120_000,
    throttles: 'all',
  },
  dashboard: true,
  removalPolicy: RemovalPolicy.DESTROY,
  deletionProtection: false,
  apiGatewayCloudWatchRole: false,
  throttle: { rateLimit: 5, burstLimit: 10 },
  streamConcurrency: false,
  maxConcurrency: { generation: 7, tools: false },
  memorySize: 2048,
  streamMemorySize: 128,
  retention: '30 days',
  erase: true,
})
const custom = templateOf(customStack)
const customized = custom.template

// The defaults but for the dashboard (off by default: $3.00 a month), for its tests.
const dashboardStack = new Stack(new App({ context: { 'aws:cdk:bundling-stacks': [] } }), 'Test')
const dashboarded = new A2Agent(dashboardStack, 'Agent', {
  entry: 'functions/example-agent.ts',
  dashboard: true,
})
const withDashboard = templateOf(dashboardStack)

/**
 * cfn-lint's findings for the default template, the same with one property
 * broken (the linter must catch it), and the customized template: one run
 * for all three, since each start of cfn-lint costs seconds of CPU.
 */
let linted: string[][] | undefined
function lintedTemplates(): string[][] {
  if (!linted) {
    const broken = structuredClone(template.toJSON())
    broken.Resources[logicalId(agent.timerQueue)].Properties.VisibilityTimeout = 'soon'
    linted = cfnLint(template.toJSON(), broken, customized.toJSON())
  }
  return linted
}

describe('the A2Agent template', () => {
  it('keeps the log in an on-demand table with a NEW_IMAGE stream, PITR, TTL, deletion protection and RETAIN by default', () => {
    template.resourceCountIs('AWS::DynamoDB::Table', 1)
    template.hasResource('AWS::DynamoDB::Table', {
      DeletionPolicy: 'Retain',
      Properties: {
        DeletionProtectionEnabled: true,
        BillingMode: 'PAY_PER_REQUEST',
        KeySchema: [
          { AttributeName: 'pk', KeyType: 'HASH' },
          { AttributeName: 'sk', KeyType: 'RANGE' },
        ],
        StreamSpecification: { StreamViewType: 'NEW_IMAGE' },
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true },
      },
    })
  })

  it('takes the removal policy and deletion protection of the table from its props', () => {
    customized.hasResource('AWS::DynamoDB::Table', {
      DeletionPolicy: 'Delete',
      Properties: { DeletionProtectionEnabled: false },
    })
  })

  it('gives every lane and the ingress a high-throughput FIFO queue with a FIFO dead-letter queue', () => {
    for (const queue of [...Object.values(agent.laneQueues), agent.ingressQueue]) {
      const properties = resources[logicalId(queue)]?.Properties ?? {}
      expect(properties.FifoQueue).toBe(true)
      // 300 TPS per API action for the whole queue otherwise (SQS developer
      // guide, "High throughput for FIFO queues").
      expect(properties.FifoThroughputLimit).toBe('perMessageGroupId')
      expect(properties.DeduplicationScope).toBe('messageGroup')
      const redrive = properties.RedrivePolicy as {
        deadLetterTargetArn: { 'Fn::GetAtt': [string] }
        maxReceiveCount: number
      }
      expect(redrive.maxReceiveCount).toBe(5)
      const dlq = resources[redrive.deadLetterTargetArn['Fn::GetAtt'][0]]
      expect(dlq?.Type).toBe('AWS::SQS::Queue')
      expect(dlq?.Properties.FifoQueue).toBe(true)
      expect(dlq?.Properties.MessageRetentionPeriod).toBe(14 * 24 * 3600)
      expect(properties.MessageRetentionPeriod).toBe(4 * 24 * 3600)
    }
    expect(resources[logicalId(agent.ingressQueue)]?.Properties.ContentBasedDeduplication).toBe(
      true,
    )
    // The timer queue is standard: SQS FIFO queues have no per-message delay.
    const timer = resources[logicalId(agent.timerQueue)]?.Properties ?? {}
    expect(timer.FifoQueue).toBeUndefined()
    expect(timer.RedrivePolicy).toBeDefined()
  })

  it('states the message retention of every queue, dead-letter queues keeping theirs longest', () => {
    const queues = ofType('AWS::SQS::Queue')
    expect(queues.length).toBe(14)
    for (const [id, queue] of queues) {
      expect(queue.Properties.MessageRetentionPeriod, id).toBeGreaterThanOrEqual(4 * 24 * 3600)
    }
  })

  it('sets each queue visibility timeout to at least 6x the timeout of the function reading it', () => {
    const mappings = ofType('AWS::Lambda::EventSourceMapping').filter(
      ([, mapping]) =>
        (mapping.Properties.EventSourceArn as { 'Fn::GetAtt'?: [string, string] })[
          'Fn::GetAtt'
        ]?.[1] === 'Arn',
    )
    expect(mappings).toHaveLength(6)
    for (const [, mapping] of mappings) {
      const queueId = (mapping.Properties.EventSourceArn as { 'Fn::GetAtt': [string] })[
        'Fn::GetAtt'
      ][0]
      const functionId = (mapping.Properties.FunctionName as { Ref: string }).Ref
      const visibility = resources[queueId]?.Properties.VisibilityTimeout as number
      const timeout = resources[functionId]?.Properties.Timeout as number
      expect(timeout).toBeGreaterThan(0)
      expect(visibility).toBeGreaterThanOrEqual(6 * timeout)
      expect(mapping.Properties.FunctionResponseTypes).toEqual(['ReportBatchItemFailures'])
    }
  })

  it("caps how many invocations each queue may hold at once, so no queue takes the account's concurrency", () => {
    const caps = Object.fromEntries(
      ofType('AWS::Lambda::EventSourceMapping')
        .filter(([, mapping]) => mapping.Properties.ScalingConfig)
        .map(([, mapping]) => [
          (mapping.Properties.FunctionName as { Ref: string }).Ref,
          (mapping.Properties.ScalingConfig as { MaximumConcurrency: number }).MaximumConcurrency,
        ]),
    )
    // The long lanes and the standard timer queue (a burst of due timers has
    // no bound). Admission, handlers and ingress are FIFO queues of short
    // invocations, one per session with work: uncapped, Lambda's pollers
    // scale down to two when idle, where a cap keeps five (an idle cost).
    expect(caps).toEqual({
      [logicalId(agent.functions.generation)]: 50,
      [logicalId(agent.functions.tools)]: 50,
      [logicalId(agent.functions.timers)]: 5,
    })
    expect(() => {
      const stack = new Stack(new App({ context: { 'aws:cdk:bundling-stacks': [] } }), 'Bad')
      new A2Agent(stack, 'Agent', {
        entry: 'functions/example-agent.ts',
        maxConcurrency: { admission: 1 },
      })
    }).toThrow(
      /maxConcurrency\.admission .* a whole number from 2 to 1,000 \(or false for none\), not 1/,
    )
  })

  it('routes the stream with parallelization 1, bisect on error, partial failures and an on-failure queue', () => {
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      EventSourceArn: { 'Fn::GetAtt': [logicalId(agent.table), 'StreamArn'] },
      FunctionName: { Ref: logicalId(agent.functions.router) },
      StartingPosition: 'TRIM_HORIZON',
      // The backstop waits to gather a turn's records (ROUTER_STREAM; the
      // local runner plays the same window).
      BatchSize: 100,
      MaximumBatchingWindowInSeconds: 3,
      ParallelizationFactor: 1,
      BisectBatchOnFunctionError: true,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      DestinationConfig: {
        OnFailure: { Destination: { 'Fn::GetAtt': [logicalId(agent.routerFailureQueue), 'Arn'] } },
      },
    })
  })

  // Which keys a DynamoDB event source's filter may name: the Lambda guide's
  // DynamoDB page once said "DynamoDB event source mappings only support
  // filtering on the dynamodb key" (older copies of
  // https://docs.aws.amazon.com/lambda/latest/dg/with-ddb-filtering.html
  // still do; the current page no longer has the note), but the record's
  // top-level keys are filtered too: DynamoDB's own TTL guide filters a
  // Lambda mapping on `userIdentity` ("Using DynamoDB Streams and Lambda to
  // archive TTL deleted items",
  // https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/time-to-live-ttl-streams.html),
  // and the CDK's integration test deploys a DynamoDB mapping filtered on
  // `eventName` (aws/aws-cdk, packages/@aws-cdk-testing/framework-integ/test/
  // aws-lambda-event-sources/test/integ.dynamodb-with-filter-criteria.ts).
  // A filter that matched nothing would leave the backstop dead, silently:
  // `npm run verify`'s router check counts its invocations per turn on AWS.
  it("invokes the router only for new event items that may wake a lane (new, or over an erase's tombstone) and, with retention, for TTL deletes of session heads (event filtering, not billed)", () => {
    const routerFilters = (of: ReturnType<typeof templateOf>, router: { node: never }) => {
      const [, mapping] = of
        .ofType('AWS::Lambda::EventSourceMapping')
        .find(
          ([, candidate]) =>
            (candidate.Properties.FunctionName as { Ref: string }).Ref === of.logicalId(router),
        ) as [string, Resource]
      return (mapping.Properties.FilterCriteria as { Filters: { Pattern: string }[] }).Filters.map(
        (filter) => JSON.parse(filter.Pattern),
      )
    }
    const events = {
      eventName: ['INSERT', 'MODIFY'],
      dynamodb: {
        Keys: { sk: { S: [{ prefix: 'E#' }] } },
        NewImage: { t: { S: [{ 'anything-but': ['ai.generation.progress'] }] } },
      },
    }
    expect(routerFilters(byDefault, agent.functions.router as never)).toEqual([events])
    expect(routerFilters(custom, customAgent.functions.router as never)).toEqual([
      events,
      {
        eventName: ['REMOVE'],
        userIdentity: { type: ['Service'], principalId: ['dynamodb.amazonaws.com'] },
        dynamodb: { Keys: { sk: { S: ['#HEAD'] } } },
      },
    ])
  })

  it('runs every function on nodejs22.x and ARM64, bundled (no Docker) with the agent module', () => {
    expect(ofType('AWS::Lambda::Function')).toHaveLength(10)
    const functions = Object.values(agent.functions).map(
      (fn) => [logicalId(fn), resources[logicalId(fn)]] as [string, Resource],
    )
    expect(functions).toHaveLength(9)
    for (const [, fn] of functions) {
      expect(fn.Properties.Runtime).toBe('nodejs22.x')
      expect(fn.Properties.Architectures).toEqual(['arm64'])
      expect(
        (fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables,
      ).toMatchObject({
        A2_TABLE_NAME: { Ref: logicalId(agent.table) },
        A2_AGENT_EXPORT: 'default',
        // The lanes dead-letter on the session at the queues' last receive.
        A2_MAX_RECEIVE_COUNT: '5',
      })
    }
    expect(functions.map(([, fn]) => fn.Properties.Handler).sort()).toEqual([
      'index.admissionLane',
      'index.generationLane',
      'index.handlersLane',
      'index.http',
      'index.http',
      'index.ingress',
      'index.router',
      'index.timers',
      'index.toolsLane',
    ])
  })

  it('serves GET (streamed SSE, 30 s, its own function) and POST on one REGIONAL REST resource', () => {
    template.hasResourceProperties('AWS::ApiGateway::RestApi', {
      EndpointConfiguration: { Types: ['REGIONAL'] },
    })
    template.resourceCountIs('AWS::ApiGateway::Resource', 1)
    const integrationOf = (method: string) =>
      JSON.stringify(
        ofType('AWS::ApiGateway::Method').find(
          ([, candidate]) => candidate.Properties.HttpMethod === method,
        )?.[1].Properties.Integration,
      )
    template.hasResourceProperties('AWS::ApiGateway::Method', {
      HttpMethod: 'GET',
      Integration: {
        Type: 'AWS_PROXY',
        ResponseTransferMode: 'STREAM',
        TimeoutInMillis: 30_000,
        Uri: {
          'Fn::Join': [
            '',
            Match.arrayWith([Match.stringLikeRegexp('/response-streaming-invocations$')]),
          ],
        },
      },
    })
    template.hasResourceProperties('AWS::ApiGateway::Method', {
      HttpMethod: 'POST',
      Integration: { Type: 'AWS_PROXY', ResponseTransferMode: 'STREAM' },
    })
    expect(integrationOf('GET')).toContain(logicalId(agent.functions.stream))
    expect(integrationOf('POST')).toContain(logicalId(agent.functions.http))
    expect(integrationOf('POST')).not.toContain(logicalId(agent.functions.stream))
  })

  it('gives the stream function 192 MB and 30 s (a closed tab ends within 30 s), the generation function 256 MB (it waits on the model), every other function 1024 MB', () => {
    expect(propertiesOf(agent.functions.stream)).toMatchObject({ MemorySize: 192, Timeout: 30 })
    expect(propertiesOf(agent.functions.generation).MemorySize).toBe(256)
    for (const [name, fn] of Object.entries(agent.functions)) {
      if (name !== 'stream' && name !== 'generation')
        expect(propertiesOf(fn).MemorySize, name).toBe(1024)
    }
    expect(propertiesOf(agent.functions.http).Timeout).toBe(30)
    const sizes = Object.entries(customized.findResources('AWS::Lambda::Function'))
      .filter(([id]) => id.startsWith('Agent'))
      .map(([id, fn]) => [id.replace(/[0-9A-F]{8}$/, ''), fn.Properties.MemorySize])
    expect(sizes).toContainEqual(['AgentStreamFunction', 128])
    expect(sizes).toContainEqual(['AgentHttpFunction', 2048])
    // memorySize set and generationMemorySize not: the generation function follows it.
    expect(sizes).toContainEqual(['AgentGenerationFunction', 2048])
  })

  it("creates the account's API Gateway CloudWatch role before the stage that logs, so a fresh account deploys", () => {
    const [[accountId, account] = []] = ofType('AWS::ApiGateway::Account')
    const roleArn = account?.Properties.CloudWatchRoleArn as { 'Fn::GetAtt': [string, string] }
    expect(resources[roleArn['Fn::GetAtt'][0]]?.Type).toBe('AWS::IAM::Role')
    // Other APIs in the account may log through it: it outlives the stack.
    expect(account?.DeletionPolicy).toBe('Retain')
    const [[, stage] = []] = ofType('AWS::ApiGateway::Stage')
    expect(stage?.DependsOn).toContain(accountId)
    expect(stage?.Properties.AccessLogSetting).toBeDefined()
    expect(stage?.Properties.MethodSettings).toEqual([
      expect.objectContaining({
        HttpMethod: '*',
        ResourcePath: '/*',
        LoggingLevel: 'ERROR',
        DataTraceEnabled: false,
        ThrottlingRateLimit: 100,
        ThrottlingBurstLimit: 200,
      }),
    ])
  })

  // API Gateway makes `API-Gateway-Execution-Logs_{restApiId}/{stage}`
  // itself on the stage's first execution log, with no retention, and it
  // survives `cdk destroy` (API Gateway developer guide, "Set up CloudWatch
  // logging for REST APIs"): the stack creates it first, as its others.
  it("creates the stage's execution log group itself, kept a month and deleted with the stack, before the stage", () => {
    const [[restApiId] = []] = ofType('AWS::ApiGateway::RestApi')
    const [[, stage] = []] = ofType('AWS::ApiGateway::Stage')
    const execution = ofType('AWS::Logs::LogGroup').filter(([, group]) =>
      JSON.stringify(group.Properties.LogGroupName ?? '').includes('API-Gateway-Execution-Logs_'),
    )
    expect(execution).toHaveLength(1)
    const [[id, group] = []] = execution
    expect(group?.Properties.LogGroupName).toEqual({
      'Fn::Join': ['', ['API-Gateway-Execution-Logs_', { Ref: restApiId }, '/prod']],
    })
    expect(group?.Properties.RetentionInDays).toBe(30)
    expect(group?.DeletionPolicy).toBe('Delete')
    expect(stage?.DependsOn).toContain(id)
    expect(stage?.Properties.StageName).toBe('prod')
  })

  it('leaves the account role alone when the account manages it centrally, and takes the caps from props', () => {
    customized.resourceCountIs('AWS::ApiGateway::Account', 0)
    customized.resourceCountIs('Custom::A2ReservedConcurrency', 0)
    customized.hasResourceProperties('AWS::ApiGateway::Stage', {
      MethodSettings: [Match.objectLike({ ThrottlingRateLimit: 5, ThrottlingBurstLimit: 10 })],
    })
    customized.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      ScalingConfig: { MaximumConcurrency: 7 },
    })
    // The cap on tools lifted (false), and none set on the others.
    expect(
      custom
        .ofType('AWS::Lambda::EventSourceMapping')
        .filter(([, mapping]) => mapping.Properties.ScalingConfig)
        .map(([, mapping]) => (mapping.Properties.FunctionName as { Ref: string }).Ref),
    ).toEqual(
      expect.arrayContaining([
        custom.logicalId(customAgent.functions.generation),
        custom.logicalId(customAgent.functions.timers),
      ]),
    )
    expect(
      JSON.stringify(
        custom
          .ofType('AWS::Lambda::EventSourceMapping')
          .find(
            ([, mapping]) =>
              (mapping.Properties.FunctionName as { Ref: string }).Ref ===
              custom.logicalId(customAgent.functions.tools),
          )?.[1].Properties,
      ),
    ).not.toContain('ScalingConfig')
  })

  it('with retention, lets every appending function delete inside a TransactWriteItems only (the heal on append), and no function by default', () => {
    const deletes = (tmpl: ReturnType<typeof templateOf>, fn: { role?: unknown }): Statement[] =>
      tmpl
        .ofType('AWS::IAM::Policy')
        .filter(([, policy]) =>
          (policy.Properties.Roles as { Ref: string }[]).some(
            (role) => role.Ref === tmpl.logicalId(fn.role as never),
          ),
        )
        .flatMap(
          ([, policy]) =>
            (policy.Properties.PolicyDocument as { Statement: Statement[] }).Statement,
        )
        .filter(
          (statement) =>
            actions(statement).includes('dynamodb:DeleteItem') &&
            (statement as { Condition?: unknown }).Condition !== undefined,
        )
    for (const name of [
      'http',
      'admission',
      'generation',
      'tools',
      'handlers',
      'ingress',
      'timers',
    ] as const) {
      expect(deletes(custom, customAgent.functions[name]), name).toEqual([
        {
          Action: 'dynamodb:DeleteItem',
          Effect: 'Allow',
          Resource: { 'Fn::GetAtt': [custom.logicalId(customAgent.table), 'Arn'] },
          // A Delete in a transaction is authorized as DeleteItem; the condition
          // keeps a lone DeleteItem or BatchWriteItem denied.
          Condition: { StringEquals: { 'dynamodb:EnclosingOperation': 'TransactWriteItems' } },
        },
      ])
      expect(deletes(byDefault, agent.functions[name]), name).toEqual([])
    }
    expect(deletes(custom, customAgent.functions.stream)).toEqual([])
  })

  it('lets no function erase a session by default, and tells each so (A2_ERASE); with erase: true the lanes may', () => {
    const policyOf = (tmpl: ReturnType<typeof templateOf>, fn: { role?: unknown }) =>
      tmpl
        .ofType('AWS::IAM::Policy')
        .filter(([, policy]) =>
          (policy.Properties.Roles as { Ref: string }[]).some(
            (role) => role.Ref === tmpl.logicalId(fn.role as never),
          ),
        )
        .flatMap(
          ([, policy]) =>
            (policy.Properties.PolicyDocument as { Statement: Statement[] }).Statement,
        )
    // What an erase needs; a DeleteItem conditioned on a transaction (retention's) is not it.
    const eraseActions = (statements: (Statement & { Condition?: unknown })[]) =>
      statements
        .filter((statement) => statement.Condition === undefined)
        .flatMap((statement) => actions(statement).map((action) => [action, statement.Resource]))
        .filter(([action]) =>
          [
            'scheduler:ListSchedules',
            'scheduler:DeleteSchedule',
            'dynamodb:BatchWriteItem',
            'dynamodb:DeleteItem',
          ].includes(action as string),
        )
    for (const [name, fn] of Object.entries(agent.functions)) {
      expect(variablesOf(resources[logicalId(fn)]).A2_ERASE, name).toBe('not-granted')
      expect(eraseActions(policyOf(byDefault, fn)), name).toEqual([])
    }
    const lanes = ['admission', 'generation', 'tools', 'handlers']
    for (const [name, fn] of Object.entries(customAgent.functions)) {
      const lane = lanes.includes(name)
      expect(variablesOf(custom.resources[custom.logicalId(fn)]).A2_ERASE, name).toBe(
        lane ? 'granted' : 'not-granted',
      )
      if (!lane) {
        expect(eraseActions(policyOf(custom, fn)), name).toEqual([])
        continue
      }
      const granted = eraseActions(policyOf(custom, fn))
      expect(granted.map(([action]) => action).sort(), name).toEqual([
        'dynamodb:BatchWriteItem',
        'dynamodb:DeleteItem',
        'scheduler:DeleteSchedule',
        'scheduler:ListSchedules',
      ])
      // ListSchedules takes no resource; DeleteSchedule only the agent's group.
      expect(granted.find(([action]) => action === 'scheduler:ListSchedules')?.[1], name).toBe('*')
      expect(
        JSON.stringify(granted.find(([action]) => action === 'scheduler:DeleteSchedule')?.[1]),
        name,
      ).toContain(':schedule/')
    }
  })

  it('passes retention to every function as A2_RETENTION, and sets none by default', () => {
    const environments = (template: Template) =>
      Object.values(template.findResources('AWS::Lambda::Function'))
        .map((fn) => fn.Properties.Environment?.Variables)
        .filter((variables) => variables?.A2_TABLE_NAME !== undefined)
    expect(environments(customized).length).toBeGreaterThan(0)
    for (const variables of environments(customized)) expect(variables.A2_RETENTION).toBe('30 days')
    for (const variables of environments(template))
      expect(variables).not.toHaveProperty('A2_RETENTION')
  })

  it('reserves concurrency for the stream function when the account can spare it', () => {
    const [[, reservation] = []] = ofType('Custom::A2ReservedConcurrency')
    expect(reservation?.Properties).toMatchObject({
      FunctionName: { Ref: logicalId(agent.functions.stream) },
      Requested: 100,
    })
    // Not a plain ReservedConcurrentExecutions: that fails a new account's first deploy.
    for (const fn of Object.values(agent.functions)) {
      expect(resources[logicalId(fn)]?.Properties.ReservedConcurrentExecutions).toBeUndefined()
    }
  })

  it('lets Scheduler, and only Scheduler of this account and this schedule group, assume a role that sends to the timer queue and its DLQ', () => {
    const role = resources[logicalId(agent.schedulerRole)]?.Properties ?? {}
    // The group's ARN, with StringEquals: a schedule ARN or a pattern makes
    // Scheduler unable to assume the role (Scheduler user guide, "Confused
    // deputy prevention").
    expect(role.AssumeRolePolicyDocument).toEqual({
      Version: '2012-10-17',
      Statement: [
        {
          Action: 'sts:AssumeRole',
          Effect: 'Allow',
          Principal: { Service: 'scheduler.amazonaws.com' },
          Condition: {
            StringEquals: {
              'aws:SourceAccount': '123456789012',
              'aws:SourceArn': { 'Fn::GetAtt': [logicalId(agent.scheduleGroup), 'Arn'] },
            },
          },
        },
      ],
    })
    const statements = policyStatementsOf(logicalId(agent.schedulerRole))
    expect(statements.every((statement) => actions(statement).includes('sqs:SendMessage'))).toBe(
      true,
    )
    expect(statements.flatMap(actions).filter((action) => !action.startsWith('sqs:Get'))).toEqual([
      'sqs:SendMessage',
      'sqs:SendMessage',
    ])
    expect(statements.map((statement) => statement.Resource)).toEqual([
      { 'Fn::GetAtt': [logicalId(agent.timerQueue), 'Arn'] },
      { 'Fn::GetAtt': [expect.stringMatching(/^AgentSchedulerDeadLetterQueue/), 'Arn'] },
    ])
    template.resourceCountIs('AWS::Scheduler::ScheduleGroup', 1)
  })

  it('scopes each function to what it does: the table and the lane queues for those that append, timers for the lanes only', () => {
    const table = { 'Fn::GetAtt': [logicalId(agent.table), 'Arn'] }
    const laneQueueArns = Object.values(agent.laneQueues).map((queue) => ({
      'Fn::GetAtt': [logicalId(queue), 'Arn'],
    }))
    const timerQueue = { 'Fn::GetAtt': [logicalId(agent.timerQueue), 'Arn'] }
    const lanes = ['admission', 'generation', 'tools', 'handlers'] as const
    for (const name of [...lanes, 'http', 'ingress', 'timers'] as const) {
      const lane = (lanes as readonly string[]).includes(name)
      const statements = policyStatementsOf(logicalId(agent.functions[name].role as never))
      const dynamo = statements.filter((statement) =>
        actions(statement).some((action) => action.startsWith('dynamodb:')),
      )
      expect(
        dynamo.map((statement) => statement.Resource),
        name,
      ).toEqual([table])
      expect(actions(dynamo[0] as Statement).sort(), name).toEqual([
        'dynamodb:BatchGetItem',
        'dynamodb:ConditionCheckItem',
        'dynamodb:GetItem',
        'dynamodb:PutItem',
        'dynamodb:Query',
        'dynamodb:UpdateItem',
      ])
      const sends = statements
        .filter((statement) => actions(statement).includes('sqs:SendMessage'))
        .map((statement) => statement.Resource)
      expect(sends, name).toEqual(
        expect.arrayContaining(lane ? [...laneQueueArns, timerQueue] : laneQueueArns),
      )
      expect(sends, name).toHaveLength(lane ? 5 : 4)
      const passRole = statements.find((statement) => actions(statement).includes('iam:PassRole'))
      const schedules = statements.find((statement) =>
        actions(statement).includes('scheduler:CreateSchedule'),
      )
      if (lane) {
        expect(passRole?.Resource, name).toEqual({
          'Fn::GetAtt': [logicalId(agent.schedulerRole), 'Arn'],
        })
        expect(JSON.stringify(schedules?.Resource), name).toContain(`:schedule/`)
        expect(JSON.stringify(schedules?.Resource), name).toContain(
          `/${agent.scheduleGroup.scheduleGroupName}/*`,
        )
      } else {
        expect(passRole, name).toBeUndefined()
        expect(schedules, name).toBeUndefined()
      }
      for (const statement of statements) expect(statement.Resource, name).not.toBe('*')
    }
    // GET only reads: it streams the log, answers heads and claims, and wakes
    // admission for a reader's recovery. No writes, no other lane.
    const stream = policyStatementsOf(logicalId(agent.functions.stream.role as never))
    const streamDynamo = stream.filter((statement) =>
      actions(statement).some((action) => action.startsWith('dynamodb:')),
    )
    expect(
      streamDynamo.map((statement) => [actions(statement).sort(), statement.Resource]),
    ).toEqual([[['dynamodb:BatchGetItem', 'dynamodb:GetItem', 'dynamodb:Query'], table]])
    expect(
      stream
        .filter((statement) => actions(statement).some((action) => action.startsWith('sqs:')))
        .map((statement) => statement.Resource),
    ).toEqual([{ 'Fn::GetAtt': [logicalId(agent.laneQueues.admission), 'Arn'] }])
    expect(stream.flatMap(actions).filter((action) => /^(scheduler|iam):/.test(action))).toEqual([])

    // The router reads the stream; without retention it may touch no item.
    const streamActions = ['ListStreams', 'DescribeStream', 'GetRecords', 'GetShardIterator']
    const routerOnItems = (statements: (Statement & { Condition?: unknown })[]) =>
      statements
        .filter((statement) =>
          actions(statement).some(
            (action) =>
              action.startsWith('dynamodb:') &&
              !streamActions.includes(action.slice('dynamodb:'.length)),
          ),
        )
        .map((statement) => [actions(statement), statement.Resource, statement.Condition])
    const router = policyStatementsOf(logicalId(agent.functions.router.role as never))
    expect(router.flatMap(actions)).toContain('dynamodb:GetRecords')
    expect(routerOnItems(router)).toEqual([])
    // Retention gains it exactly this on the table's items: read a session's
    // partition and ID guards, and delete them in transactions that check the
    // head is absent (the appenders' EnclosingOperation condition). It never
    // writes an item, and never deletes one outside a transaction.
    const retained = custom
      .ofType('AWS::IAM::Policy')
      .flatMap(([, policy]) =>
        (policy.Properties.Roles as { Ref: string }[]).some(
          (role) => role.Ref === custom.logicalId(customAgent.functions.router.role as never),
        )
          ? (policy.Properties.PolicyDocument as { Statement: Statement[] }).Statement
          : [],
      )
    const customTable = { 'Fn::GetAtt': [custom.logicalId(customAgent.table), 'Arn'] }
    expect(routerOnItems(retained)).toEqual([
      [['dynamodb:Query', 'dynamodb:BatchGetItem'], customTable, undefined],
      [
        ['dynamodb:ConditionCheckItem', 'dynamodb:DeleteItem'],
        customTable,
        { StringEquals: { 'dynamodb:EnclosingOperation': 'TransactWriteItems' } },
      ],
    ])
    for (const forbidden of ['PutItem', 'UpdateItem', 'BatchWriteItem', 'GetItem', 'Scan'])
      expect(retained.flatMap(actions)).not.toContain(`dynamodb:${forbidden}`)
  })

  // AWSLambdaBasicExecutionRole, which a function's own role would carry,
  // allows logs:CreateLogGroup, CreateLogStream and PutLogEvents on `*`:
  // every log group of the account.
  it('lets each function write its own log group and no other: no managed basic execution role', () => {
    for (const [id, role] of ofType('AWS::IAM::Role')) {
      expect(JSON.stringify(role.Properties.ManagedPolicyArns ?? []), id).not.toContain(
        'AWSLambdaBasicExecutionRole',
      )
    }
    const reservation = agent.node.findChild('StreamConcurrency').node.findChild('Function')
    const fns = [...Object.entries(agent.functions), ['StreamConcurrency', reservation] as const]
    for (const [name, fn] of fns) {
      const { Properties } = resources[logicalId(fn as never)] as Resource
      const roleId = (Properties.Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0]
      const logGroupId = (Properties.LoggingConfig as { LogGroup: { Ref: string } }).LogGroup.Ref
      const logging = policyStatementsOf(roleId).filter((statement) =>
        actions(statement).some((action) => action.startsWith('logs:')),
      )
      expect(
        logging.map((statement) => [actions(statement).sort(), statement.Resource]),
        name,
      ).toEqual([
        [['logs:CreateLogStream', 'logs:PutLogEvents'], { 'Fn::GetAtt': [logGroupId, 'Arn'] }],
      ])
      expect(resources[logGroupId]?.Type, name).toBe('AWS::Logs::LogGroup')
    }
  })

  it("lets each queue function change the visibility of its own messages (the lease), and no other queue's", () => {
    for (const name of [
      'admission',
      'generation',
      'tools',
      'handlers',
      'ingress',
      'timers',
    ] as const) {
      const statements = policyStatementsOf(logicalId(agent.functions[name].role as never))
      const visibility = statements.filter((statement) =>
        actions(statement).includes('sqs:ChangeMessageVisibility'),
      )
      const queue =
        name === 'ingress'
          ? agent.ingressQueue
          : name === 'timers'
            ? agent.timerQueue
            : agent.laneQueues[name]
      expect(
        visibility.map((statement) => statement.Resource),
        name,
      ).toEqual([{ 'Fn::GetAtt': [logicalId(queue), 'Arn'] }])
    }
  })

  it('ships source maps that name files and lines but carry no sources, which every cold start would parse', () => {
    const maps = readdirSync(app.outdir, { recursive: true, encoding: 'utf8' }).filter((file) =>
      file.endsWith('index.mjs.map'),
    )
    expect(maps.length).toBeGreaterThan(0)
    for (const file of maps) {
      const map = JSON.parse(readFileSync(join(app.outdir, file), 'utf8'))
      expect(map.sources.length, file).toBeGreaterThan(0)
      expect(map.sourcesContent, file).toBeUndefined()
    }
  })

  it('puts what npm run verify needs in one JSON output, marked by its description', () => {
    const outputs = Object.values(template.toJSON().Outputs ?? {}) as {
      Description?: string
      Value: unknown
    }[]
    const marked = outputs.filter((output) => output.Description === VERIFY_OUTPUT_DESCRIPTION)
    expect(marked).toHaveLength(1)
    // References rendered as placeholders: <Ref Id> and <Id.Attribute>.
    const render = (value: unknown): string => {
      if (typeof value === 'string') return value
      const node = value as Record<string, unknown>
      if ('Ref' in node) return `<Ref ${node.Ref}>`
      if ('Fn::GetAtt' in node) return `<${(node['Fn::GetAtt'] as string[]).join('.')}>`
      const [separator, parts] = node['Fn::Join'] as [string, unknown[]]
      return parts.map(render).join(separator)
    }
    const config = JSON.parse(render(marked[0]?.Value))
    const id = (construct: { node: { defaultChild?: unknown } }) => logicalId(construct)
    expect(config).toEqual({
      path: 'Test/Agent',
      url: expect.stringMatching(new RegExp(`^https://<Ref ${id(agent.api)}>\\..+/agent$`)),
      region: 'us-east-1',
      scheduleGroup: propertiesOf(agent.scheduleGroup).Name,
      schedulerRoleArn: `<${id(agent.schedulerRole)}.Arn>`,
      timerQueueArn: `<${id(agent.timerQueue)}.Arn>`,
      timerQueueUrl: `<Ref ${id(agent.timerQueue)}>`,
      schedulerDeadLetterQueueArn: `<${id(agent.schedulerDeadLetterQueue)}.Arn>`,
      streamLogGroup: `<Ref ${stack.getLogicalId(agent.functions.stream.logGroup.node.defaultChild as never)}>`,
      routerLogGroup: `<Ref ${stack.getLogicalId(agent.functions.router.logGroup.node.defaultChild as never)}>`,
      // The default: 21 alarms on 22 metrics, without actions (verify warns).
      alarms: { count: 21, metrics: 22, notifying: 0 },
      // Lambda concurrency as the deploy found it (verify warns on a small quota).
      concurrency: {
        lanes: 105,
        uncappedQueues: 3,
        streamsRequested: 100,
        streamsReserved: expect.stringMatching(/^<AgentStreamConcurrency.*\.Reserved>$/),
        accountLimit: expect.stringMatching(/^<AgentStreamConcurrency.*\.AccountLimit>$/),
      },
    })
    // With a topic, every alarm notifies it.
    const customConfig = JSON.parse(
      render(
        (
          Object.values(customized.toJSON().Outputs ?? {}) as {
            Description?: string
            Value: unknown
          }[]
        ).find((output) => output.Description === VERIFY_OUTPUT_DESCRIPTION)?.Value,
      ),
    )
    expect(customConfig.alarms).toEqual({ count: 28, metrics: 29, notifying: 28 })
    // The log group is the one the GET method's function writes to.
    expect(propertiesOf(agent.functions.stream).LoggingConfig).toMatchObject({
      LogGroup: { Ref: config.streamLogGroup.slice(5, -1) },
    })
  })

  it('grants no model and reads no secret unless the props name them (bedrockModels, secrets)', () => {
    const json = JSON.stringify(template.toJSON())
    expect(json).not.toContain('bedrock:')
    expect(json).not.toContain('A2_SECRETS')
    // The one secret read: the session key, by the HTTP functions (auth: 'capability').
    const secretReads = Object.values(template.findResources('AWS::IAM::Policy')).filter((policy) =>
      JSON.stringify(policy).includes('secretsmanager:'),
    )
    expect(secretReads).toHaveLength(2)
    for (const policy of secretReads) expect(JSON.stringify(policy)).toContain('SessionKey')
  })

  it('passes cfn-lint with no errors', () => {
    // The linter itself must find what it should: a queue whose visibility is not a number.
    const [ours = [], mangled = []] = lintedTemplates()
    expect(ours.filter((finding) => finding.startsWith('E'))).toEqual([])
    expect(mangled.some((finding) => finding.startsWith('E'))).toBe(true)
  }, 120_000)

  it('passes cfn-lint with no errors with every prop away from its default (alarm actions, tracing)', () => {
    const [, , findings = []] = lintedTemplates()
    expect(findings.filter((finding) => finding.startsWith('E'))).toEqual([])
  }, 60_000)

  it('passes cdk-nag AwsSolutions with every acknowledged finding explained, with every prop away from its default too', () => {
    expect(unacknowledgedNagFindings(stack)).toEqual([])
    expect(unacknowledgedNagFindings(customStack)).toEqual([])
  }, 30_000)
})

type Alarm = {
  MetricName?: string
  Namespace?: string
  Dimensions?: { Name: string; Value: unknown }[]
  Threshold: number
  AlarmActions?: unknown[]
  OKActions?: unknown[]
  Metrics?: {
    Id: string
    Expression?: string
    MetricStat?: {
      Metric: {
        MetricName: string
        Namespace: string
        Dimensions: { Name: string; Value: unknown }[]
      }
    }
  }[]
}
const alarmsOf = (template: ReturnType<typeof templateOf>): Alarm[] =>
  template.ofType('AWS::CloudWatch::Alarm').map(([, alarm]) => alarm.Properties as Alarm)
const variablesOf = (fn: Resource | undefined): Record<string, unknown> =>
  (fn?.Properties.Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables ??
  {}
const functionsOf = (template: ReturnType<typeof templateOf>, a: A2Agent) =>
  Object.entries(a.functions).map(
    ([name, fn]) => [name, template.resources[template.logicalId(fn)]] as const,
  )
const ref = (
  template: ReturnType<typeof templateOf>,
  construct: { node: { defaultChild?: unknown } },
) => ({
  Ref: template.logicalId(construct),
})

describe('the A2Agent metrics and traces', () => {
  it('tells every function where its metrics go: namespace a2 and the construct path as the service', () => {
    for (const [name, fn] of functionsOf(byDefault, agent)) {
      expect(variablesOf(fn), name).toMatchObject({
        A2_METRICS_NAMESPACE: 'a2',
        A2_METRICS_SERVICE: 'Test/Agent',
      })
      expect(variablesOf(fn).A2_MODEL_TELEMETRY, name).toBeUndefined()
    }
    for (const [name, fn] of functionsOf(custom, customAgent)) {
      expect(variablesOf(fn), name).toMatchObject({
        A2_METRICS_NAMESPACE: 'Acme/Agents',
        A2_METRICS_SERVICE: 'support-prod',
        A2_MODEL_TELEMETRY: 'true',
      })
    }
  })

  it('traces no function by default (no X-Ray cost, no wildcard grant), and every function with tracing: true', () => {
    for (const [name, fn] of functionsOf(byDefault, agent)) {
      expect(fn?.Properties.TracingConfig, name).toBeUndefined()
      expect(variablesOf(fn).POWERTOOLS_TRACE_ENABLED, name).toBe('false')
    }
    for (const [name, fn] of functionsOf(custom, customAgent)) {
      expect(fn?.Properties.TracingConfig, name).toEqual({ Mode: 'Active' })
      expect(variablesOf(fn).POWERTOOLS_TRACE_ENABLED, name).toBe('true')
    }
    const xrayActions = (template: ReturnType<typeof templateOf>) =>
      JSON.stringify(template.ofType('AWS::IAM::Policy')).match(/xray:PutTraceSegments/g) ?? []
    expect(xrayActions(byDefault)).toEqual([])
    expect(xrayActions(custom)).toHaveLength(9)
  })
})

describe('the A2Agent alarms', () => {
  const alarms = alarmsOf(byDefault)

  it('alarms on a message visible in any dead-letter queue, the Scheduler DLQ and the router failure queue included', () => {
    const watched = alarms
      .filter((alarm) => alarm.MetricName === 'ApproximateNumberOfMessagesVisible')
      .map((alarm) => {
        expect(alarm.Threshold).toBe(1)
        return alarm.Dimensions?.[0]?.Value
      })
    const queues = [
      ...Object.values(agent.laneDeadLetterQueues),
      agent.ingressDeadLetterQueue,
      agent.timerDeadLetterQueue,
      agent.schedulerDeadLetterQueue,
      agent.routerFailureQueue,
    ].map((queue) => ({ 'Fn::GetAtt': [byDefault.logicalId(queue), 'QueueName'] }))
    expect(watched).toHaveLength(8)
    expect(watched).toEqual(expect.arrayContaining(queues))
  })

  it("alarms when the stream router falls a minute behind the table's stream", () => {
    const [iteratorAge] = alarms.filter((alarm) => alarm.MetricName === 'IteratorAge')
    expect(iteratorAge?.Dimensions).toEqual([
      { Name: 'FunctionName', Value: ref(byDefault, agent.functions.router) },
    ])
    expect(iteratorAge?.Threshold).toBe(60_000)
    const [slower] = alarmsOf(custom).filter((alarm) => alarm.MetricName === 'IteratorAge')
    expect(slower?.Threshold).toBe(120_000)
  })

  it("alarms on any Lambda error per function, and on the API functions' throttles (every function's with throttles: 'all')", () => {
    const alarmed = (from: Alarm[], metric: string) =>
      from
        .filter((alarm) => alarm.MetricName === metric && alarm.Namespace === 'AWS/Lambda')
        .map((alarm) => alarm.Dimensions?.[0]?.Value)
    const errors = alarmed(alarms, 'Errors')
    expect(errors).toHaveLength(9)
    expect(errors).toEqual(
      expect.arrayContaining(Object.values(agent.functions).map((fn) => ref(byDefault, fn))),
    )
    // A throttle of the http or stream function is a refused POST or GET; the
    // others' show as the router's iterator age and as dead letters.
    expect(alarmed(alarms, 'Throttles')).toEqual([
      ref(byDefault, agent.functions.http),
      ref(byDefault, agent.functions.stream),
    ])
    const everyThrottle = alarmed(alarmsOf(custom), 'Throttles')
    expect(everyThrottle).toHaveLength(9)
    expect(everyThrottle).toEqual(
      expect.arrayContaining(Object.values(customAgent.functions).map((fn) => ref(custom, fn))),
    )
  })

  it("alarms on failed model steps per turn above a rate, from the functions' own EMF metrics", () => {
    const [failures] = alarms.filter((alarm) => alarm.Metrics !== undefined)
    expect(failures?.Threshold).toBe(0.1)
    const expression = failures?.Metrics?.find((metric) => metric.Expression)
    expect(expression?.Expression).toBe('IF(FILL(started, 0) > 0, FILL(failed, 0) / started, 0)')
    const inputs = Object.fromEntries(
      (failures?.Metrics ?? [])
        .filter((metric) => metric.MetricStat)
        .map((metric) => [metric.Id, metric.MetricStat?.Metric]),
    )
    // The very namespace and service the functions write to.
    const [, fn] = functionsOf(byDefault, agent)[0] ?? []
    const service = [{ Name: 'service', Value: variablesOf(fn).A2_METRICS_SERVICE }]
    expect(inputs).toEqual({
      started: {
        MetricName: 'TurnsStarted',
        Namespace: variablesOf(fn).A2_METRICS_NAMESPACE,
        Dimensions: service,
      },
      failed: {
        MetricName: 'TurnsFailed',
        Namespace: variablesOf(fn).A2_METRICS_NAMESPACE,
        Dimensions: service,
      },
    })
    const [customFailures] = alarmsOf(custom).filter((alarm) => alarm.Metrics !== undefined)
    expect(customFailures?.Threshold).toBe(0.25)
    expect(JSON.stringify(customFailures?.Metrics)).toContain('"Namespace":"Acme/Agents"')
  })

  it('creates 21 alarms without actions by default; with a topic every alarm notifies it, going off and recovering', () => {
    // Every DLQ, the router's iterator age, errors per function, the API functions' throttles, turn failures.
    expect(alarms).toHaveLength(8 + 1 + 9 + 2 + 1)
    expect(agent.alarms).toHaveLength(alarms.length)
    for (const alarm of alarms) expect(alarm.AlarmActions).toBeUndefined()
    const notified = alarmsOf(custom)
    expect(notified).toHaveLength(8 + 1 + 9 * 2 + 1)
    for (const alarm of notified) {
      expect(alarm.AlarmActions).toEqual([ref(custom, onCall)])
      expect(alarm.OKActions).toEqual([ref(custom, onCall)])
    }
  })

  it('creates no alarms and no dashboard when told not to', () => {
    // Constructed only: no synth needed to see what it holds.
    const quietStack = new Stack(new App({ context: { 'aws:cdk:bundling-stacks': [] } }), 'Quiet')
    const quiet = new A2Agent(quietStack, 'Agent', {
      entry: 'functions/example-agent.ts',
      alarms: false,
      dashboard: false,
    })
    const monitoring = quietStack.node
      .findAll()
      .filter(
        (construct) =>
          construct instanceof cloudwatch.Alarm || construct instanceof cloudwatch.Dashboard,
      )
    expect(monitoring).toEqual([])
    expect(quiet.alarms).toEqual([])
    expect(quiet.dashboard).toBeUndefined()
  })
})

describe('the A2Agent dashboard', () => {
  /** The dashboard body, references rendered as <Ref Id> and <Id.Attribute>. */
  const body = (): { widgets: { type: string; properties: Record<string, unknown> }[] } => {
    const [[, dashboard] = []] = withDashboard.ofType('AWS::CloudWatch::Dashboard')
    const joined = dashboard?.Properties.DashboardBody as { 'Fn::Join': [string, unknown[]] }
    const [, parts] = joined['Fn::Join']
    const render = (part: unknown): string => {
      if (typeof part === 'string') return part
      const node = part as { Ref?: string; 'Fn::GetAtt'?: string[] }
      return node.Ref ? `<Ref ${node.Ref}>` : `<${node['Fn::GetAtt']?.join('.')}>`
    }
    return JSON.parse(parts.map(render).join(''))
  }

  it('graphs every figure the functions report, in their namespace and service, beside the AWS health figures', () => {
    // None by default: a dashboard is $3.00 a month, the most of an idle stack.
    expect(byDefault.ofType('AWS::CloudWatch::Dashboard')).toHaveLength(0)
    expect(agent.dashboard).toBeUndefined()
    expect(withDashboard.ofType('AWS::CloudWatch::Dashboard')).toHaveLength(1)
    const lines = body()
      .widgets.filter((widget) => widget.type === 'metric')
      .flatMap((widget) => widget.properties.metrics as unknown[][])
    const ours = lines.filter((line) => line[0] === 'a2')
    for (const name of Object.keys(AGENT_METRICS)) {
      expect(
        ours.some((line) => line[1] === name && line[2] === 'service' && line[3] === 'Test/Agent'),
        name,
      ).toBe(true)
    }
    const health = new Set(lines.map((line) => `${line[0]} ${line[1]}`))
    for (const figure of [
      'AWS/Lambda IteratorAge',
      'AWS/Lambda Errors',
      'AWS/Lambda Throttles',
      'AWS/Lambda ConcurrentExecutions',
      'AWS/SQS ApproximateNumberOfMessagesVisible',
    ]) {
      expect(health, figure).toContain(figure)
    }
    expect(JSON.stringify(lines)).toContain('FILL(failed, 0) / started')
  })

  it("shows every alarm's state at the top", () => {
    const [first] = body().widgets
    expect(first?.type).toBe('alarm')
    expect(first?.properties.alarms).toEqual(
      dashboarded.alarms.map((alarm) => `<${withDashboard.logicalId(alarm)}.Arn>`),
    )
  })
})

type Statement = { Action: string | string[]; Resource: unknown; Effect: string }

function actions(statement: Statement): string[] {
  return Array.isArray(statement.Action) ? statement.Action : [statement.Action]
}

/** The statements of every AWS::IAM::Policy attached to a role. */
function policyStatementsOf(roleId: string): Statement[] {
  return ofType('AWS::IAM::Policy')
    .filter(([, policy]) =>
      (policy.Properties.Roles as { Ref: string }[]).some((role) => role.Ref === roleId),
    )
    .flatMap(
      ([, policy]) => (policy.Properties.PolicyDocument as { Statement: Statement[] }).Statement,
    )
}
