import { wakeUpMessage } from '../../aws/wake-up-message.ts'
import { LANES, type Lane } from '../../runtime/lane-table.ts'
import type { WakeUp } from '../../runtime/wake-up.ts'
import type { Faults } from './faults.ts'
import type { Random } from './random.ts'
import type { WakeUpOrigin } from './wake-up-ledger.ts'
import type { World } from './world.ts'

/** SQS FIFO's deduplication window. */
const DEDUPLICATION_WINDOW_MS = 5 * 60_000

/** A wake-up on its lane's queue. */
export interface QueueMessage {
  id: string
  queue: string
  /** The FIFO message group: the session, or the session and key of a keyed wake-up. */
  group: string
  wakeUp: WakeUp
  sentSeq: number
  visibleAt: number
  receiveCount: number
  inFlight: boolean
  /** Who sent it: a writer's fast path, the stream router, or a recovery (no news named). */
  origin?: WakeUpOrigin
}

/** Where a delivered message runs: true when a process took it. */
export type Consumer = (message: QueueMessage) => boolean

/**
 * The lanes' SQS FIFO queues: at least once, in order within a message
 * group, one message of a group in flight at a time (FIFO group blocking),
 * deduplicated by ID for five minutes. A message a consumer failed comes
 * back when its visibility ends; one whose consumer died, when its lease
 * runs out. Faults: a delayed message, one that comes back after it was
 * deleted.
 */
export class SimQueues {
  private readonly messages: QueueMessage[] = []
  private readonly seen = new Map<string, number>()
  private seq = 0
  private pumping = false
  private wakeAt = Number.POSITIVE_INFINITY
  private consumer: Consumer = () => false
  sent = 0
  deduplicated = 0

  private readonly world: World
  private readonly faults: Faults
  private readonly random: Random

  constructor(world: World, faults: Faults, random: Random) {
    this.world = world
    this.faults = faults
    this.random = random
  }

  consume(consumer: Consumer): void {
    this.consumer = consumer
  }

  get pending(): number {
    return this.messages.length
  }

  /**
   * Sends wake-ups as the SQS dispatcher and the stream router do: each as
   * its message (`wakeUpMessage`: its group, its deduplication ID from the
   * news it is for), and one whose deduplication ID the queue saw in the
   * last five minutes sends nothing.
   */
  send(wakeUps: readonly WakeUp[], origin?: WakeUpOrigin): void {
    for (const wakeUp of wakeUps) {
      const queue = LANES[wakeUp.lane as Lane]?.queue ?? wakeUp.lane
      const group =
        wakeUp.key === undefined ? wakeUp.sessionId : `${wakeUp.sessionId}/${wakeUp.key}`
      if (wakeUp.at !== undefined) {
        const message = wakeUpMessage(wakeUp)
        const key = `${message.lane}\u0000${message.groupId}\u0000${message.deduplicationId}`
        const at = this.seen.get(key)
        if (at !== undefined && this.world.time - at < DEDUPLICATION_WINDOW_MS) {
          this.deduplicated++
          continue
        }
        this.seen.set(key, this.world.time)
      }
      const delayed = this.faults.strikes('sqs.delayed') ? this.faults.between(500, 5_000) : 0
      this.messages.push({
        id: `msg-${++this.seq}`,
        queue,
        group,
        wakeUp: { ...wakeUp },
        sentSeq: this.seq,
        visibleAt: this.world.time + delayed,
        receiveCount: 0,
        inFlight: false,
        ...(origin === undefined ? {} : { origin }),
      })
      this.sent++
    }
    this.pump()
  }

  /** Processed: deleted (or, at least once, back for another delivery). */
  ack(message: QueueMessage): void {
    message.inFlight = false
    if (this.faults.strikes('sqs.redelivered')) {
      this.world.log('sqs', `fault sqs.redelivered ${message.id}`)
      message.visibleAt = this.world.time + this.random.between(0, 2_000)
    } else this.remove(message)
    this.pump()
  }

  /** Failed, or its consumer died: visible again at `visibleAt`. */
  retryAt(message: QueueMessage, visibleAt: number): void {
    message.inFlight = false
    message.visibleAt = visibleAt
    this.pump()
  }

  /** Received `maxReceiveCount` times: off to the dead-letter queue. */
  drop(message: QueueMessage): void {
    this.remove(message)
    this.pump()
  }

  private remove(message: QueueMessage): void {
    const at = this.messages.indexOf(message)
    if (at !== -1) this.messages.splice(at, 1)
  }

  /** Delivers what can be delivered, soon (a poll), and looks again when the next message becomes visible. */
  pump(): void {
    if (this.pumping) return
    this.pumping = true
    this.world.after(this.random.between(1, 20), undefined, () => {
      this.pumping = false
      this.deliver()
    })
  }

  private deliver(): void {
    const heads = new Map<string, QueueMessage>()
    const blocked = new Set<string>()
    for (const message of this.messages) {
      const group = `${message.queue}\u0000${message.group}`
      if (message.inFlight) blocked.add(group)
      if (!heads.has(group)) heads.set(group, message)
    }
    const ready = [...heads]
      .filter(([group, head]) => !blocked.has(group) && head.visibleAt <= this.world.time)
      .map(([, head]) => head)
    for (const message of shuffled(ready, this.random)) {
      message.inFlight = true
      message.receiveCount++
      if (this.consumer(message)) {
        this.world.log(
          'sqs',
          `deliver ${message.id} ${message.wakeUp.lane} ${message.group} (receive ${message.receiveCount})`,
        )
        continue
      }
      message.inFlight = false
      message.receiveCount--
    }
    const next = Math.min(
      ...this.messages
        .filter((message) => !message.inFlight && message.visibleAt > this.world.time)
        .map((message) => message.visibleAt),
    )
    if (Number.isFinite(next) && next < this.wakeAt) {
      this.wakeAt = next
      this.world.at(next, undefined, () => {
        this.wakeAt = Number.POSITIVE_INFINITY
        this.pump()
      })
    }
  }
}

function shuffled<T>(items: T[], random: Random): T[] {
  const copy = [...items]
  for (let i = copy.length - 1; i > 0; i--) {
    const j = random.int(i + 1)
    ;[copy[i], copy[j]] = [copy[j] as T, copy[i] as T]
  }
  return copy
}
