import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { App } from 'aws-cdk-lib'
import { afterAll, describe, expect, it } from 'vitest'
import { EXAMPLE_STACKS, exampleApp } from '../../infra/example-app.ts'
import { cfnLint } from '../support/cfn-lint.ts'
import { templateOf, unacknowledgedNagFindings } from '../support/template.ts'

// A stand-in for the built page, and no esbuild bundling: the stacks' templates matter.
const source = mkdtempSync(join(tmpdir(), 'a2-example-app-'))
writeFileSync(join(source, 'index.html'), '<!doctype html><title>a2</title>')
afterAll(() => rmSync(source, { recursive: true, force: true }))
const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } })
const example = exampleApp(app, {}, source)
const agent = templateOf(example.agentStack)
const page = templateOf(example.chatPageStack)

// A new account CloudFront has not verified yet is refused any distribution
// ("Your account must be verified before you can add new CloudFront
// resources"); in one stack with the page, the agent rolled back with it.
describe('the example app (infra/app.ts)', () => {
  it('keeps the agent in a stack of its own, with nothing of CloudFront or the page in it', () => {
    expect(example.agentStack.stackName).toBe(EXAMPLE_STACKS.agent)
    const types = new Set(Object.values(agent.resources).map((resource) => resource.Type))
    expect(
      [...types].filter((type) => /CloudFront|S3::Bucket|CDKBucketDeployment/.test(type)),
    ).toEqual([])
    expect(types).toContain('AWS::DynamoDB::Table')
    expect(Object.keys(agent.template.toJSON().Outputs)).toEqual(
      expect.arrayContaining(['SupportAgentUrl', 'IngressQueueUrl']),
    )
  })

  it('puts the chat page in its own stack, which depends on the agent (it imports the API), not the other way round', () => {
    expect(example.chatPageStack.stackName).toBe(EXAMPLE_STACKS.chatPage)
    page.template.resourceCountIs('AWS::CloudFront::Distribution', 1)
    expect(example.chatPageStack.dependencies).toEqual([example.agentStack])
    expect(example.agentStack.dependencies).toEqual([])
    expect(JSON.stringify(page.template.toJSON())).toContain('Fn::ImportValue')
    expect(Object.keys(page.template.toJSON().Outputs)).toContain('ChatPageUrl')
  })

  it('passes cfn-lint with no errors and cdk-nag with every finding explained, each stack alone', () => {
    const [agentFindings = [], pageFindings = []] = cfnLint(
      agent.template.toJSON(),
      page.template.toJSON(),
    )
    expect(agentFindings.filter((finding) => finding.startsWith('E'))).toEqual([])
    expect(pageFindings.filter((finding) => finding.startsWith('E'))).toEqual([])
    expect(unacknowledgedNagFindings(example.agentStack)).toEqual([])
    expect(unacknowledgedNagFindings(example.chatPageStack)).toEqual([])
  }, 120_000)
})
