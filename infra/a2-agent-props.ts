import type { Duration, RemovalPolicy } from 'aws-cdk-lib'
import type { QueueFunction, QueueLane } from '../shared/aws/pipeline-functions.ts'
import type { A2AgentAlarmsProps } from './a2-agent-monitoring.ts'
import type { A2AgentAuth } from './api-auth.ts'
import type { BedrockModel } from './bedrock-grants.ts'
import type { AgentSecret } from './secrets.ts'

export type LaneName = QueueLane
/** The functions whose timeout a prop may set. */
export type TimedFunction = QueueFunction | 'router'

export interface A2AgentProps {
  /** The agent module: a file exporting the value `agent()` returns. */
  entry: string
  /** The agent's export in `entry` (default `default`). */
  exportName?: string
  /**
   * What happens to the event log table when the stack goes (default
   * RETAIN): RETAIN keeps it (with its point-in-time recovery; take an
   * AWS Backup or on-demand backup before deleting it by hand), DESTROY
   * deletes it. SNAPSHOT is refused at synth (`UNSUPPORTED_REMOVAL_POLICY`):
   * CloudFormation has no Snapshot deletion policy for a DynamoDB table.
   */
  removalPolicy?: RemovalPolicy
  /**
   * DynamoDB deletion protection on the event log table: a `cdk destroy` or
   * a stray delete cannot drop every session's history. Default: on, unless
   * `removalPolicy` is DESTROY, which deletion protection would refuse;
   * asking for both is an error at synth.
   */
  deletionProtection?: boolean
  /** More environment for every function (`A2_MODEL`, ...; never a secret: see `secrets`). */
  environment?: Record<string, string>
  /**
   * Models the agent invokes on Amazon Bedrock, as its `model` names them
   * (`bedrock:us.anthropic.claude-sonnet-4-5-20250929-v1:0`, the prefix
   * optional): the generation function, the one that calls models, may
   * invoke exactly these, with its role's credentials (no key). A
   * foundation model is granted in the stack's region; a cross-region
   * inference profile with its foundation model in every region it routes
   * to, only through the profile.
   */
  bedrockModels?: readonly BedrockModel[]
  /**
   * Keys as environment variables, never in the template: `{
   * AI_GATEWAY_API_KEY: secret }` with a Secrets Manager secret or an SSM
   * parameter. Each function named for a secret may read exactly it, gets
   * its ARN, and reads the value once at cold start into the variable. By
   * default the generation function reads it (a model key); `{ source,
   * functions: ['generation', 'tools'] }` names the functions.
   */
  secrets?: Record<string, AgentSecret>
  /** Memory of every function in MB but the stream and generation functions (default 1024). */
  memorySize?: number
  /**
   * Memory of the generation function in MB (default 256, or `memorySize`
   * when that is set): it waits on the model, billed by the second the model
   * streams, and a step's resident set peaked at 150 to 165 MB (`npm run
   * bench -- lane-memory`, the sources loaded; the bundle takes about 30 MB
   * less). More gives more CPU (Lambda's share scales with
   * memory: a turn's own work took about 250 ms at 256 MB, 120 ms at 512)
   * and headroom for long conversations held in memory.
   */
  generationMemorySize?: number
  /**
   * Memory of the function that serves GET (streams and head checks) in MB
   * (default 192): it waits on the log and writes frames, and an open tab
   * pays for it by the second; the bundle is about 100 MB resident once
   * loaded and a stream adds a few MB.
   */
  streamMemorySize?: number
  /** Function timeouts; queue visibility timeouts follow at 6x. */
  timeouts?: Partial<Record<TimedFunction, Duration>>
  /** Deliveries of a queue message before it goes to its dead-letter queue (default 5). */
  maxReceiveCount?: number
  /**
   * Expire idle sessions after this long (`'30 days'`): the agent's
   * `retention` (through `awsAgentParts()`), kept by the table's TTL on each
   * session's head. Default: sessions are kept forever.
   */
  retention?: string
  /**
   * Let the agent's tools and handlers erase sessions (`session.erase()`,
   * default false): the four lane functions, where they run, may list and
   * delete the agent's schedules (`scheduler:ListSchedules`, which takes no
   * resource, and `scheduler:DeleteSchedule` on the agent's group) and
   * delete items (`dynamodb:DeleteItem`, `dynamodb:BatchWriteItem` on the
   * table). Without it an erase in a deployed function fails at once with
   * `ERASE_NOT_GRANTED`, naming this prop; an operator erases with their own
   * credentials (`npx a2-aws erase`).
   */
  erase?: boolean
  /**
   * The most invocations each queue's event source mapping runs at once
   * (`MaximumConcurrency`, 2 to 1,000), so no queue can take the account's
   * whole Lambda concurrency; `false` sets none. By default generation (50),
   * tools (50) and timers (5) are capped, and admission, handlers and
   * ingress, FIFO queues of short invocations bounded by the sessions with
   * work, are not (`QUEUE_FUNCTIONS`). A cap has an idle cost: Lambda keeps
   * five pollers long-polling a capped queue, where an uncapped one scales
   * down to two, about $0.19 a month more per FIFO queue and $0.16 per
   * standard queue in empty receives (docs/deploy.md, "What an idle stack
   * costs"). Generation is better bounded by the model provider's rate limits.
   */
  maxConcurrency?: Partial<Record<QueueFunction, number | false>>
  /**
   * Concurrency reserved for the function that serves GET streams (default
   * 100), which also caps how many SSE streams are open at once: each holds
   * a Lambda invocation for up to 30 s (a client resumes it after that, or
   * checks the head while the session is quiet), and without a cap they
   * could take the concurrency the lanes need. Applied at deploy time only when
   * the account can spare it (a new account's quota is often 10); `false`
   * reserves nothing.
   */
  streamConcurrency?: number | false
  /**
   * The account's Lambda concurrency quota, if you know it (`aws lambda
   * get-account-settings --query AccountLimit.ConcurrentExecutions`):
   * synthesizing is offline and cannot ask. At 100 or less (a new account's
   * is often 10) nothing can be reserved for GET streams and they share the
   * quota with the lanes, so synth warns. Whatever it says, the reservation
   * is computed at deploy time from the real quota (the
   * `<construct>StreamConcurrency` output says what it found), and
   * `npm run verify` warns too.
   */
  lambdaConcurrencyQuota?: number
  /** The API stage's throttle (default 100 requests per second, bursts of 200). */
  throttle?: { rateLimit: number; burstLimit: number }
  /**
   * Create and own the account's API Gateway CloudWatch role (default true):
   * API Gateway refuses stage logging until the account has one, and a
   * fresh account has none. Set false where the account's role is managed
   * centrally (it must exist before the deploy).
   */
  apiGatewayCloudWatchRole?: boolean
  /** Where esbuild runs and finds `node_modules` (default: the current directory). */
  projectRoot?: string
  /**
   * The loop the agent module runs, as its `agent({ harness })` says
   * (default `'ai-sdk'`, which needs nothing more; `'pi'` for `piHarness()`,
   * `'fx'` for `fxHarness()`). A2 loads a
   * harness's packages by name when its first step runs, so no bundle holds
   * them: `'pi'` installs `@mariozechner/pi-agent-core` and
   * `@mariozechner/pi-ai` into each function's `node_modules` beside its
   * bundle (the versions in your lock file; install them in `projectRoot`
   * first) and leaves them out of the bundle. Without it, a Pi step in a
   * deployed function fails with `HARNESS_UNAVAILABLE`. `'fx'` is refused:
   * the FX harness runs an ACP agent process (`fx acp`) beside the agent
   * and holds a step open while that agent waits for permission, which a
   * Lambda function has neither the command nor the time for; run an FX
   * agent in a Node server or container (docs/harnesses.md).
   */
  harness?: 'ai-sdk' | 'pi' | 'fx'
  /** The API stage (default `prod`). */
  stageName?: string
  /**
   * Where the functions' metrics go (CloudWatch EMF): the namespace
   * (default `a2`) and the value of their `service` dimension (default this
   * construct's path, e.g. `MyStack/Support`), which tells agents apart.
   */
  metrics?: { namespace?: string; service?: string }
  /**
   * X-Ray active tracing on every function, each invocation a Powertools
   * Tracer subsegment with its AWS and model calls, sampled by X-Ray's
   * default rule (one request a second and 5% beyond). Default false:
   * traces cost per trace beyond X-Ray's free tier and need a wildcard
   * grant (X-Ray has no resources to scope it to); the metrics and alarms
   * are always on. Turn it on to find where a slow turn spends its time.
   */
  tracing?: boolean
  /**
   * The AI SDK's telemetry on every model call (default false): spans go
   * to the integration the agent module registers (`registerTelemetry`).
   */
  modelTelemetry?: boolean
  /**
   * The agent's alarms (default: created, without actions; 21 alarms on 22
   * metrics, $2.20 a month at $0.10 each): `{ topic }` notifies an SNS
   * topic, `{ throttles: 'all' }` alarms on every function's throttles
   * (+$0.70); `false` creates none.
   */
  alarms?: A2AgentAlarmsProps | false
  /**
   * A CloudWatch dashboard of the agent (default false): $3.00 a month at
   * list price (an account's first three dashboards of up to 50 metrics are
   * free), the largest part of an idle stack's fixed cost.
   */
  dashboard?: boolean
  /**
   * Who may open a session (default `'capability'`: the server opens
   * sessions and signs a token for each, with a key in Secrets Manager;
   * `{ type: 'cognito', userPools }`; `'iam'`; or `'none'`, which warns).
   */
  auth?: A2AgentAuth
}
