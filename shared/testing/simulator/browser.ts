import { openSseSubscription, type SseSubscription } from '../../client/sse-subscription.ts'
import type { StoredEvent } from '../../log/event.ts'
import type { EventStore } from '../../log/event-store.ts'
import { messageOf } from '../../log/message-of.ts'
import type { Random } from './random.ts'
import { processClock } from './sim-clock.ts'
import { type ProcessPool, withTimeout } from './sim-process.ts'
import type { World } from './world.ts'

/** A dropped connection's chance at each chunk the network carries. */
const DROP_CHANCE = 0.03
/** How long a browser stays, once its user is done, to catch up with the log. */
const SETTLE_MS = 10 * 60_000

/** What a browser applied of its session's log, and what it saw go wrong. */
export interface BrowserRecord {
  sessionId: string
  /** The events it applied, in order (after its last rewind). */
  applied: StoredEvent[]
  /** The log's head when it left, caught up. */
  headAtClose?: number
  problems: string[]
  /** Streams dropped by the network (or their server's death), pages reloaded. */
  drops: number
  reloads: number
}

export interface BrowserContext {
  world: World
  pool: ProcessPool
  random: Random
  /** The shared store, read as the checks do (not through a process): the head a browser catches up to. */
  store: EventStore
  /** Sessions whose user stepped away, until they are back: the page is closed meanwhile. */
  away?: ReadonlyMap<string, Promise<void>>
}

/**
 * A browser tab on a session: the real client's SSE subscription
 * (`openSseSubscription`, its reconnects, backoff, quiet ends and head
 * checks) on simulated time, over the real HTTP endpoint (`agent.fetch`) of
 * whichever live process the load balancer picks, through a network that
 * drops connections at random (and with their server, when it dies). The
 * user reloads the page now and then: it reopens from its cursor (or, now
 * and then, from nothing). Once its user is done, it stays until it has
 * caught up with the log's head, then leaves.
 */
export async function browse(
  context: BrowserContext,
  sessionId: string,
  userDone: Promise<unknown>,
): Promise<BrowserRecord> {
  const { world, pool, random, store } = context
  const record: BrowserRecord = { sessionId, applied: [], problems: [], drops: 0, reloads: 0 }
  const say = (what: string) => world.log(`browser ${sessionId}`, what)
  const clock = processClock(world, undefined, 0, `browser ${sessionId}`)
  const lastIndex = () => record.applied.at(-1)?.index ?? 0

  const fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
    await world.sleep(undefined, random.between(5, 60))
    const live = pool.live()
    if (live.length === 0) throw new TypeError('fetch failed: no process is up')
    const process = random.pick(live)
    process.lastActive = world.time
    const request = new Request(String(input), init)
    // undici's Request follows init's signal through a weak reference to a
    // controller of its own that only the request holds: once the server has
    // let go of the request (its stream keeps just `request.signal`), a
    // garbage collection cuts the link, and the stream never hears the
    // browser leave. When the collector runs is the machine's, not the
    // seed's: held by the signal it follows, the link stays until it aborts.
    init?.signal?.addEventListener('abort', () => request.signal, { once: true })
    const response = await withTimeout(world, process.agent.fetch(request), 15_000)
    if (!response.body) return response
    return new Response(network(response.body, process.owner), {
      status: response.status,
      headers: response.headers,
    })
  }) as typeof globalThis.fetch

  /** The network between the browser and a process: chunks a little late, the connection dropped at random or with its process. */
  function network(body: ReadableStream<Uint8Array>, owner: number): ReadableStream<Uint8Array> {
    const reader = body.getReader()
    let cut: ((why: string) => void) | undefined
    world.onKill(owner, () => cut?.('its server died'))
    return new ReadableStream<Uint8Array>({
      start(controller) {
        cut = (why) => {
          cut = undefined
          record.drops++
          say(`stream dropped (${why})`)
          reader.cancel().catch(() => undefined)
          controller.error(new TypeError(`network error: ${why}`))
        }
      },
      async pull(controller) {
        const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }))
        if (!cut) return
        if (done) {
          cut = undefined
          controller.close()
          return
        }
        await world.sleep(undefined, random.between(1, 30))
        if (!cut) return
        if (random.chance(DROP_CHANCE)) return cut('the connection reset')
        controller.enqueue(value as Uint8Array)
      },
      cancel(reason) {
        cut = undefined
        return reader.cancel(reason)
      },
    })
  }

  const open = (): SseSubscription =>
    openSseSubscription({
      endpoint: { api: 'https://app.simulated/api/agent', fetch },
      sessionId,
      lastIndex,
      lastId: () => record.applied.at(-1)?.id,
      // As the client does (client-session.ts): a session erased and started over is another log.
      lastLife: () => record.applied.at(-1)?.life,
      onRewind: () => {
        say(`rewound from #${lastIndex()}`)
        record.applied = []
      },
      onEvents: (events) => {
        for (const event of events) {
          const last = lastIndex()
          if (event.index !== last + 1)
            record.problems.push(`the browser got #${event.index} (${event.id}) after #${last}`)
          record.applied.push(event)
        }
      },
      onStatus: (status, error) =>
        say(`${status}${error ? `: ${messageOf(error)}` : ''}`.slice(0, 160)),
      clock: { timers: clock.timers, now: clock.now, random: () => random.next() },
    })

  let done = false
  void userDone.finally(() => {
    done = true
  })
  await world.sleep(undefined, random.between(0, 2_000))
  let subscription = open()
  while (!done) {
    await world.sleep(undefined, random.between(3_000, 40_000))
    const back = context.away?.get(sessionId)
    if (back && !done) {
      // The user closed the page while away; they open it again when back.
      subscription.close()
      say(`closed at #${lastIndex()} (the user is away)`)
      await back
      subscription = open()
      continue
    }
    if (done || !random.chance(0.3)) continue
    subscription.close()
    record.reloads++
    if (random.chance(0.2)) record.applied = []
    say(`reloaded at #${lastIndex()}`)
    subscription = open()
  }
  const since = world.time
  while (world.time - since < SETTLE_MS) {
    // Caught up: at the log's head, in its life (a log erased and started
    // over to the same length is another log).
    const { index: head, life } = (await store.restingHead?.(sessionId)) ?? {
      index: await store.head(sessionId),
    }
    if (lastIndex() === head && (head === 0 || record.applied.at(-1)?.life === life)) {
      record.headAtClose = head
      break
    }
    await world.sleep(undefined, 1_000)
  }
  subscription.close()
  if (record.headAtClose === undefined)
    record.problems.push(
      `the browser did not catch up within ${SETTLE_MS} ms: at #${lastIndex()}, the log at #${await store.head(sessionId)}`,
    )
  return record
}
