import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources'
import {
  QUEUE_FUNCTION_NAMES,
  QUEUE_FUNCTIONS,
  type QueueFunction,
  type QueueFunctionSpec,
} from '../shared/aws/pipeline-functions.ts'
import type { A2AgentProps } from './a2-agent-props.ts'
import type { AgentFunctions } from './agent-functions.ts'
import type { FunctionQueue } from './agent-queues.ts'

/** How many invocations the queues' event sources may run: the capped total, and the uncapped queues. */
export interface LaneConcurrency {
  capped: number
  uncapped: string[]
}

/** Each queue feeding its function, capped as the lane table and the props say. */
export function queueEventSources(
  props: Pick<A2AgentProps, 'maxConcurrency'>,
  functions: AgentFunctions,
  queues: Record<QueueFunction, FunctionQueue>,
): LaneConcurrency {
  // Each queue feeds its function as deployed in QUEUE_FUNCTIONS (the
  // local runner plays the same settings). The event source grants
  // ChangeMessageVisibility, which the handlers use to lease their messages.
  const caps = QUEUE_FUNCTION_NAMES.map((name) => ({
    name,
    cap: queueCap(name, props.maxConcurrency?.[name]),
  }))
  for (const { name, cap } of caps) {
    const spec = QUEUE_FUNCTIONS[name]
    functions[name].addEventSource(
      new SqsEventSource(queues[name].main, {
        batchSize: spec.batchSize,
        reportBatchItemFailures: true,
        ...(cap === undefined ? {} : { maxConcurrency: cap }),
      }),
    )
  }
  const laneConcurrency = {
    capped: caps.reduce((total, { cap }) => total + (cap ?? 0), 0),
    uncapped: caps.filter(({ cap }) => cap === undefined).map(({ name }) => name),
  }
  return laneConcurrency
}

/** A queue's `MaximumConcurrency`: the prop's, or its default when capped by default; none for `false`. */
function queueCap(name: QueueFunction, prop: number | false | undefined): number | undefined {
  if (prop === false) return undefined
  if (prop === undefined) {
    const spec: QueueFunctionSpec = QUEUE_FUNCTIONS[name]
    return spec.capped ? spec.maxConcurrency : undefined
  }
  if (!Number.isInteger(prop) || prop < 2 || prop > 1000) {
    throw new Error(
      `a2: maxConcurrency.${name} is an event source mapping's MaximumConcurrency, a whole number from 2 to 1,000 (or false for none), not ${prop}`,
    )
  }
  return prop
}

/** How many invocations the queues' event sources may run, for people. */
export function lanesText({ capped, uncapped }: { capped: number; uncapped: string[] }): string {
  return uncapped.length === 0
    ? `${capped} invocations in all`
    : `${capped} invocations in all on the capped queues, and one per session with work on ${uncapped.join(', ')}`
}
