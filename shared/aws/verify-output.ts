import { z } from 'zod'

/**
 * The description of the stack output each A2Agent adds for `npm run
 * verify`: verify finds its agents' outputs by it.
 */
export const VERIFY_OUTPUT_DESCRIPTION =
  'a2-aws verify configuration (JSON): read by npm run verify -- --stack <name>'

/** What verify needs to know of a deployed agent beyond its URL. */
export const verifyConfigSchema = z.object({
  /** The A2Agent's construct path (`Stack/Agent`), to pick it with `--agent`. */
  path: z.string().min(1),
  url: z.url(),
  region: z.string().min(1),
  scheduleGroup: z.string().min(1),
  schedulerRoleArn: z.string().min(1),
  timerQueueArn: z.string().min(1),
  timerQueueUrl: z.string().min(1),
  schedulerDeadLetterQueueArn: z.string().min(1),
  /** The log group of the function that serves GET streams. */
  streamLogGroup: z.string().min(1),
  /** The stream router's log group, for its invocations per turn. Absent from older stacks. */
  routerLogGroup: z.string().min(1).optional(),
  /**
   * The agent's alarms at synth: how many, on how many metrics, and how
   * many have an alarm action (notify someone). Absent from older stacks.
   */
  alarms: z.object({ count: z.number(), metrics: z.number(), notifying: z.number() }).optional(),
  /**
   * The Bedrock model and inference profile IDs the generation function is
   * granted (`bedrockModels`), for the models check. Absent: none, or a
   * stack deployed before it.
   */
  bedrockModels: z.array(z.string().min(1)).optional(),
  /**
   * Lambda concurrency as the last deploy found it: the most invocations the
   * capped queues' event sources may run (`lanes`), and with a stream reservation
   * what was asked, what was reserved and the account's quota. Absent from
   * stacks deployed before it.
   */
  concurrency: z
    .object({
      lanes: z.coerce.number(),
      /** Queues whose event sources have no cap (their invocations are not in `lanes`). */
      uncappedQueues: z.coerce.number().optional(),
      streamsRequested: z.coerce.number().optional(),
      streamsReserved: z.coerce.number().optional(),
      accountLimit: z.coerce.number().optional(),
    })
    .optional(),
})

export type VerifyConfig = z.output<typeof verifyConfigSchema>
/** What the construct writes (deploy-time values are tokens, read back as numbers). */
export type VerifyConfigInput = z.input<typeof verifyConfigSchema>
