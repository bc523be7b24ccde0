import type { LanguageModelV4, LanguageModelV4StreamPart } from '@ai-sdk/provider'
import type { Tool, ToolSet } from 'ai'
import type { EventStore } from '../log/event-store.ts'
import type { Scheduler } from '../runtime/scheduler.ts'
import type { Dispatcher } from '../runtime/wake-up.ts'

/**
 * Thrown at a crash point, and by every port call of a process after its
 * crash: a dead process writes, sends and streams nothing more, whatever its
 * code does with the error.
 */
export class CrashError extends Error {
  readonly point: number

  constructor(point: number, label: string) {
    super(`crashed at point ${point} (${label})`)
    this.name = 'CrashError'
    this.point = point
  }
}

/**
 * One process's crash points, counted in the order it reaches them. With
 * `crashAt`, the process dies at that point: the point throws `CrashError`,
 * and so does every later port call. With `freeze` too, it does not die
 * there: it stops (a long GC pause, a starved VM) until `thaw()`, then goes
 * on with what it knew, while another process may have taken its work over.
 */
export class CrashPoints {
  readonly labels: string[] = []
  crashed: CrashError | undefined
  readonly crashAt: number | undefined
  /** Where the process froze, once it did. */
  frozenAt: string | undefined
  /** Resolves as the process freezes. */
  readonly froze: Promise<void>
  private readonly freeze: boolean
  private heard: () => void = () => {}
  private release: () => void = () => {}
  private readonly thawed: Promise<void>
  private thawedYet = false

  constructor(crashAt?: number, { freeze = false }: { freeze?: boolean } = {}) {
    this.crashAt = crashAt
    this.freeze = freeze
    this.froze = new Promise((resolve) => {
      this.heard = resolve
    })
    this.thawed = new Promise((resolve) => {
      this.release = resolve
    })
  }

  /**
   * A durable boundary: throws when the process dies here or died before;
   * a promise to wait on when it freezes here (until `thaw()`).
   */
  point(label: string): Promise<void> | undefined {
    if (this.crashed) throw this.crashed
    this.labels.push(label)
    if (this.labels.length !== this.crashAt) return undefined
    if (this.freeze) {
      this.frozenAt = label
      this.heard()
      return this.thawed
    }
    this.crashed = new CrashError(this.labels.length, label)
    throw this.crashed
  }

  /** The frozen process goes on. */
  thaw(): void {
    this.thawedYet = true
    this.release()
  }

  /** While frozen, anything else the process would do waits too: a frozen process runs nothing. */
  stillFrozen(): Promise<void> | undefined {
    return this.frozenAt !== undefined && !this.thawedYet ? this.thawed : undefined
  }

  /** A call with a point before it and after it (the call's effect is durable, the process dies). */
  async around<T>(label: string, call: () => Promise<T>): Promise<T> {
    await this.point(`before ${label}`)
    const result = await call()
    await this.point(`after ${label}`)
    return result
  }
}

const WRITES = ['append', 'claim', 'renewClaim', 'releaseClaim', 'revokeClaim', 'writeSnapshot']
const READS = ['read', 'head', 'restingHead', 'readSnapshot', 'readCursor', 'readClaim', 'tail']

/**
 * The store as a process sees it: each write (append, claim, renewal,
 * release, revocation, snapshot; a cursor moves with an append) has a point
 * before and after it. Reads change nothing durable, so a crash around one is
 * a crash at the next write; after the crash they fail too. `onAppended`
 * hears every append that returned, so a test can check none is lost.
 */
export function crashingStore(
  store: EventStore,
  points: CrashPoints,
  onAppended: (sessionId: string, ids: { id: string; index: number }[]) => void,
): EventStore {
  return new Proxy(store, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver)
      if (typeof property !== 'string' || typeof value !== 'function') return value
      if (READS.includes(property)) {
        return (...args: unknown[]) => {
          if (points.crashed) throw points.crashed
          return value.apply(target, args)
        }
      }
      if (!WRITES.includes(property)) return value
      return async (...args: unknown[]) => {
        const label = `store.${property}${describeWrite(property, args)}`
        const result = await points.around(label, () => value.apply(target, args))
        if (property === 'append') {
          const { events } = result as Awaited<ReturnType<EventStore['append']>>
          onAppended(
            args[0] as string,
            events.map(({ id, index }) => ({ id, index })),
          )
        }
        return result
      }
    },
  })
}

function describeWrite(method: string, args: unknown[]): string {
  if (method === 'append') {
    const events = args[1] as readonly { type: string }[]
    const options = args[2] as { cursor?: { name: string } } | undefined
    const types = events.map((event) => event.type.replace(/^ai\./, ''))
    return `(${[...types, ...(options?.cursor ? [`cursor ${options.cursor.name}`] : [])].join(', ')})`
  }
  const key = args[1]
  if (typeof key === 'string') return `(${key.split(':')[0]})`
  const claim = args[1] as { key?: string } | undefined
  return claim?.key ? `(${claim.key.split(':')[0]})` : ''
}

/** Wake-ups sent by a process: a point before and after each send. */
export function crashingDispatcher(dispatcher: Dispatcher, points: CrashPoints): Dispatcher {
  return {
    wake: (wakeUps) =>
      points.around(`wake(${wakeUps.map((wakeUp) => wakeUp.lane).join(', ')})`, () =>
        dispatcher.wake(wakeUps),
      ),
  }
}

/** Timers set by a process: a point before and after each. */
export function crashingScheduler(scheduler: Scheduler, points: CrashPoints): Scheduler {
  return {
    schedule: (timer) => points.around(`schedule(${timer.name})`, () => scheduler.schedule(timer)),
    cancel: (sessionId) => scheduler.cancel(sessionId),
  }
}

/**
 * The tools with a point as each `execute` starts and as it returns (before
 * A2 records the result). A tool that streams (returns an async iterable)
 * gets the start point only.
 */
export function crashingTools<Tools extends ToolSet>(tools: Tools, points: CrashPoints): Tools {
  const wrapped: Record<string, Tool> = {}
  for (const [name, definition] of Object.entries(tools)) {
    const execute = definition.execute
    if (!execute) {
      wrapped[name] = definition
      continue
    }
    wrapped[name] = {
      ...definition,
      execute: (input: unknown, options: unknown) => {
        const run = () => {
          const output = (execute as (input: unknown, options: unknown) => unknown)(input, options)
          if (!(output instanceof Promise)) return output
          return output.then(async (value) => {
            await points.point(`${name}.execute return`)
            return value
          })
        }
        const frozen = points.point(`${name}.execute start`)
        return frozen ? frozen.then(run) : run()
      },
    } as Tool
  }
  return wrapped as Tools
}

/** The model with a point at each stream read. */
export function crashingModel(model: LanguageModelV4, points: CrashPoints): LanguageModelV4 {
  return {
    ...model,
    specificationVersion: model.specificationVersion,
    provider: model.provider,
    modelId: model.modelId,
    supportedUrls: model.supportedUrls,
    doGenerate: (options) => model.doGenerate(options),
    async doStream(options) {
      await points.point('model.doStream')
      const result = await model.doStream(options)
      return {
        ...result,
        stream: result.stream.pipeThrough(
          new TransformStream<LanguageModelV4StreamPart, LanguageModelV4StreamPart>({
            transform(part, controller) {
              const frozen = points.point(`model read(${part.type})`)
              if (!frozen) return controller.enqueue(part)
              return frozen.then(() => controller.enqueue(part))
            },
          }),
        ),
      }
    },
  }
}
