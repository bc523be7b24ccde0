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
})

export type VerifyConfig = z.output<typeof verifyConfigSchema>
