import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { App, Stack, Validations } from 'aws-cdk-lib'
import { CachePolicy, OriginRequestPolicy } from 'aws-cdk-lib/aws-cloudfront'
import type { IConstruct } from 'constructs'
import { afterAll, describe, expect, it } from 'vitest'
import { A2Agent, A2ChatPage } from '../../infra/index.ts'
import { templateOf, unacknowledgedNagFindings } from '../support/template.ts'

// A stand-in for the built page (functions/example/web/dist), so the test
// needs no `npm run build:web`.
const page = '<!doctype html><title>a2 chat page under test</title>'
const source = mkdtempSync(join(tmpdir(), 'a2-chat-page-'))
writeFileSync(join(source, 'index.html'), page)
afterAll(() => rmSync(source, { recursive: true, force: true }))

// No esbuild bundling: only the page's resources and the API matter here.
const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } })
const stack = new Stack(app, 'Test', { env: { account: '123456789012', region: 'us-east-1' } })
const agent = new A2Agent(stack, 'Agent', { entry: 'functions/example-agent.ts' })
const chatPage = new A2ChatPage(stack, 'ChatPage', { agent, source })
const { resources, ofType, logicalId, propertiesOf } = templateOf(stack)

type Statement = {
  Effect: string
  Principal?: unknown
  Action: string | string[]
  Resource: unknown
  Condition?: Record<string, Record<string, unknown>>
}
type Origin = {
  Id: string
  DomainName: unknown
  OriginPath?: unknown
  OriginAccessControlId?: unknown
  S3OriginConfig?: { OriginAccessIdentity: string }
  CustomOriginConfig?: Record<string, unknown>
}
type Behavior = {
  PathPattern?: string
  TargetOriginId: string
  CachePolicyId: string
  OriginRequestPolicyId?: string
  AllowedMethods?: string[]
  ViewerProtocolPolicy: string
  Compress?: boolean
  FunctionAssociations?: { EventType: string; FunctionARN: unknown }[]
}
type DistributionConfig = {
  DefaultRootObject?: string
  DefaultCacheBehavior: Behavior
  CacheBehaviors?: Behavior[]
  Origins: Origin[]
  Logging?: { Bucket: unknown; Prefix?: string }
}

const distributionId = logicalId(chatPage.distribution)
const config = propertiesOf(chatPage.distribution).DistributionConfig as DistributionConfig
const originById = (id: string): Origin | undefined =>
  config.Origins.find((origin) => origin.Id === id)
const bucketStatements = (bucketId: string): Statement[] =>
  ofType('AWS::S3::BucketPolicy')
    .filter(([, policy]) => (policy.Properties.Bucket as { Ref: string }).Ref === bucketId)
    .flatMap(
      ([, policy]) => (policy.Properties.PolicyDocument as { Statement: Statement[] }).Statement,
    )

