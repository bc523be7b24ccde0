import { A2Error, hasA2Code } from '../../log/error-brand.ts'
import type { ErrorStatuses } from '../../log/error-statuses.ts'
import { messageOf } from '../../log/message-of.ts'
import type { AIEventInput } from '../../model/events/ai-events.ts'
import { derivedId } from '../../model/ids/ids.ts'
import type { HandlerContext } from '../../runtime/handler-context.ts'
import { encodeBatch } from '../../stores/payload-codec.ts'
import type { Fence, LanePorts } from './lane-ports.ts'

declare module '../../log/error-brand.ts' {
  interface A2Codes {
    /** A durable step's result too large to record (`ctx.step()`). */
    STEP_RESULT_TOO_LARGE: undefined
  }
}

/** The HTTP answer to a step's result too large to record: the tool's fault, not the request's. */
export const STEP_ERROR_STATUSES: ErrorStatuses<'STEP_RESULT_TOO_LARGE'> = {
  STEP_RESULT_TOO_LARGE: 500,
}

/** A durable step's result does not fit an event; the step ran but was not recorded. */
export class StepResultTooLargeError extends A2Error<'STEP_RESULT_TOO_LARGE'> {
  readonly step: string

  constructor(step: string, cause: unknown) {
    super(
      'STEP_RESULT_TOO_LARGE',
      `Step "${step}" returned a result too large to record (${messageOf(cause)}). Store large content elsewhere (S3, your database) and return a reference from the step`,
      { cause },
    )
    this.name = 'StepResultTooLargeError'
    this.step = step
  }
}

export interface DurableSteps {
  step: HandlerContext['step']
  /**
   * The error a step's record failed with, if one did: A2's own failure (the
   * store), which retries the work, whatever the tool did with the error.
   */
  failure(): unknown
}

/**
 * `ctx.step(name, fn)` for one piece of claimed work (`scope`, its claim
 * key): a step recorded by an earlier attempt returns its recorded result;
 * otherwise `fn` runs and its result is appended under the attempt's fence
 * before the step returns, so a crash after the append skips it next time and
 * a crash before it redoes only this step. A step returns its result as
 * recorded (JSON), the same on the first run as on a replay.
 */
export function durableSteps(
  lane: Pick<LanePorts, 'append' | 'state'>,
  sessionId: string,
  work: {
    scope: string
    recorded: Readonly<Record<string, { output?: unknown }>> | undefined
    fence: Fence
    /** The session's life the work runs in. */
    life: string | undefined
  },
): DurableSteps {
  const done = new Map<string, { output?: unknown }>(Object.entries(work.recorded ?? {}))
  let failure: unknown
  const step = async <T>(name: string, fn: () => T | Promise<T>): Promise<T> => {
    if (typeof name !== 'string' || name.length === 0) {
      throw new TypeError('ctx.step(name, fn) needs a non-empty name')
    }
    const recorded = done.get(name)
    if (recorded) return recorded.output as T
    const value = await fn()
    const output = value === undefined ? undefined : JSON.parse(JSON.stringify(value))
    const event: AIEventInput = {
      id: derivedId('step', work.scope, name),
      type: 'ai.step.completed',
      payload: { scope: work.scope, name, ...(output === undefined ? {} : { output }) },
    }
    try {
      encodeBatch([event])
    } catch (error) {
      throw new StepResultTooLargeError(name, error)
    }
    try {
      await lane.append(sessionId, [event], { at: 'end', life: work.life, fence: work.fence })
    } catch (error) {
      // An earlier attempt's append landed after all (an unknown outcome):
      // its result is the step's, not this run's.
      const landed = hasA2Code(error, 'PARTIAL_DUPLICATE_BATCH')
        ? (await lane.state(sessionId)).state.ai.durableSteps[work.scope]?.[name]
        : undefined
      if (!landed) {
        failure ??= error
        throw error
      }
      done.set(name, landed)
      return landed.output as T
    }
    done.set(name, output === undefined ? {} : { output })
    return output as T
  }
  return { step, failure: () => failure }
}
