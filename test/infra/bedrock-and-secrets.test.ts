import { App, Stack } from 'aws-cdk-lib'
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager'
import * as ssm from 'aws-cdk-lib/aws-ssm'
import { describe, expect, it } from 'vitest'
import { A2Agent, type A2AgentProps } from '../../infra/index.ts'
import { cfnLint } from '../support/cfn-lint.ts'
import { templateOf, unacknowledgedNagFindings } from '../support/template.ts'

const SONNET = 'anthropic.claude-sonnet-4-5-20250929-v1:0'
const HAIKU = 'anthropic.claude-haiku-4-5-20251001-v1:0'
// A secret named by its name, as most stacks (and the example's A2_GATEWAY_KEY_SECRET) do:
// the functions get its partial ARN; the grant matches its random suffix.
const GATEWAY_KEY_ARN = 'arn:aws:secretsmanager:us-east-1:123456789012:secret:a2/gateway-key'

// Not bundled: only the template matters.
const unbundled = () => new App({ context: { 'aws:cdk:bundling-stacks': [] } })
const app = unbundled()
const stack = new Stack(app, 'Models', { env: { account: '123456789012', region: 'us-east-1' } })
const gatewayKey = secretsmanager.Secret.fromSecretNameV2(stack, 'GatewayKey', 'a2/gateway-key')
const toolKey = ssm.StringParameter.fromSecureStringParameterAttributes(stack, 'ToolKey', {
  parameterName: '/a2/tool-key',
})
const agent = new A2Agent(stack, 'Agent', {
  entry: 'functions/example-agent.ts',
  environment: { A2_MODEL: `bedrock:us.${SONNET}` },
  bedrockModels: [
    HAIKU,
    `bedrock:us.${SONNET}`,
    `global.${SONNET}`,
    { inferenceProfile: `ca.${HAIKU}`, regions: ['ca-central-1', 'ca-west-1'] },
  ],
  secrets: {
    AI_GATEWAY_API_KEY: gatewayKey,
    TOOL_KEY: { source: toolKey, functions: ['generation', 'tools'] },
  },
})
const { template, resources, ofType, logicalId } = templateOf(stack)

type Statement = { Action: string | string[]; Resource: unknown; Condition?: unknown }

/** Values with the partition as `aws` and other references as placeholders: `<Ref X>`, `<X.Attr>`. */
function render(value: unknown): unknown {
  if (typeof value === 'string' || typeof value !== 'object' || value === null) return value
  if (Array.isArray(value)) return value.map(render)
  const node = value as Record<string, unknown>
  if (node.Ref === 'AWS::Partition') return 'aws'
  if (typeof node.Ref === 'string') return `<Ref ${node.Ref}>`
  if (node['Fn::GetAtt']) return `<${(node['Fn::GetAtt'] as string[]).join('.')}>`
  if (node['Fn::Join']) {
    const [separator, parts] = node['Fn::Join'] as [string, unknown[]]
    return parts.map(render).join(separator)
  }
  return Object.fromEntries(Object.entries(node).map(([key, inner]) => [key, render(inner)]))
}

function statementsOf(fn: { role?: unknown }): Statement[] {
  const roleId = logicalId((fn as { role: { node: { defaultChild?: unknown } } }).role)
  return ofType('AWS::IAM::Policy')
    .filter(([, policy]) =>
      (policy.Properties.Roles as { Ref: string }[]).some((role) => role.Ref === roleId),
    )
    .flatMap(
      ([, policy]) => (policy.Properties.PolicyDocument as { Statement: Statement[] }).Statement,
    )
    .map((statement) => render(statement) as Statement)
}

const actionsOf = (statement: Statement) =>
  Array.isArray(statement.Action) ? statement.Action : [statement.Action]
const invoke = ['bedrock:InvokeModel', 'bedrock:InvokeModelWithResponseStream']
const model = (region: string, id: string) => `arn:aws:bedrock:${region}::foundation-model/${id}`
const profile = (id: string) => `arn:aws:bedrock:us-east-1:123456789012:inference-profile/${id}`
const throughProfile = (id: string) => ({
  StringEquals: { 'bedrock:InferenceProfileArn': profile(id) },
})

function environmentOf(fn: { node: { defaultChild?: unknown } }): Record<string, unknown> {
  const properties = resources[logicalId(fn)]?.Properties ?? {}
  return (properties.Environment as { Variables: Record<string, unknown> }).Variables
}

