import { describe, expect, expectTypeOf, it, vi } from 'vitest'
import { PipelineError } from '../../../shared/aws/errors.ts'
import { AgentClientError } from '../../../shared/client/client-error.ts'
import { errorResponse, HttpError } from '../../../shared/http/http-error.ts'
import { hasA2Code } from '../../../shared/index.ts'
import { A2Error } from '../../../shared/log/error-brand.ts'
import { ClaimHeldError, FencedOutError, LifeEndedError } from '../../../shared/log/errors.ts'

/** The log's errors as a second copy of the package defines them (another version, a bundle). */
async function secondCopyOfErrors(): Promise<typeof import('../../../shared/log/errors.ts')> {
  vi.resetModules()
  return import('../../../shared/log/errors.ts')
}

describe('hasA2Code(error, code): one way to recognise an error', () => {
  it('recognises an error thrown by another copy of the package, which instanceof misses', async () => {
    const copy = await secondCopyOfErrors()
    const error = new copy.FencedOutError('s1', 'gen:r1', 2)
    expect(copy.FencedOutError).not.toBe(FencedOutError)
    expect(error instanceof FencedOutError).toBe(false)
    expect(hasA2Code(error, 'FENCED_OUT')).toBe(true)
    expect(hasA2Code(error, 'CLAIM_HELD')).toBe(false)
  })

  it("answers another copy's log error with its own HTTP status, not a 500", async () => {
    const copy = await secondCopyOfErrors()
    const response = errorResponse(new copy.AppendConflictError('s1', 3, 5))
    expect(response.status).toBe(409)
    expect(await response.json()).toMatchObject({
      error: { code: 'APPEND_CONFLICT', details: { expectedIndex: 3, actualIndex: 5 } },
    })
  })

  it("answers another copy's HttpError with its own status and code, not a 500", async () => {
    vi.resetModules()
    const copy = await import('../../../shared/http/http-error.ts')
    const response = errorResponse(new copy.HttpError(401, 'TOKEN_EXPIRED', 'expired'))
    expect(copy.HttpError).not.toBe(HttpError)
    expect(response.status).toBe(401)
    expect(await response.json()).toMatchObject({ error: { code: 'TOKEN_EXPIRED' } })
  })

  it('knows the codes of every family: the log, the HTTP edge, the AWS pipeline and the client', () => {
    expect(hasA2Code(new FencedOutError('s1', 'gen:r1', 2), 'FENCED_OUT')).toBe(true)
    expect(hasA2Code(new HttpError(403, 'FORBIDDEN', 'no'), 'FORBIDDEN')).toBe(true)
    expect(hasA2Code(new PipelineError('MALFORMED_WAKE_UP', 'bad'), 'MALFORMED_WAKE_UP')).toBe(true)
    expect(hasA2Code(new AgentClientError('NETWORK_ERROR', 0, 'offline'), 'NETWORK_ERROR')).toBe(
      true,
    )
  })

  it("does not take a plain object or another library's error with the same code for one of ours", () => {
    expect(hasA2Code({ code: 'FENCED_OUT' }, 'FENCED_OUT')).toBe(false)
    expect(hasA2Code(Object.assign(new Error('x'), { code: 'FENCED_OUT' }), 'FENCED_OUT')).toBe(
      false,
    )
    expect(hasA2Code(undefined, 'FENCED_OUT')).toBe(false)
    expect(hasA2Code('FENCED_OUT', 'FENCED_OUT')).toBe(false)
  })

  it('brands without an enumerable property, so a spread copy of an error is not taken for one', () => {
    const error = new FencedOutError('s1', 'gen:r1', 2)
    const enumerable = Object.getOwnPropertySymbols(error).filter((key) =>
      Object.prototype.propertyIsEnumerable.call(error, key),
    )
    expect(enumerable).toEqual([])
    expect(hasA2Code({ ...error }, 'FENCED_OUT')).toBe(false)
  })

  it("narrows the error's details to its code's, also for an error of another copy", async () => {
    const copy = await secondCopyOfErrors()
    for (const error of [
      new ClaimHeldError('s1', 'gen:r1', 1, 1_000) as unknown,
      new copy.ClaimHeldError('s1', 'gen:r1', 1, 1_000) as unknown,
    ]) {
      if (!hasA2Code(error, 'CLAIM_HELD')) throw new Error('not CLAIM_HELD')
      expectTypeOf(error.details).toEqualTypeOf<{ retryAt: number }>()
      expect(error.details.retryAt).toBe(1_000)
    }
    const ended: unknown = new LifeEndedError('s1', 'life-1', 'life-2')
    if (!hasA2Code(ended, 'LIFE_ENDED')) throw new Error('not LIFE_ENDED')
    expectTypeOf(ended.details).toEqualTypeOf<{ currentLife?: string }>()
    expect(ended.details).toEqual({ currentLife: 'life-2' })
    const fenced: unknown = new FencedOutError('s1', 'gen:r1', 2)
    if (!hasA2Code(fenced, 'FENCED_OUT')) throw new Error('not FENCED_OUT')
    expectTypeOf(fenced.details).toEqualTypeOf<undefined>()
  })
})

describe('new A2Error(code, message, { details })', () => {
  it('takes the details its code declares, and a code with details is not made without them', () => {
    expect(new A2Error('CLAIM_HELD', 'held', { details: { retryAt: 5 } }).details).toEqual({
      retryAt: 5,
    })
    // @ts-expect-error CLAIM_HELD has details: an error without them would lie to whoever reads them.
    expect(new A2Error('CLAIM_HELD', 'held').details).toBeUndefined()
    // @ts-expect-error Details of another shape are refused too.
    expect(new A2Error('CLAIM_HELD', 'held', { details: { at: 5 } }).details).toEqual({ at: 5 })
    // A code without details needs none, and keeps its cause.
    const cause = new Error('root')
    const fenced = new A2Error('FENCED_OUT', 'fenced', { cause })
    expect(fenced.details).toBeUndefined()
    expect(fenced.cause).toBe(cause)
  })
})