describe('the A2ChatPage template', () => {
  it('keeps the page in a private, encrypted bucket that refuses plain HTTP', () => {
    const bucket = propertiesOf(chatPage.bucket)
    expect(bucket.PublicAccessBlockConfiguration).toEqual({
      BlockPublicAcls: true,
      BlockPublicPolicy: true,
      IgnorePublicAcls: true,
      RestrictPublicBuckets: true,
    })
    expect(bucket.OwnershipControls).toEqual({
      Rules: [{ ObjectOwnership: 'BucketOwnerEnforced' }],
    })
    expect(bucket.BucketEncryption).toEqual({
      ServerSideEncryptionConfiguration: [
        { ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } },
      ],
    })
    expect(bucket.WebsiteConfiguration).toBeUndefined()
    expect(bucketStatements(logicalId(chatPage.bucket))).toContainEqual(
      expect.objectContaining({
        Effect: 'Deny',
        Action: 's3:*',
        Condition: { Bool: { 'aws:SecureTransport': 'false' } },
      }),
    )
  })

  it('lets only this distribution read the bucket, through Origin Access Control', () => {
    const allows = bucketStatements(logicalId(chatPage.bucket)).filter(
      (statement) => statement.Effect === 'Allow',
    )
    expect(allows).toEqual([
      {
        Effect: 'Allow',
        Principal: { Service: 'cloudfront.amazonaws.com' },
        Action: 's3:GetObject',
        Resource: {
          'Fn::Join': ['', [{ 'Fn::GetAtt': [logicalId(chatPage.bucket), 'Arn'] }, '/*']],
        },
        Condition: {
          StringEquals: {
            'AWS:SourceArn': {
              'Fn::Join': [
                '',
                [
                  'arn:',
                  { Ref: 'AWS::Partition' },
                  ':cloudfront::',
                  { Ref: 'AWS::AccountId' },
                  ':distribution/',
                  { Ref: distributionId },
                ],
              ],
            },
          },
        },
      },
    ])
    const pageOrigin = originById(config.DefaultCacheBehavior.TargetOriginId)
    expect(pageOrigin?.DomainName).toEqual({
      'Fn::GetAtt': [logicalId(chatPage.bucket), 'RegionalDomainName'],
    })
    // OAC, not the legacy origin access identity.
    expect(pageOrigin?.S3OriginConfig).toEqual({ OriginAccessIdentity: '' })
    const [accessControl] = ofType('AWS::CloudFront::OriginAccessControl')
    expect(pageOrigin?.OriginAccessControlId).toEqual({ 'Fn::GetAtt': [accessControl?.[0], 'Id'] })
    expect(accessControl?.[1].Properties.OriginAccessControlConfig).toMatchObject({
      OriginAccessControlOriginType: 's3',
      SigningBehavior: 'always',
      SigningProtocol: 'sigv4',
    })
  })

  it('serves index.html at the root over HTTPS', () => {
    expect(config.DefaultRootObject).toBe('index.html')
    expect((config as { PriceClass?: string }).PriceClass).toBe('PriceClass_100')
    expect(config.DefaultCacheBehavior.ViewerProtocolPolicy).toBe('redirect-to-https')
    expect(chatPage.url).toMatch(/^https:\/\//)
    expect(stack.resolve(chatPage.url)).toEqual({
      'Fn::Join': ['', ['https://', { 'Fn::GetAtt': [distributionId, 'DomainName'] }]],
    })
  })

  it('sends /api/* to the agent REST API stage uncached, with every method and the viewer headers but Host', () => {
    expect(config.CacheBehaviors).toHaveLength(1)
    const api = config.CacheBehaviors?.[0] as Behavior
    expect(api.PathPattern).toBe('/api/*')
    expect(api.CachePolicyId).toBe(CachePolicy.CACHING_DISABLED.cachePolicyId)
    expect(api.OriginRequestPolicyId).toBe(
      OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER.originRequestPolicyId,
    )
    expect([...(api.AllowedMethods ?? [])].sort()).toEqual(
      ['DELETE', 'GET', 'HEAD', 'OPTIONS', 'PATCH', 'POST', 'PUT'].sort(),
    )
    expect(api.ViewerProtocolPolicy).toBe('https-only')
    expect(api.Compress).toBe(false)

    const origin = originById(api.TargetOriginId)
    const apiId = logicalId(agent.api)
    const stageId = logicalId(agent.api.deploymentStage)
    // The API's own host (from its URL) and its stage as the origin path.
    expect(JSON.stringify(origin?.DomainName)).toContain(`{"Ref":"${apiId}"}`)
    expect(origin?.OriginPath).toEqual({ 'Fn::Join': ['', ['/', { Ref: stageId }]] })
    expect(resources[stageId]?.Properties.StageName).toBe('prod')
    expect(origin?.CustomOriginConfig).toMatchObject({
      OriginProtocolPolicy: 'https-only',
      OriginSSLProtocols: ['TLSv1.2'],
      // SSE heartbeats come every 15 s: the stream never idles this long.
      OriginReadTimeout: 60,
      OriginKeepaliveTimeout: 60,
    })
  })

  it('rewrites /api/agent to the API resource /agent in a viewer-request CloudFront Function', () => {
    const api = config.CacheBehaviors?.[0] as Behavior
    const functionId = logicalId(chatPage.apiPathFunction)
    expect(api.FunctionAssociations).toEqual([
      { EventType: 'viewer-request', FunctionARN: { 'Fn::GetAtt': [functionId, 'FunctionARN'] } },
    ])
    const properties = propertiesOf(chatPage.apiPathFunction)
    expect(properties.FunctionConfig).toMatchObject({ Runtime: 'cloudfront-js-2.0' })
    expect(properties.AutoPublish).toBe(true)

    // Run the deployed code as CloudFront would: a request in, a request out.
    type Request = { method: string; uri: string; querystring: Record<string, { value: string }> }
    const handler = new Function(
      `${properties.FunctionCode as string}\nreturn handler`,
    )() as (event: { request: Request }) => Request
    const viewerRequest = (uri: string): Request => ({
      method: 'GET',
      uri,
      querystring: { sessionId: { value: 'demo' }, after: { value: '41' } },
    })
    const rewritten = handler({ request: viewerRequest('/api/agent') })
    expect(rewritten).toEqual({ ...viewerRequest('/agent') })
    expect(handler({ request: viewerRequest('/api/agent/') }).uri).toBe('/agent/')
    expect(handler({ request: viewerRequest('/api/state') }).uri).toBe('/state')
    // Only the leading /api segment goes.
    expect(handler({ request: viewerRequest('/api/api/agent') }).uri).toBe('/api/agent')

    // origin path (the stage) + rewritten path = the agent's one resource.
    const [resource] = ofType('AWS::ApiGateway::Resource')
    expect(resource?.[1].Properties.PathPart).toBe('agent')
    expect(rewritten.uri).toBe(`/${resource?.[1].Properties.PathPart}`)
  })

  it('copies the built page into the bucket and invalidates the distribution', () => {
    const deployments = ofType('Custom::CDKBucketDeployment')
    expect(deployments).toHaveLength(1)
    const deployment = deployments[0]?.[1].Properties ?? {}
    expect(deployment).toMatchObject({
      DestinationBucketName: { Ref: logicalId(chatPage.bucket) },
      DistributionId: { Ref: distributionId },
      DistributionPaths: ['/*'],
      // A browser holding the previous index.html still finds its hashed
      // files, and checks index.html again on every load.
      Prune: false,
      SystemMetadata: { 'cache-control': 'no-cache' },
    })
    // The source is the zip of `source`: the staged asset holds our index.html.
    const [key] = deployment.SourceObjectKeys as string[]
    const assembly = app.synth()
    const manifest = JSON.parse(
      readFileSync(join(assembly.directory, 'Test.assets.json'), 'utf8'),
    ) as { files: Record<string, { source: { path: string; packaging?: string } }> }
    const asset = manifest.files[(key as string).replace(/\.zip$/, '')]
    expect(asset?.source.packaging).toBe('zip')
    expect(
      readFileSync(join(assembly.directory, asset?.source.path as string, 'index.html'), 'utf8'),
    ).toBe(page)
  })

  it('lets the deployment invalidate this distribution only, not every distribution of the account', () => {
    const roleId = logicalId(chatPage.deployment.handlerRole as never)
    const statements = ofType('AWS::IAM::Policy')
      .filter(([, policy]) =>
        (policy.Properties.Roles as { Ref: string }[]).some((role) => role.Ref === roleId),
      )
      .flatMap(
        ([, policy]) => (policy.Properties.PolicyDocument as { Statement: Statement[] }).Statement,
      )
    const invalidations = statements.filter((statement) =>
      [statement.Action].flat().some((action) => action.startsWith('cloudfront:')),
    )
    expect(invalidations).toHaveLength(1)
    expect([invalidations[0]?.Action].flat().sort()).toEqual([
      'cloudfront:CreateInvalidation',
      'cloudfront:GetInvalidation',
    ])
    // arn:<partition>:cloudfront::<account>:distribution/<id>: both actions
    // take the distribution as their resource (Service Authorization Reference).
    expect(JSON.stringify(invalidations[0]?.Resource)).toContain(':distribution/')
    expect(JSON.stringify(invalidations[0]?.Resource)).toContain(`{"Ref":"${distributionId}"}`)
    for (const statement of statements) expect(statement.Resource).not.toBe('*')
  })

  it('writes the bucket access logs and the distribution logs to a private log bucket for 30 days', () => {
    const logBucketId = logicalId(chatPage.logBucket)
    expect(propertiesOf(chatPage.bucket).LoggingConfiguration).toEqual({
      DestinationBucketName: { Ref: logBucketId },
      LogFilePrefix: 'page-bucket/',
    })
    expect(config.Logging).toEqual({
      Bucket: { 'Fn::GetAtt': [logBucketId, 'RegionalDomainName'] },
      Prefix: 'distribution/',
    })
    const logBucket = propertiesOf(chatPage.logBucket)
    expect(logBucket.PublicAccessBlockConfiguration).toEqual({
      BlockPublicAcls: true,
      BlockPublicPolicy: true,
      IgnorePublicAcls: true,
      RestrictPublicBuckets: true,
    })
    expect(logBucket.LifecycleConfiguration).toEqual({
      Rules: [{ ExpirationInDays: 30, Status: 'Enabled' }],
    })
  })

  it('refuses a source folder without index.html and says how to build it', () => {
    const empty = mkdtempSync(join(tmpdir(), 'a2-chat-page-empty-'))
    try {
      const other = new App({ context: { 'aws:cdk:bundling-stacks': [] } })
      const otherStack = new Stack(other, 'Unbuilt')
      const otherAgent = new A2Agent(otherStack, 'Agent', { entry: 'functions/example-agent.ts' })
      expect(
        () => new A2ChatPage(otherStack, 'ChatPage', { agent: otherAgent, source: empty }),
      ).toThrow(/no index\.html in .*a2-chat-page-empty-.*npm run build:web/)
    } finally {
      rmSync(empty, { recursive: true, force: true })
    }
  })

  // The agent's 28 alarms and dashboard are nagged too: seconds on a busy machine.
  it('passes cdk-nag AwsSolutions with every acknowledged finding explained', () => {
    expect(unacknowledgedNagFindings(stack)).toEqual([])

    // What the page acknowledges, and why. The buckets (S1, S2, S10), the
    // logs (CFR3), OAC (CFR7) and the origin TLS (CFR5) pass on their own.
    // (aws-cdk-lib adds its own CloudFormation-Validate acknowledgement for
    // the log bucket's log-delivery ACL.)
    const acknowledged = new Map<string, string>()
    const collect = (construct: IConstruct): void => {
      for (const entry of construct.node.metadata) {
        if (entry.type !== Validations.ACKNOWLEDGED_RULES_METADATA_KEY) continue
        for (const [id, reason] of Object.entries(entry.data as Record<string, string>))
          acknowledged.set(id.replace(/^annotation::/i, ''), reason)
      }
      for (const child of construct.node.children) collect(child)
    }
    collect(chatPage)
    const singleton = stack.node.children.filter((child) =>
      child.node.id.startsWith('Custom::CDKBucketDeployment'),
    )
    expect(singleton).toHaveLength(1)
    for (const construct of singleton) collect(construct)
    const ours = [...acknowledged.keys()].filter((id) => id.startsWith('AwsSolutions-'))
    const rules = [...new Set(ours.map((id) => id.replace(/\[.*$/, '')))]
    expect(rules.sort()).toEqual([
      'AwsSolutions-CFR1',
      'AwsSolutions-CFR2',
      'AwsSolutions-CFR4',
      'AwsSolutions-IAM5',
      'AwsSolutions-L1',
    ])
    for (const id of ours) expect(acknowledged.get(id)?.length, id).toBeGreaterThan(40)
  }, 30_000)
})
