import { App, RemovalPolicy, Stack } from 'aws-cdk-lib'
import { describe, expect, it } from 'vitest'
import { A2Agent, type A2AgentProps } from '../../infra/index.ts'
import { hasA2Code } from '../../shared/log/error-brand.ts'
import { cfnLint } from '../support/cfn-lint.ts'
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
    expect(() =>
      agentWith({ removalPolicy: RemovalPolicy.DESTROY, deletionProtection: true }),
    ).toThrow(
      /removalPolicy DESTROY deletes the event log table .* deletionProtection: true makes DynamoDB refuse that delete, so cdk destroy would end in DELETE_FAILED/,
    )
  })

  // CloudFormation snapshots on delete only a few resource types, and a
  // DynamoDB table is not one ("DeletionPolicy attribute", CloudFormation
  // user guide): the CDK writes `Snapshot` anyway, and the deploy fails.
  it('refuses SNAPSHOT at synth with a typed error naming RETAIN (with its point-in-time recovery or a backup) and DESTROY', () => {
    for (const deletionProtection of [undefined, true, false]) {
      let thrown: unknown
      try {
        agentWith({ removalPolicy: RemovalPolicy.SNAPSHOT, deletionProtection })
      } catch (error) {
        thrown = error
      }
      expect(hasA2Code(thrown, 'UNSUPPORTED_REMOVAL_POLICY'), String(thrown)).toBe(true)
      expect((thrown as Error).message).toMatch(
        /SNAPSHOT .* no Snapshot DeletionPolicy for AWS::DynamoDB::Table.*RemovalPolicy\.RETAIN .*point-in-time recovery.*backup.*RemovalPolicy\.DESTROY/,
      )
    }
  })

  it('would not deploy with Snapshot on the table: cfn-lint rejects the policies the CDK would have written', () => {
    const synthesized = templateOf(agentWith({}))
    const template = synthesized.template.toJSON()
    const [[id] = []] = synthesized.ofType('AWS::DynamoDB::Table')
    const snapshot = structuredClone(template)
    Object.assign(snapshot.Resources[id as string], {
      DeletionPolicy: 'Snapshot',
      UpdateReplacePolicy: 'Snapshot',
    })
    const [kept = [], snapshotted = []] = cfnLint(template, snapshot)
    expect(kept.filter((finding) => finding.startsWith('E'))).toEqual([])
    expect(snapshotted).toEqual(
      expect.arrayContaining([expect.stringMatching(/^E3035 /), expect.stringMatching(/^E3036 /)]),
    )
    // cfn-lint's start alone takes seconds, and more on a loaded machine.
  }, 60_000)

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
