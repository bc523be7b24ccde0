import { describe, expect, it } from 'vitest'
import { stepStream, text } from '../../../shared/testing/model-script.ts'

describe('stepStream()', () => {
  it('ends a slow step when the caller aborts: the abort reason, not the rest of the answer', async () => {
    const abort = new AbortController()
    const reader = stepStream(text('a b c d', { chunks: 4 }), abort.signal, () => {}, {
      chunkDelayMs: 10_000,
    }).getReader()
    expect(await reader.read()).toMatchObject({ value: { type: 'stream-start' } })
    const next = reader.read()
    const started = Date.now()
    abort.abort(new Error('stopped by the user'))
    await expect(next).rejects.toThrow('stopped by the user')
    // The wait for the next part ended with the abort, not after the delay.
    expect(Date.now() - started).toBeLessThan(5_000)
  })
})
