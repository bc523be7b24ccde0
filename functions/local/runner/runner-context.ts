import type { SQSRecord } from 'aws-lambda'
import type { PipelineHandlers } from '../../../shared/aws/lambda/handlers-by-function.ts'
import type { PipelineLogger } from '../../../shared/aws/lambda/pipeline-agent.ts'
import type { IdleWaits } from './idle-waits.ts'

/** Counts of what the runner did, for tests and benchmarks (`LocalPipeline.stats`). */
export interface PipelineStats {
  routerInvocations: number
  laneInvocations: Record<string, number>
  /** Invocations cut off at their function's timeout. */
  timeouts: Record<string, number>
  /** Invocations ended by `kill()`. */
  kills: Record<string, number>
  schedulesFired: number
}

/** A queue function's invocation while it runs: its records, and how to kill it. */
export interface RunningInvocation {
  records: SQSRecord[]
  kill: () => void
}

/** What the local pipeline's mappings (stream, queues, scheduler) share. */
export interface RunnerContext {
  readonly handlers: PipelineHandlers
  readonly stats: PipelineStats
  readonly logger: PipelineLogger
  /** The pollers' idle backoff: work anywhere wakes them all. */
  readonly idle: IdleWaits
  readonly invocations: Set<RunningInvocation>
  /** False once the pipeline stops: failures after that are not worth a warning. */
  readonly running: () => boolean
}
