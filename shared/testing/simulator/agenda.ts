/**
 * What happens next in a simulated world, in simulated time: a priority
 * queue of entries ordered by time, then by when they were added, so two
 * runs of one seed fire the same entries in the same order.
 */
export interface AgendaEntry {
  at: number
  seq: number
  /** The process the entry belongs to: it is dropped when that process dies. */
  owner: number | undefined
  cancelled: boolean
  run: () => void | Promise<void>
}

export class Agenda {
  private heap: AgendaEntry[] = []
  private seq = 0

  get size(): number {
    return this.heap.length
  }

  add(at: number, owner: number | undefined, run: AgendaEntry['run']): AgendaEntry {
    const entry: AgendaEntry = { at, seq: this.seq++, owner, cancelled: false, run }
    const heap = this.heap
    heap.push(entry)
    let child = heap.length - 1
    while (child > 0) {
      const parent = (child - 1) >> 1
      if (!before(entry, heap[parent] as AgendaEntry)) break
      heap[child] = heap[parent] as AgendaEntry
      child = parent
    }
    heap[child] = entry
    return entry
  }

  /** The earliest entry not cancelled, taken off the agenda. */
  take(): AgendaEntry | undefined {
    for (;;) {
      const top = this.pop()
      if (!top?.cancelled) return top
    }
  }

  private pop(): AgendaEntry | undefined {
    const heap = this.heap
    const top = heap[0]
    const last = heap.pop()
    if (top === undefined || last === undefined || heap.length === 0) return top
    let parent = 0
    for (;;) {
      const left = parent * 2 + 1
      if (left >= heap.length) break
      const right = left + 1
      const child =
        right < heap.length && before(heap[right] as AgendaEntry, heap[left] as AgendaEntry)
          ? right
          : left
      if (!before(heap[child] as AgendaEntry, last)) break
      heap[parent] = heap[child] as AgendaEntry
      parent = child
    }
    heap[parent] = last
    return top
  }
}

const before = (a: AgendaEntry, b: AgendaEntry): boolean =>
  a.at < b.at || (a.at === b.at && a.seq < b.seq)