describe('A2Agent on Amazon Bedrock (bedrockModels)', () => {
  it('lets the generation function invoke exactly the named models: foundation models in the region, inference profiles with their foundation model in every region they route to, only through them', () => {
    const bedrock = statementsOf(agent.functions.generation).filter((statement) =>
      actionsOf(statement).some((action) => action.startsWith('bedrock:')),
    )
    expect(bedrock).toEqual([
      {
        Effect: 'Allow',
        Action: invoke,
        Resource: [
          model('us-east-1', HAIKU),
          profile(`us.${SONNET}`),
          profile(`global.${SONNET}`),
          profile(`ca.${HAIKU}`),
        ],
      },
      {
        Effect: 'Allow',
        Action: invoke,
        Resource: ['us-east-1', 'us-east-2', 'us-west-1', 'us-west-2'].map((region) =>
          model(region, SONNET),
        ),
        Condition: throughProfile(`us.${SONNET}`),
      },
      {
        // The global profile: the region, and the region-less ARN that
        // stands for every commercial region.
        Effect: 'Allow',
        Action: invoke,
        Resource: [model('us-east-1', SONNET), model('', SONNET)],
        Condition: throughProfile(`global.${SONNET}`),
      },
      {
        Effect: 'Allow',
        Action: invoke,
        Resource: ['us-east-1', 'ca-central-1', 'ca-west-1'].map((region) => model(region, HAIKU)),
        Condition: throughProfile(`ca.${HAIKU}`),
      },
    ])
  })

  it('gives no other function any Bedrock permission: only generation calls models (steps and compaction summaries)', () => {
    for (const [name, fn] of Object.entries(agent.functions)) {
      if (name === 'generation') continue
      const actions = statementsOf(fn).flatMap(actionsOf)
      expect(
        actions.filter((action) => action.startsWith('bedrock:')),
        name,
      ).toEqual([])
    }
  })

  it('names the granted models in the verify output, as the generation function calls them, for the one-token calls of npm run verify', () => {
    const outputs = Object.values(template.toJSON().Outputs ?? {}) as {
      Description?: string
      Value: unknown
    }[]
    const verify = JSON.stringify(
      outputs.find((output) => output.Description?.startsWith('a2-aws verify'))?.Value,
    )
    expect(verify).toContain(
      JSON.stringify(
        `"bedrockModels":${JSON.stringify([HAIKU, `us.${SONNET}`, `global.${SONNET}`, `ca.${HAIKU}`])}`,
      ).slice(1, -1),
    )
  })

  it('refuses what it cannot grant exactly: an ARN, an empty ID, a profile without regions', () => {
    const attempt = (bedrockModels: A2AgentProps['bedrockModels']) => () =>
      new A2Agent(new Stack(unbundled(), 'Bad'), 'Agent', {
        entry: 'functions/example-agent.ts',
        bedrockModels,
      })
    expect(
      attempt(['arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/abc']),
    ).toThrow(/add the statements to functions.generation yourself/)
    expect(attempt(['bedrock:'])).toThrow(TypeError)
    expect(attempt([{ inferenceProfile: `ca.${HAIKU}`, regions: [] }])).toThrow(
      /the regions it routes to/,
    )
  })
})

describe('A2Agent secrets', () => {
  it('grants each reading function exactly its secrets and passes their ARNs, never a value, in A2_SECRETS', () => {
    const generation = statementsOf(agent.functions.generation)
    const secretReads = generation.filter((statement) =>
      actionsOf(statement).includes('secretsmanager:GetSecretValue'),
    )
    expect(secretReads).toEqual([
      {
        Effect: 'Allow',
        Action: ['secretsmanager:GetSecretValue', 'secretsmanager:DescribeSecret'],
        Resource: `${GATEWAY_KEY_ARN}-??????`,
      },
    ])
    const parameterArn = 'arn:aws:ssm:us-east-1:123456789012:parameter/a2/tool-key'
    const parameterReads = (statements: Statement[]) =>
      statements
        .filter((statement) => actionsOf(statement).includes('ssm:GetParameter'))
        .map((statement) => statement.Resource)
    expect(parameterReads(generation)).toEqual([parameterArn])
    expect(parameterReads(statementsOf(agent.functions.tools))).toEqual([parameterArn])

    expect(
      JSON.parse(render(environmentOf(agent.functions.generation).A2_SECRETS) as string),
    ).toEqual({ AI_GATEWAY_API_KEY: GATEWAY_KEY_ARN, TOOL_KEY: parameterArn })
    expect(JSON.parse(render(environmentOf(agent.functions.tools).A2_SECRETS) as string)).toEqual({
      TOOL_KEY: parameterArn,
    })
    for (const fn of Object.values(agent.functions)) {
      const variables = environmentOf(fn)
      expect(variables.AI_GATEWAY_API_KEY).toBeUndefined()
      expect(variables.TOOL_KEY).toBeUndefined()
    }
  })

  it('gives the functions not named for a secret neither the grant nor its ARN', () => {
    for (const [name, fn] of Object.entries(agent.functions)) {
      if (name === 'generation' || name === 'tools') continue
      expect(environmentOf(fn).A2_SECRETS, name).toBeUndefined()
      // The HTTP functions read the session key (auth: 'capability'), nothing else.
      const statements = statementsOf(fn).filter(
        (statement) => !JSON.stringify(statement).includes('SessionKey'),
      )
      const actions = statements.flatMap(actionsOf)
      expect(
        actions.filter(
          (action) => action.startsWith('secretsmanager:') || action.startsWith('ssm:'),
        ),
        name,
      ).toEqual([])
    }
  })

  it('refuses a secret under a name that is not a variable, is A2_ own, or is also in environment', () => {
    const attempt = (props: Partial<A2AgentProps>) => () => {
      const bad = new Stack(unbundled(), 'Bad')
      const key = secretsmanager.Secret.fromSecretNameV2(bad, 'Key', 'a2/key')
      return new A2Agent(bad, 'Agent', {
        entry: 'functions/example-agent.ts',
        ...props,
        secrets: Object.fromEntries(Object.keys(props.secrets ?? {}).map((name) => [name, key])),
      })
    }
    expect(attempt({ secrets: { 'NOT-A-NAME': {} as never } })).toThrow(
      /not an environment variable name/,
    )
    expect(attempt({ secrets: { A2_TABLE_NAME: {} as never } })).toThrow(/starts with A2_/)
    expect(
      attempt({
        environment: { AI_GATEWAY_API_KEY: 'x' },
        secrets: { AI_GATEWAY_API_KEY: {} as never },
      }),
    ).toThrow(/also in environment/)
  })
})

describe('the template with Bedrock models and secrets', () => {
  it('passes cdk-nag AwsSolutions with every acknowledged finding explained', () => {
    expect(unacknowledgedNagFindings(stack)).toEqual([])
  }, 30_000)

  it('passes cfn-lint with no errors', () => {
    const [findings = []] = cfnLint(template.toJSON())
    expect(findings.filter((finding) => finding.startsWith('E'))).toEqual([])
  }, 60_000)
})
