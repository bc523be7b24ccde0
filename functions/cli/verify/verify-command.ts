import { CloudFormationClient } from '@aws-sdk/client-cloudformation'
import { CloudWatchLogsClient } from '@aws-sdk/client-cloudwatch-logs'
import { SchedulerClient } from '@aws-sdk/client-scheduler'
import { SQSClient } from '@aws-sdk/client-sqs'
import { eventBridgeScheduler } from '../../../shared/aws/eventbridge-scheduler.ts'
import type { VerifyConfig } from '../../../shared/aws/verify-output.ts'
import { hasA2Code } from '../../../shared/log/error-brand.ts'
import { awsSetupProblem } from '../aws-setup.ts'
import { parseVerifyArgs, VERIFY_USAGE, type VerifyArgs } from './args.ts'
import { bedrockInvoker } from './bedrock-invoke.ts'
import { cloudWatchLogSearch } from './log-search.ts'
import { resultLine, summaryLine } from './report.ts'
import { runVerify, type VerifyOptions } from './run-verify.ts'
import { readStackTarget } from './stack-target.ts'

export interface CommandIo {
  stdout: (line: string) => void
  stderr: (line: string) => void
  /** Reads a stack's outputs (default: CloudFormation in the environment's or `--region`'s region). */
  cloudFormation?: (region: string | undefined) => Pick<CloudFormationClient, 'send'>
  /** Runs the checks (default `runVerify`). */
  run?: typeof runVerify
  /** Another Bedrock Runtime endpoint for the models check (a double on loopback in tests). */
  bedrockBaseURL?: string
}

/**
 * `a2-aws verify ...`: reads the arguments, finds the agent (`--stack`
 * outputs, or `--url`), runs the checks and prints a line per check and a
 * summary (or `--json`). Answers the exit code: 0 when nothing failed, 1 on
 * a FAIL, 2 when verify could not start.
 */
export async function verifyCommand(argv: readonly string[], io: CommandIo): Promise<number> {
  let args: VerifyArgs
  try {
    args = parseVerifyArgs(argv)
  } catch (error) {
    if (!hasA2Code(error, 'USAGE')) throw error
    io.stderr(`a2-aws verify: ${error.message}\n\n${VERIFY_USAGE}`)
    return 2
  }
  if (args.help) {
    io.stdout(VERIFY_USAGE)
    return 0
  }
  let config: VerifyConfig | undefined
  if (args.stack) {
    const cloudFormation =
      io.cloudFormation?.(args.region) ??
      new CloudFormationClient(args.region ? { region: args.region } : {})
    try {
      config = await readStackTarget(cloudFormation, args.stack, args.agent)
    } catch (error) {
      io.stderr(`a2-aws verify: ${awsSetupProblem(error) ?? (error as Error).message}`)
      return 2
    }
  }
  const url = args.url ?? (config as VerifyConfig).url
  const options: VerifyOptions = {
    url,
    headers: args.headers,
    checks: args.checks,
    answerTimeoutMs: args.answerSeconds * 1000,
    quietMs: args.quietSeconds * 1000,
    timerDelayMs: args.timerMinutes * 60_000,
    ...(args.message ? { message: args.message } : {}),
    ...(config ? awsParts(config, io.bedrockBaseURL) : {}),
    onResult: (result) => {
      if (!args.json) io.stdout(resultLine(result))
    },
  }
  const minutes = Math.ceil(
    Math.max(
      args.checks.includes('timer') && config ? args.timerMinutes + 2 : 0,
      args.checks.includes('heartbeat') ? args.quietSeconds / 60 + 1 : 1,
    ),
  )
  io.stderr(`a2-aws verify: ${url} (takes up to about ${minutes} min)`)
  const report = await (io.run ?? runVerify)(options)
  io.stdout(args.json ? JSON.stringify(report, null, 2) : summaryLine(report))
  return report.ok ? 0 : 1
}

/** The AWS checks' access to the agent's resources, and what the stack says of the account. */
function awsParts(
  config: VerifyConfig,
  bedrockBaseURL?: string,
): Pick<
  VerifyOptions,
  | 'scheduler'
  | 'searchStreamLogs'
  | 'bedrockModels'
  | 'invokeModel'
  | 'concurrency'
  | 'alarms'
  | 'searchRouterLogs'
> {
  const region = { region: config.region }
  const sqs = new SQSClient(region)
  const logs = new CloudWatchLogsClient(region)
  return {
    bedrockModels: config.bedrockModels ?? [],
    // The caller's credentials, as the SDK clients resolve them.
    invokeModel: bedrockInvoker({
      region: config.region,
      credentials: () => sqs.config.credentials(),
      ...(bedrockBaseURL ? { baseURL: bedrockBaseURL } : {}),
    }),
    concurrency: config.concurrency ?? 'unknown',
    alarms: config.alarms ?? 'unknown',
    scheduler: eventBridgeScheduler({
      scheduler: new SchedulerClient(region),
      // Only the SQS-delay path uses it, which forceScheduler turns off.
      sqs,
      groupName: config.scheduleGroup,
      roleArn: config.schedulerRoleArn,
      timerQueueArn: config.timerQueueArn,
      timerQueueUrl: config.timerQueueUrl,
      deadLetterQueueArn: config.schedulerDeadLetterQueueArn,
      forceScheduler: true,
    }),
    searchStreamLogs: cloudWatchLogSearch(logs, config.streamLogGroup),
    ...(config.routerLogGroup
      ? { searchRouterLogs: cloudWatchLogSearch(logs, config.routerLogGroup) }
      : {}),
  }
}
