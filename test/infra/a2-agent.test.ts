import { App, RemovalPolicy, Stack } from 'aws-cdk-lib'
import { Match, Template } from 'aws-cdk-lib/assertions'
import { describe, expect, it } from 'vitest'
import { A2Agent } from '../../infra/index.ts'
import { templateOf, unacknowledgedNagFindings } from './support/template.ts'

// One synth (with esbuild bundling) for the whole file.
const app = new App()
const stack = new Stack(app, 'Test', { env: { account: '123456789012', region: 'us-east-1' } })
const agent = new A2Agent(stack, 'Agent', { entry: 'functions/example-agent.ts' })
const { template, resources, ofType, logicalId } = templateOf(stack)

describe('the A2Agent template', () => {
  it('keeps the log in an on-demand table with a NEW_IMAGE stream, PITR, TTL and RETAIN by default', () => {
    template.resourceCountIs('AWS::DynamoDB::Table', 1)
    template.hasResource('AWS::DynamoDB::Table', {
      DeletionPolicy: 'Retain',
      Properties: {
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

  it('takes the removal policy of the table from its props', () => {
    // No bundling for this stack: only the table matters here.
    const other = new App({ context: { 'aws:cdk:bundling-stacks': [] } })
    const otherStack = new Stack(other, 'Destroyable')
    new A2Agent(otherStack, 'Agent', {
      entry: 'functions/example-agent.ts',
      removalPolicy: RemovalPolicy.DESTROY,
    })
    Template.fromStack(otherStack).hasResource('AWS::DynamoDB::Table', { DeletionPolicy: 'Delete' })
  })

  it('gives every lane and the ingress a FIFO queue with a FIFO dead-letter queue', () => {
    for (const queue of [...Object.values(agent.laneQueues), agent.ingressQueue]) {
      const properties = resources[logicalId(queue)]?.Properties ?? {}
      expect(properties.FifoQueue).toBe(true)
      const redrive = properties.RedrivePolicy as {
        deadLetterTargetArn: { 'Fn::GetAtt': [string] }
        maxReceiveCount: number
      }
      expect(redrive.maxReceiveCount).toBe(5)
      const dlq = resources[redrive.deadLetterTargetArn['Fn::GetAtt'][0]]
      expect(dlq?.Type).toBe('AWS::SQS::Queue')
      expect(dlq?.Properties.FifoQueue).toBe(true)
      expect(dlq?.Properties.MessageRetentionPeriod).toBe(14 * 24 * 3600)
    }
    expect(resources[logicalId(agent.ingressQueue)]?.Properties.ContentBasedDeduplication).toBe(
      true,
    )
    // The timer queue is standard: SQS FIFO queues have no per-message delay.
    const timer = resources[logicalId(agent.timerQueue)]?.Properties ?? {}
    expect(timer.FifoQueue).toBeUndefined()
    expect(timer.RedrivePolicy).toBeDefined()
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

  it('routes the stream with parallelization 1, bisect on error, partial failures and an on-failure queue', () => {
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      EventSourceArn: { 'Fn::GetAtt': [logicalId(agent.table), 'StreamArn'] },
      FunctionName: { Ref: logicalId(agent.functions.router) },
      StartingPosition: 'TRIM_HORIZON',
      ParallelizationFactor: 1,
      BisectBatchOnFunctionError: true,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      DestinationConfig: {
        OnFailure: { Destination: { 'Fn::GetAtt': [logicalId(agent.routerFailureQueue), 'Arn'] } },
      },
    })
  })

  it('runs every function on nodejs22.x and ARM64, bundled (no Docker) with the agent module', () => {
    const functions = ofType('AWS::Lambda::Function')
    expect(functions).toHaveLength(8)
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
      'index.ingress',
      'index.router',
      'index.timers',
      'index.toolsLane',
    ])
  })

  it('serves GET (streamed SSE, 15 minutes) and POST on one REGIONAL REST resource', () => {
    template.hasResourceProperties('AWS::ApiGateway::RestApi', {
      EndpointConfiguration: { Types: ['REGIONAL'] },
    })
    template.resourceCountIs('AWS::ApiGateway::Resource', 1)
    template.hasResourceProperties('AWS::ApiGateway::Method', {
      HttpMethod: 'GET',
      Integration: {
        Type: 'AWS_PROXY',
        ResponseTransferMode: 'STREAM',
        TimeoutInMillis: 900_000,
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
  })

  it('lets Scheduler, and only Scheduler of this account, assume a role that sends to the timer queue and its DLQ', () => {
    const role = resources[logicalId(agent.schedulerRole)]?.Properties ?? {}
    expect(role.AssumeRolePolicyDocument).toMatchObject({
      Statement: [
        {
          Action: 'sts:AssumeRole',
          Effect: 'Allow',
          Principal: { Service: 'scheduler.amazonaws.com' },
          Condition: { StringEquals: { 'aws:SourceAccount': '123456789012' } },
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

  it('scopes the functions to this table, these queues and this schedule group', () => {
    const table = { 'Fn::GetAtt': [logicalId(agent.table), 'Arn'] }
    const laneQueueArns = Object.values(agent.laneQueues).map((queue) => ({
      'Fn::GetAtt': [logicalId(queue), 'Arn'],
    }))
    for (const name of [
      'http',
      'admission',
      'generation',
      'tools',
      'handlers',
      'ingress',
      'timers',
    ] as const) {
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
        expect.arrayContaining([
          ...laneQueueArns,
          { 'Fn::GetAtt': [logicalId(agent.timerQueue), 'Arn'] },
        ]),
      )
      expect(sends, name).toHaveLength(5)
      const passRole = statements.find((statement) => actions(statement).includes('iam:PassRole'))
      expect(passRole?.Resource, name).toEqual({
        'Fn::GetAtt': [logicalId(agent.schedulerRole), 'Arn'],
      })
      const schedules = statements.find((statement) =>
        actions(statement).includes('scheduler:CreateSchedule'),
      )
      expect(JSON.stringify(schedules?.Resource), name).toContain(`:schedule/`)
      expect(JSON.stringify(schedules?.Resource), name).toContain(
        `/${agent.scheduleGroup.scheduleGroupName}/*`,
      )
      for (const statement of statements) expect(statement.Resource, name).not.toBe('*')
    }
    const router = policyStatementsOf(logicalId(agent.functions.router.role as never))
    const routerActions = router.flatMap(actions)
    expect(routerActions).not.toContain('dynamodb:PutItem')
    expect(routerActions).not.toContain('dynamodb:Query')
    expect(routerActions).toContain('dynamodb:GetRecords')
  })

  it('passes cdk-nag AwsSolutions with every acknowledged finding explained', () => {
    expect(unacknowledgedNagFindings(stack)).toEqual([])
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
