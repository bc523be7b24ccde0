import type { Stack } from 'aws-cdk-lib'
import { Template } from 'aws-cdk-lib/assertions'
import { AwsSolutionsChecks } from 'cdk-nag'

export type Resource = {
  Type: string
  Properties: Record<string, unknown>
  DeletionPolicy?: string
  DependsOn?: string[]
}
type WithDefaultChild = { node: { defaultChild?: unknown } }

/** A synthesized stack and the lookups template tests share. */
export function templateOf(stack: Stack) {
  const template = Template.fromStack(stack)
  const resources = template.toJSON().Resources as Record<string, Resource>
  const logicalId = (construct: WithDefaultChild): string =>
    stack.getLogicalId(construct.node.defaultChild as never)
  return {
    template,
    resources,
    ofType: (type: string): [string, Resource][] =>
      Object.entries(resources).filter(([, resource]) => resource.Type === type),
    logicalId,
    propertiesOf: (construct: WithDefaultChild): Record<string, unknown> =>
      resources[logicalId(construct)]?.Properties ?? {},
  }
}

/** cdk-nag AwsSolutions findings nobody acknowledged, as `rule at paths`. */
export function unacknowledgedNagFindings(stack: Stack): string[] {
  return new AwsSolutionsChecks()
    .validateScope(stack)
    .violations.map(
      (violation) =>
        `${violation.ruleName} at ${violation.violatingResources.map((r) => r.constructPath).join(', ')}`,
    )
}
