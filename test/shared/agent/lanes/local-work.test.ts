import { describe, expect, it } from 'vitest'
import { localWork } from '../../../../shared/agent/lanes/local-work.ts'

describe('localWork', () => {
  it('aborts the work running here under a claim when newer work registers under it (the newer attempt holds the claim)', () => {
    const work = localWork()
    const old = new AbortController()
    const unregisterOld = work.register('s1', 'gen:r1', old)
    const other = new AbortController()
    work.register('s1', 'tool:c1', other)
    const newer = new AbortController()
    work.register('s1', 'gen:r1', newer)
    expect(old.signal.aborted).toBe(true)
    expect(String(old.signal.reason)).toContain('superseded by a newer attempt')
    expect(other.signal.aborted).toBe(false)
    // The old work's unregister leaves the newer one registered: Stop still reaches it.
    unregisterOld()
    work.abort('s1', 'gen:r1', 'stopped')
    expect(newer.signal.aborted).toBe(true)
  })

  it("aborts the session's other model step running here when a newer one registers: a session runs one at a time", () => {
    const work = localWork()
    const paused = new AbortController()
    work.register('s1', 'gen:r1@L1', paused)
    const elsewhere = new AbortController()
    work.register('s2', 'gen:r9@L1', elsewhere)
    work.register('s1', 'gen:r2@L1', new AbortController())
    expect(paused.signal.aborted).toBe(true)
    expect(elsewhere.signal.aborted).toBe(false)
  })
})
