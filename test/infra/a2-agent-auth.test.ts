import { App, Duration, Stack } from 'aws-cdk-lib'
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions'
import * as cognito from 'aws-cdk-lib/aws-cognito'
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager'
import { describe, expect, it } from 'vitest'
import { A2Agent, type A2AgentAuth } from '../../infra/index.ts'
import { unacknowledgedNagFindings } from '../support/template.ts'

/** An A2Agent with `auth`, synthesized without bundling (only the template matters). */
function synth(auth?: (stack: Stack) => A2AgentAuth) {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } })
  const stack = new Stack(app, 'Auth', { env: { account: '123456789012', region: 'us-east-1' } })
  const agent = new A2Agent(stack, 'Agent', {
    entry: 'functions/example-agent.ts',
    ...(auth ? { auth: auth(stack) } : {}),
  })
  const template = Template.fromStack(stack)
  const resources = template.toJSON().Resources as Record<
    string,
    { Type: string; Properties: Record<string, unknown> }
  >
  const id = (construct: { node: { defaultChild?: unknown } }) =>
    stack.getLogicalId(construct.node.defaultChild as never)
  const variables = (name: keyof A2Agent['functions']): Record<string, unknown> => {
    const environment = resources[id(agent.functions[name])]?.Properties.Environment
    return (environment as { Variables: Record<string, unknown> }).Variables
  }
  const methods = Object.values(resources).filter((r) => r.Type === 'AWS::ApiGateway::Method')
  /** The functions whose role may read a secret. */
  const secretReaders = Object.entries(agent.functions)
    .filter(([, fn]) =>
      Object.values(resources).some(
        (r) =>
          r.Type === 'AWS::IAM::Policy' &&
          (r.Properties.Roles as { Ref: string }[]).some(
            (role) => role.Ref === stack.getLogicalId(fn.role?.node.defaultChild as never),
          ) &&
          JSON.stringify(r.Properties.PolicyDocument).includes('secretsmanager:GetSecretValue'),
      ),
    )
    .map(([name]) => name)
    .sort()
  return { stack, agent, template, resources, variables, methods, secretReaders }
}

// Each variant synthesized once, outside the tests (synth takes seconds on a busy machine).
const byDefault = synth()
const withKey = synth((stack) => ({
  type: 'capability',
  key: secretsmanager.Secret.fromSecretNameV2(stack, 'Key', 'team/session-key'),
  ttl: Duration.hours(2),
}))
const withCognito = synth((stack) => ({
  type: 'cognito',
  userPools: [new cognito.UserPool(stack, 'Users')],
}))
const withIam = synth(() => 'iam')
const withNone = synth(() => 'none')

const warnings = (stack: Stack) =>
  Annotations.fromStack(stack)
    .findWarning('*', Match.stringLikeRegexp('auth is'))
    .map((warning) => String(warning.entry.data))

describe('A2Agent auth', () => {
  it('by default signs session tokens with a key it creates in Secrets Manager, read by the HTTP functions only', () => {
    const { agent, template, variables, methods, secretReaders, stack } = byDefault
    template.resourceCountIs('AWS::SecretsManager::Secret', 1)
    template.hasResourceProperties('AWS::SecretsManager::Secret', {
      GenerateSecretString: { PasswordLength: 64, ExcludePunctuation: true },
    })
    expect(agent.sessionKey).toBeDefined()
    for (const name of ['http', 'stream'] as const) {
      expect(variables(name).A2_AUTH).toBe('capability')
      expect(variables(name).A2_SESSION_KEY_SECRET).toEqual({
        Ref: stack.getLogicalId(agent.sessionKey?.node.defaultChild as never),
      })
    }
    expect(variables('generation').A2_SESSION_KEY_SECRET).toBeUndefined()
    expect(secretReaders).toEqual(['http', 'stream'])
    expect(methods.map((method) => method.Properties.AuthorizationType)).toEqual(['NONE', 'NONE'])
    expect(warnings(stack)).toEqual([])
  })

  it("takes a key secret and the tokens' lifetime from props", () => {
    const { template, variables, agent } = withKey
    template.resourceCountIs('AWS::SecretsManager::Secret', 0)
    expect(agent.sessionKey).toBeDefined()
    expect(variables('http').A2_SESSION_TTL_SECONDS).toBe('7200')
  })

  it('cognito: a user pool authorizer on GET and POST, no session key', () => {
    const { template, variables, methods, resources } = withCognito
    template.hasResourceProperties('AWS::ApiGateway::Authorizer', {
      Type: 'COGNITO_USER_POOLS',
      ProviderARNs: [{ 'Fn::GetAtt': [Match.stringLikeRegexp('^Users'), 'Arn'] }],
    })
    const authorizerId = Object.keys(resources).find(
      (key) => resources[key]?.Type === 'AWS::ApiGateway::Authorizer',
    )
    expect(methods.map((method) => method.Properties.AuthorizationType)).toEqual([
      'COGNITO_USER_POOLS',
      'COGNITO_USER_POOLS',
    ])
    expect(methods.map((method) => method.Properties.AuthorizerId)).toEqual([
      { Ref: authorizerId },
      { Ref: authorizerId },
    ])
    template.resourceCountIs('AWS::SecretsManager::Secret', 0)
    expect(variables('http').A2_AUTH).toBe('cognito')
  })

  it('iam: GET and POST need SigV4 (AWS_IAM)', () => {
    const { variables, methods, template } = withIam
    expect(methods.map((method) => method.Properties.AuthorizationType)).toEqual([
      'AWS_IAM',
      'AWS_IAM',
    ])
    template.resourceCountIs('AWS::SecretsManager::Secret', 0)
    expect(variables('stream').A2_AUTH).toBe('iam')
  })

  it('none: an explicit opt-out, with a synth warning that says what it exposes', () => {
    const { variables, methods, stack } = withNone
    expect(variables('http').A2_AUTH).toBe('none')
    expect(methods.map((method) => method.Properties.AuthorizationType)).toEqual(['NONE', 'NONE'])
    expect(warnings(stack)).toEqual([expect.stringContaining('anyone with the API')])
  })

  it('passes cdk-nag with cognito and iam; none keeps its findings visible', () => {
    const cognitoStack = withCognito.stack
    expect(unacknowledgedNagFindings(cognitoStack).filter((f) => !f.includes('/Users'))).toEqual([])
    expect(unacknowledgedNagFindings(withIam.stack)).toEqual([])
    expect(unacknowledgedNagFindings(withNone.stack)).toEqual([
      expect.stringContaining('AwsSolutions-APIG4'),
      expect.stringContaining('AwsSolutions-COG4'),
    ])
  }, 60_000)
})
