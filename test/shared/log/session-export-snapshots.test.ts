import { describe, expect, it } from 'vitest'
import {
  eventLog,
  exportSession,
  importSession,
  memoryEventStore,
  parseSessionExport,
  type Reducer,
} from '../../../shared/index.ts'

const counter: Reducer<{ count: number }> = {
  name: 'counter.v1',
  initialState: { count: 0 },
  fold: (state) => ({ count: state.count + 1 }),
}

/** A session of three notes with the counter's snapshot stored at its end. */
async function noted() {
  const store = memoryEventStore()
  const log = eventLog({ store, snapshotEvery: 1 })
  await log.session('s').append([1, 2, 3].map((n) => ({ type: 'note', payload: { n } })))
  await log.session('s').state(counter)
  return store
}

describe('session exports with snapshots (version 2)', () => {
  it('writes version 1, as before, without snapshots asked or found', async () => {
    const store = await noted()
    for (const jsonl of [
      await exportSession(store, 's'),
      await exportSession(store, 's', { snapshots: ['no-such-reducer'] }),
    ]) {
      expect(JSON.parse(jsonl.split('\n')[0] as string)).toEqual({
        format: 'a2-aws.session',
        version: 1,
        sessionId: 's',
        events: 3,
      })
      expect(parseSessionExport(jsonl).snapshots).toEqual([])
    }
  })

  it('carries the stored snapshots of the reducers asked for after the events, which parse back and an import ignores', async () => {
    const store = await noted()
    const jsonl = await exportSession(store, 's', { snapshots: ['counter.v1'] })
    const lines = jsonl.trimEnd().split('\n')
    expect(JSON.parse(lines[0] as string)).toMatchObject({ version: 2, events: 3, snapshots: 1 })
    expect(JSON.parse(lines[4] as string)).toEqual({
      snapshot: 'counter.v1',
      index: 3,
      state: { count: 3 },
    })
    const parsed = parseSessionExport(jsonl)
    expect(parsed.events.map((event) => event.index)).toEqual([1, 2, 3])
    expect(parsed.snapshots).toEqual([{ reducer: 'counter.v1', index: 3, state: { count: 3 } }])
    const fresh = memoryEventStore()
    expect(await importSession(fresh, jsonl)).toEqual({ sessionId: 's', events: 3 })
    expect(await fresh.readSnapshot('s', 'counter.v1')).toBeUndefined()
  })

  it('refuses a truncated version 2 export, and a snapshot past the last event, naming the line', async () => {
    const store = await noted()
    const lines = (await exportSession(store, 's', { snapshots: ['counter.v1'] }))
      .trimEnd()
      .split('\n')
    expect(() => parseSessionExport(lines.slice(0, -1).join('\n'))).toThrow(
      expect.objectContaining({ code: 'INVALID_EXPORT', line: 4 }),
    )
    const past = [...lines.slice(0, -1), '{"snapshot":"counter.v1","index":9,"state":{}}']
    expect(() => parseSessionExport(past.join('\n'))).toThrow(
      'Invalid session export at line 5: a snapshot at index 9, past the last event',
    )
  })
})
