import type { UIMessage } from 'ai'
import type { EventInput } from '../log/event.ts'
import type { PendingCommand } from '../model/optimistic/optimistic-state.ts'
import type { AIState } from '../model/state/ai-state.ts'

interface Entry<M extends UIMessage> {
  command: PendingCommand<M>
  /** Its log index, once the push answered or the stream delivered it. */
  index?: number
}

/**
 * The commands this client pushed whose decision it has not yet seen, in
 * push order: what `optimisticAIState` folds over confirmed state. A command
 * leaves when confirmed state is past its index and no longer holds it as
 * undecided (applied or rejected alike), or when its push fails, which
 * restores the view.
 */
export class PendingCommands<M extends UIMessage = UIMessage> {
  readonly #entries = new Map<string, Entry<M>>()

  add(events: readonly EventInput[]): void {
    for (const event of events) {
      if (event.type !== 'ai.control.requested' || event.id === undefined) continue
      // This client built the command (`session.stop()`, `retry()`, ...), so
      // its payload is a ControlRequest; the server validates it again.
      if (!this.#entries.has(event.id)) this.#entries.set(event.id, { command: event as never })
    }
  }

  /** Records where the log put a command (from the push's answer or the stream). */
  placed(id: string, index: number): void {
    const entry = this.#entries.get(id)
    if (entry) entry.index = index
  }

  /** Drops the commands a log had placed: that log is gone (the stream rewound). */
  forgetPlaced(): void {
    for (const [id, entry] of this.#entries) if (entry.index !== undefined) this.#entries.delete(id)
  }

  remove(events: readonly EventInput[]): void {
    for (const event of events) if (event.id !== undefined) this.#entries.delete(event.id)
  }

  /** Drops the commands confirmed state has decided. Returns whether any left. */
  settle(confirmed: AIState<M>, confirmedIndex: number): boolean {
    let changed = false
    for (const [id, entry] of this.#entries) {
      const decided =
        entry.index !== undefined &&
        entry.index <= confirmedIndex &&
        !Object.hasOwn(confirmed.requests, id)
      if (decided) {
        this.#entries.delete(id)
        changed = true
      }
    }
    return changed
  }

  get size(): number {
    return this.#entries.size
  }

  list(): PendingCommand<M>[] {
    return [...this.#entries.values()].map((entry) => entry.command)
  }
}
