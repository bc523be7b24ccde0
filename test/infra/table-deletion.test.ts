import { App, RemovalPolicy, Stack } from 'aws-cdk-lib'
import { describe, expect, it } from 'vitest'
import { A2Agent, type A2AgentProps } from '../../infra/index.ts'
import { templateOf } from '../support/template.ts'

// Templates only: no esbuild bundling.
const agentWith = (props: Partial<A2AgentProps>) => {
  const stack = new Stack(new App({ context: { 'aws:cdk:bundling-stacks': [] } }), 'Test')
  new A2Agent(stack, 'Agent', { entry: 'functions/example-agent.ts', ...props })
  return stack
}
const tableOf = (stack: Stack) => {
  const [[, table] = []] = templateOf(stack).ofType('AWS::DynamoDB::Table')
  return { DeletionPolicy: table?.DeletionPolicy, ...table?.Properties }
}

// DynamoDB refuses DeleteTable while deletion protection is on ("Using
// deletion protection", DynamoDB developer guide); moto does not, so only
// the template can show that `cdk destroy` would end in DELETE_FAILED.
describe('the event log table when the stack goes', () => {
  it('is kept and protected by default', () => {
    expect(tableOf(agentWith({}))).toMatchObject({
      DeletionPolicy: 'Retain',
      DeletionProtectionEnabled: true,
    })
  })

  it('is deletable with removalPolicy DESTROY alone: deletion protection follows the policy', () => {
    expect(tableOf(agentWith({ removalPolicy: RemovalPolicy.DESTROY }))).toMatchObject({
      DeletionPolicy: 'Delete',
      DeletionProtectionEnabled: false,
    })
  })

  it('refuses at synth a removal policy that deletes the table with deletion protection on, saying what to change', () => {
    for (const removalPolicy of [RemovalPolicy.DESTROY, RemovalPolicy.SNAPSHOT]) {
      expect(() => agentWith({ removalPolicy, deletionProtection: true })).toThrow(
        new RegExp(
          `removalPolicy ${removalPolicy.toUpperCase()} deletes the event log table .* deletionProtection: true makes DynamoDB refuse that delete, so cdk destroy would end in DELETE_FAILED`,
        ),
      )
    }
  })

  it('keeps an explicit choice that agrees with the policy', () => {
    expect(tableOf(agentWith({ deletionProtection: false }))).toMatchObject({
      DeletionPolicy: 'Retain',
      DeletionProtectionEnabled: false,
    })
    expect(
      tableOf(agentWith({ removalPolicy: RemovalPolicy.RETAIN, deletionProtection: true })),
    ).toMatchObject({ DeletionPolicy: 'Retain', DeletionProtectionEnabled: true })
  })
})
