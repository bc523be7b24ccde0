import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { App, Stack } from 'aws-cdk-lib'
import * as iam from 'aws-cdk-lib/aws-iam'
import { describe, expect, it } from 'vitest'
import { A2Agent } from '../../infra/index.ts'
import { OPERATOR_COMMANDS, type OperatorCommand } from '../../shared/aws/operator-policy.ts'
import { cfnLint } from '../support/cfn-lint.ts'
import { render, roleStatements, type Statement } from '../support/iam-policy.ts'
import { repoRoot } from '../support/repo-root.ts'
import { templateOf, unacknowledgedNagFindings } from '../support/template.ts'

// Not bundled: only the template matters.
const stack = new Stack(new App({ context: { 'aws:cdk:bundling-stacks': [] } }), 'Test', {
  env: { account: '123456789012', region: 'eu-west-1' },
})
const agent = new A2Agent(stack, 'Agent', { entry: 'functions/example-agent.ts' })
const roles = Object.fromEntries(
  OPERATOR_COMMANDS.map((command) => {
    const role = new iam.Role(stack, `${command}Operator`, {
      assumedBy: new iam.AccountRootPrincipal(),
    })
    const grant = {
      inspect: agent.grantInspect,
      export: agent.grantExport,
      import: agent.grantImport,
      erase: agent.grantErase,
    }[command].call(agent, role)
    expect(grant.success).toBe(true)
    return [command, role]
  }),
) as Record<OperatorCommand, iam.Role>
const template = templateOf(stack)

/** A statement as the docs write it: the agent's resources as their placeholders. */
function placeheld(statement: Statement) {
  const table = `<${template.logicalId(agent.table)}.Arn>`
  const resource = render(statement.Resource)
  return {
    Effect: statement.Effect,
    Action: [statement.Action].flat(),
    Resource:
      resource === table
        ? 'arn:aws:dynamodb:<region>:<account>:table/<table>'
        : resource.startsWith('arn:')
          ? resource
              .replace(
                'arn:<Ref AWS::Partition>:scheduler:eu-west-1:123456789012:',
                'arn:aws:scheduler:<region>:<account>:',
              )
              .replace(
                `:schedule/${agent.scheduleGroup.scheduleGroupName}/`,
                ':schedule/<schedule group>/',
              )
          : resource,
  }
}

/** docs/operations.md's ```json policy=<command> blocks. */
function documentedPolicies(): Record<string, unknown> {
  const page = readFileSync(join(repoRoot, 'docs/operations.md'), 'utf8')
  return Object.fromEntries(
    [...page.matchAll(/^```json policy=(\w+)\n([\s\S]*?)^```$/gm)].map((match) => [
      match[1],
      JSON.parse(match[2] as string),
    ]),
  )
}

describe('the operator policies: grantErase, grantImport, grantExport, grantInspect', () => {
  it('grant each command its actions on the table only, and erase its schedule group', () => {
    const table = { 'Fn::GetAtt': [template.logicalId(agent.table), 'Arn'] }
    for (const command of OPERATOR_COMMANDS) {
      const statements = roleStatements(template.resources, template.logicalId(roles[command]))
      const onTable = statements.filter(
        (statement) => JSON.stringify(statement.Resource) === JSON.stringify(table),
      )
      expect(onTable, command).toHaveLength(1)
      for (const statement of statements) {
        expect(statement.Condition, command).toBeUndefined()
        // Only ListSchedules, which has no resource type, takes `*`.
        if (statement.Resource === '*')
          expect(statement.Action, command).toBe('scheduler:ListSchedules')
      }
      expect(
        statements
          .flatMap((statement) => [statement.Action].flat())
          .some((action) => action.startsWith('scheduler:')),
        command,
      ).toBe(command === 'erase')
    }
    // Readers never write.
    for (const command of ['inspect', 'export'] as const) {
      const actions = roleStatements(
        template.resources,
        template.logicalId(roles[command]),
      ).flatMap((statement) => [statement.Action].flat())
      expect(
        actions.filter((action) => !/^dynamodb:(GetItem|Query)$/.test(action)),
        command,
      ).toEqual([])
    }
  })

  it('are the JSON policies docs/operations.md publishes, statement for statement', () => {
    const documented = documentedPolicies()
    expect(Object.keys(documented).sort()).toEqual([...OPERATOR_COMMANDS].sort())
    for (const command of OPERATOR_COMMANDS) {
      const statements = roleStatements(template.resources, template.logicalId(roles[command]))
      expect(documented[command], command).toEqual({
        Version: '2012-10-17',
        Statement: statements.map(placeheld),
      })
    }
  })

  it('pass cfn-lint with no errors', () => {
    const [findings = []] = cfnLint(template.template.toJSON())
    expect(findings.filter((finding) => finding.startsWith('E'))).toEqual([])
    // cfn-lint's start alone takes seconds, and more on a loaded machine.
  }, 60_000)

  it('add no finding to the agent: the stack stays cdk-nag clean but for the operator roles themselves', () => {
    const findings = unacknowledgedNagFindings(stack)
    expect(findings.filter((finding) => !/Operator\//.test(finding))).toEqual([])
  })
})
