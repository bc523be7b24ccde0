import { existsSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib'
import * as cloudfront from 'aws-cdk-lib/aws-cloudfront'
import { RestApiOrigin, S3BucketOrigin } from 'aws-cdk-lib/aws-cloudfront-origins'
import * as iam from 'aws-cdk-lib/aws-iam'
import type * as lambda from 'aws-cdk-lib/aws-lambda'
import * as logs from 'aws-cdk-lib/aws-logs'
import * as s3 from 'aws-cdk-lib/aws-s3'
import * as s3assets from 'aws-cdk-lib/aws-s3-assets'
import * as s3deploy from 'aws-cdk-lib/aws-s3-deployment'
import { Construct } from 'constructs'
import type { A2Agent } from './a2-agent.ts'

/**
 * The CloudFront Function (viewer request, `cloudfront-js-2.0`) of the
 * `/api/*` behavior: `/api/agent` becomes `/agent`, which the origin path
 * (the API's stage) turns into `/<stage>/agent`. The query string
 * (`sessionId`, `after`) is not part of `uri` and passes unchanged.
 */
const STRIP_API_PREFIX_CODE = `function handler(event) {
  var request = event.request;
  request.uri = request.uri.replace(/^\\/api(?=\\/)/, '');
  return request;
}
`

/**
 * How long CloudFront waits for the first byte and then between two packets
 * of the agent's answer. The SSE stream sends a heartbeat every 15 s, so a
 * stream outlives it; 60 s is inside CloudFront's default quota.
 */
const API_READ_TIMEOUT = Duration.seconds(60)
/** How long CloudFront keeps an idle connection to the API open for the next request. */
const API_KEEPALIVE_TIMEOUT = Duration.seconds(60)

export interface A2ChatPageProps {
  /** The agent the page talks to; CloudFront sends `/api/*` to its REST API. */
  agent: A2Agent
  /**
   * The built page: a folder with `index.html` (the example's is
   * `functions/example/web/dist`, written by `npm run build:web`).
   */
  source: string
  /** CloudFront price class (default `PRICE_CLASS_100`: North America and Europe edges). */
  priceClass?: cloudfront.PriceClass
}

/**
 * A chat page next to its agent, on one origin: a private S3 bucket read by
 * CloudFront through Origin Access Control serves the page, and the
 * distribution's `/api/*` behavior forwards to the agent's REST API
 * (uncached, every method), so the page's `fetch('/api/agent')` is
 * same-origin and needs no CORS.
 *
 * @example
 * const page = new A2ChatPage(stack, 'ChatPage', { agent, source: 'web/dist' })
 * new CfnOutput(stack, 'ChatPageUrl', { value: page.url })
 */
export class A2ChatPage extends Construct {
  /** Holds the page; only the distribution reads it. */
  readonly bucket: s3.Bucket
  /** Server access logs of the page bucket and the distribution's standard logs. */
  readonly logBucket: s3.Bucket
  readonly distribution: cloudfront.Distribution
  /** Rewrites `/api/...` to `/...` before the request reaches the API. */
  readonly apiPathFunction: cloudfront.Function
  readonly deployment: s3deploy.BucketDeployment
  /** `https://<distribution domain>`: the page; the agent is at `${url}/api/agent`. */
  readonly url: string

  constructor(scope: Construct, id: string, props: A2ChatPageProps) {
    super(scope, id)
    const source = resolve(props.source)
    if (!existsSync(join(source, 'index.html'))) {
      throw new Error(
        `a2: the chat page is not built (no index.html in ${source}); run \`npm run build:web\` first`,
      )
    }

    this.logBucket = new s3.Bucket(this, 'LogBucket', {
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      encryption: s3.BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      // CloudFront standard logs are written with an ACL.
      objectOwnership: s3.ObjectOwnership.OBJECT_WRITER,
      lifecycleRules: [{ expiration: Duration.days(30) }],
    })
    this.bucket = new s3.Bucket(this, 'Bucket', {
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      encryption: s3.BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
      serverAccessLogsBucket: this.logBucket,
      serverAccessLogsPrefix: 'page-bucket/',
    })

    this.apiPathFunction = new cloudfront.Function(this, 'ApiPathFunction', {
      code: cloudfront.FunctionCode.fromInline(STRIP_API_PREFIX_CODE),
      runtime: cloudfront.FunctionRuntime.JS_2_0,
      comment: 'a2 chat page: /api/agent -> /agent on the agent REST API stage',
    })

    const api = props.agent.api
    this.distribution = new cloudfront.Distribution(this, 'Distribution', {
      comment: 'a2 chat page and its agent API',
      defaultRootObject: 'index.html',
      priceClass: props.priceClass ?? cloudfront.PriceClass.PRICE_CLASS_100,
      enableLogging: true,
      logBucket: this.logBucket,
      logFilePrefix: 'distribution/',
      defaultBehavior: {
        origin: S3BucketOrigin.withOriginAccessControl(this.bucket),
        viewerProtocolPolicy: cloudfront.ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
        cachePolicy: cloudfront.CachePolicy.CACHING_OPTIMIZED,
        responseHeadersPolicy: cloudfront.ResponseHeadersPolicy.SECURITY_HEADERS,
      },
      additionalBehaviors: {
        // The page calls the agent at `/api/agent` (functions/example/web/App.tsx).
        '/api/*': {
          origin: new RestApiOrigin(api, {
            // The stage, explicitly: the function strips `/api`, this adds `/<stage>`.
            originPath: `/${api.deploymentStage.stageName}`,
            readTimeout: API_READ_TIMEOUT,
            keepaliveTimeout: API_KEEPALIVE_TIMEOUT,
          }),
          viewerProtocolPolicy: cloudfront.ViewerProtocolPolicy.HTTPS_ONLY,
          // Nothing to compress or buffer: SSE frames pass as they come.
          compress: false,
          allowedMethods: cloudfront.AllowedMethods.ALLOW_ALL,
          cachePolicy: cloudfront.CachePolicy.CACHING_DISABLED,
          // Query string (sessionId, after), Last-Event-ID and any auth
          // header reach the API; Host stays the API's own.
          originRequestPolicy: cloudfront.OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
          functionAssociations: [
            {
              function: this.apiPathFunction,
              eventType: cloudfront.FunctionEventType.VIEWER_REQUEST,
            },
          ],
        },
      },
    })

    // The page as a CDK asset (a zip in the bootstrap bucket), copied into
    // the page bucket by the deployment's function, which then invalidates
    // the distribution's cache.
    const asset = new s3assets.Asset(this, 'PageAsset', { path: source })
    const deploymentLogs = new logs.LogGroup(this, 'DeploymentLogs', {
      retention: logs.RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.DESTROY,
    })
    const deploymentRole = new InvalidationScopedRole(this, 'DeploymentRole', {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: 'Copies the a2 chat page into its bucket and invalidates the distribution',
      distributionArn: this.distribution.distributionArn,
    })
    deploymentLogs.grantWrite(deploymentRole)
    this.deployment = new s3deploy.BucketDeployment(this, 'Deployment', {
      sources: [s3deploy.Source.bucket(asset.bucket, asset.s3ObjectKey)],
      destinationBucket: this.bucket,
      // A browser that still has the previous index.html asks for the
      // previous build's hashed files: keep them (their names never clash),
      // and make browsers check index.html on every load (an ETag makes it a
      // 304), so a deploy reaches them at once and never breaks a page.
      prune: false,
      cacheControl: [s3deploy.CacheControl.noCache()],
      distribution: this.distribution,
      distributionPaths: ['/*'],
      role: deploymentRole,
      logGroup: deploymentLogs,
    })

    this.url = `https://${this.distribution.distributionDomainName}`

    acknowledgeFindings(this, asset.bucket)
  }
}

/** CloudFront's invalidation actions, which `BucketDeployment` grants on `*`. */
const INVALIDATION_ACTIONS = ['cloudfront:CreateInvalidation', 'cloudfront:GetInvalidation']

/**
 * The deployment function's role, with the invalidation grant narrowed to
 * the one distribution: `BucketDeployment` grants `cloudfront:CreateInvalidation`
 * and `GetInvalidation` on `*`, but both take a distribution as their
 * resource (Service Authorization Reference, "Actions, resources, and
 * condition keys for Amazon CloudFront":
 * https://docs.aws.amazon.com/service-authorization/latest/reference/list_amazoncloudfront.html),
 * and the distribution's ARN is known here. Every other statement passes as
 * it is.
 */
class InvalidationScopedRole extends iam.Role {
  private readonly distributionArn: string

  constructor(scope: Construct, id: string, props: iam.RoleProps & { distributionArn: string }) {
    const { distributionArn, ...roleProps } = props
    super(scope, id, roleProps)
    this.distributionArn = distributionArn
  }

  override addToPrincipalPolicy(statement: iam.PolicyStatement): iam.AddToPrincipalPolicyResult {
    const invalidation =
      statement.effect === iam.Effect.ALLOW &&
      statement.actions.length > 0 &&
      statement.actions.every((action) => INVALIDATION_ACTIONS.includes(action)) &&
      statement.resources.length === 1 &&
      statement.resources[0] === '*'
    if (!invalidation) return super.addToPrincipalPolicy(statement)
    return super.addToPrincipalPolicy(
      new iam.PolicyStatement({ actions: statement.actions, resources: [this.distributionArn] }),
    )
  }
}

/** Every acknowledged cdk-nag AwsSolutions finding, with why. */
function acknowledgeFindings(page: A2ChatPage, assetBucket: s3.IBucket): void {
  Validations.of(page.distribution).acknowledge(
    {
      id: 'AwsSolutions-CFR1',
      reason:
        "The page is public, like its agent's API; restricting countries (the distribution's geoRestriction) is the deploying account's choice.",
    },
    {
      id: 'AwsSolutions-CFR2',
      reason:
        "A WAF web ACL is the deploying account's choice (cost, rules), as for the agent's API stage; attach one with page.distribution.attachWebAclId().",
    },
    {
      id: 'AwsSolutions-CFR4',
      reason:
        'The page is served on its *.cloudfront.net name, whose default certificate CloudFront fixes at the TLSv1 security policy; a custom domain with an ACM certificate (TLSv1.2_2021) is the way to a stricter policy.',
    },
  )
  const role = page.deployment.handlerRole
  const pageObjects = nagNotation(page, page.bucket.arnForObjects('*'))
  const assetObjects = nagNotation(page, assetBucket.arnForObjects('*'))
  Validations.of(role).acknowledge(
    ...['s3:GetObject*', 's3:GetBucket*', 's3:List*'].map((action) => ({
      id: `AwsSolutions-IAM5[Action::${action}]`,
      reason:
        "BucketDeployment's read grant (Bucket.grantRead): the page's zip in the CDK asset bucket and the page bucket's current objects, which it syncs.",
    })),
    ...['s3:DeleteObject*', 's3:Abort*'].map((action) => ({
      id: `AwsSolutions-IAM5[Action::${action}]`,
      reason:
        "BucketDeployment's write grant (Bucket.grantReadWrite) on the page bucket only: a deployment replaces the page's files (it does not prune them).",
    })),
    {
      id: `AwsSolutions-IAM5[Resource::${pageObjects}]`,
      reason: 'Every object of the page bucket is part of the page the deployment replaces.',
    },
    {
      id: `AwsSolutions-IAM5[Resource::${assetObjects}]`,
      reason:
        "The page's zip is an object of the CDK bootstrap asset bucket whose key BucketDeployment's grant does not narrow.",
    },
  )
  // The function itself is a stack-wide singleton shared by every
  // BucketDeployment with the same settings.
  const handler = page.deployment.node.findChild(
    'CustomResourceHandler',
  ) as lambda.SingletonFunction
  Validations.of(Stack.of(page).node.findChild(handler.constructName)).acknowledge({
    id: 'AwsSolutions-L1',
    reason:
      "aws-cdk-lib's BucketDeployment pins its function's Python runtime; it runs only at deploy time.",
  })
}

/**
 * A value as cdk-nag names it in a finding ID (its `flattenCfnReference`):
 * `{ Ref: X }` as `<X>`, `{ 'Fn::GetAtt': [X, A] }` as `<X.A>`, joins
 * joined, and `${X}` in a `Fn::Sub` as `<X>`.
 */
function nagNotation(scope: Construct, value: string): string {
  const render = (part: unknown): string => {
    if (typeof part === 'string') return part.replace(/\$\{/g, '<').replace(/\}/g, '>')
    const token = part as {
      Ref?: string
      'Fn::GetAtt'?: [string, string]
      'Fn::Join'?: [string, unknown[]]
      'Fn::Sub'?: unknown
    }
    if (token.Ref) return `<${token.Ref}>`
    if (token['Fn::GetAtt']) return `<${token['Fn::GetAtt'].join('.')}>`
    if (token['Fn::Join']) return token['Fn::Join'][1].map(render).join(token['Fn::Join'][0])
    if (token['Fn::Sub']) return render(token['Fn::Sub'])
    return JSON.stringify(part)
  }
  return render(Stack.of(scope).resolve(value))
}
