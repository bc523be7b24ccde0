import { afterEach, describe, expect, expectTypeOf, it, vi } from 'vitest'
import { z } from 'zod'
import {
  contract,
  type StoredEvent,
  UpcastError,
  upcastEvent,
  versionedEvent,
} from '../../../shared/index.ts'

// Version 1: { plan }. Version 2 added seats. Version 3 renamed plan to tier.
const plans = contract({
  name: 'plans',
  events: {
    'plan.changed': versionedEvent({
      version: 3,
      schema: z.object({ tier: z.enum(['free', 'pro']), seats: z.number().int().positive() }),
      upcast: {
        1: (v1: { plan: string }) => ({ ...v1, seats: 1 }),
        2: ({ plan, seats }: { plan: string; seats: number }) => ({ tier: plan, seats }),
      },
    }),
    'note.added': z.object({ text: z.string() }),
  },
})

const stored = (type: string, payload: unknown, version?: number): StoredEvent => ({
  id: `e-${type}`,
  type,
  payload,
  sessionId: 's-1',
  life: 'L1',
  index: 7,
  timestamp: 1,
  ...(version === undefined ? {} : { version }),
})

afterEach(() => vi.restoreAllMocks())

describe('upcastEvent', () => {
  it('runs the chain from the stored version to the current one (1 → 2 → 3) and stamps it', () => {
    const v1 = stored('plan.changed', { plan: 'pro' })
    expect(upcastEvent(plans, v1)).toEqual({
      ...v1,
      payload: { tier: 'pro', seats: 1 },
      version: 3,
    })
    expect(upcastEvent(plans, stored('plan.changed', { plan: 'free', seats: 4 }, 2))).toMatchObject(
      {
        payload: { tier: 'free', seats: 4 },
        version: 3,
      },
    )
  })

  it('never changes the event it was given (the log is never rewritten)', () => {
    const v1 = stored('plan.changed', { plan: 'pro' })
    const copy = structuredClone(v1)
    upcastEvent(plans, v1)
    expect(v1).toEqual(copy)
  })

  it('returns the same event when it is of the current version, of a plain schema, or undeclared', () => {
    const current = stored('plan.changed', { tier: 'pro', seats: 2 }, 3)
    const plain = stored('note.added', { text: 'hi' })
    const undeclared = stored('other.thing', { anything: true }, 5)
    expect(upcastEvent(plans, current)).toBe(current)
    expect(upcastEvent(plans, plain)).toBe(plain)
    expect(upcastEvent(plans, undeclared)).toBe(undeclared)
    expect(upcastEvent(undefined, current)).toBe(current)
  })

  it("refuses an upcaster's output that fails the current schema, naming session, index, type, versions and path", () => {
    const error = (() => {
      try {
        return upcastEvent(plans, stored('plan.changed', { plan: 'enterprise' }))
      } catch (caught) {
        return caught
      }
    })()
    expect(error).toBeInstanceOf(UpcastError)
    expect(error).toMatchObject({
      code: 'UPCAST_FAILED',
      sessionId: 's-1',
      index: 7,
      eventType: 'plan.changed',
      fromVersion: 1,
      toVersion: 3,
      path: ['tier'],
    })
    expect((error as Error).message).toMatch(
      /"plan\.changed" event 7 of session "s-1" from version 1 to 3: .*payload\.tier/,
    )
  })

  it('refuses a version that has no upcaster', () => {
    const gappy = contract({
      name: 'gappy',
      events: {
        'x.done': versionedEvent({
          version: 3,
          schema: z.object({ n: z.number() }),
          upcast: { 2: (v2: { n: number }) => v2 },
        }),
      },
    })
    expect(() => upcastEvent(gappy, stored('x.done', { n: 1 }))).toThrow(
      expect.objectContaining({
        code: 'UPCAST_FAILED',
        fromVersion: 1,
        toVersion: 3,
        message: expect.stringContaining('no upcaster reads version 1'),
      }),
    )
    expect(upcastEvent(gappy, stored('x.done', { n: 1 }, 2))).toMatchObject({ version: 3 })
  })

  it('turns an upcaster that throws into an UpcastError', () => {
    const throwing = contract({
      name: 'throwing',
      events: {
        'y.done': versionedEvent({
          version: 2,
          schema: z.object({}),
          upcast: {
            1: () => {
              throw new Error('boom')
            },
          },
        }),
      },
    })
    expect(() => upcastEvent(throwing, stored('y.done', {}))).toThrow(
      expect.objectContaining({ code: 'UPCAST_FAILED', message: expect.stringContaining('boom') }),
    )
  })

  it('hands an event of a newer version than it knows on unchanged, warning once per type per process', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
    // A type of its own: the warning is once per process, and test files share one.
    const rolling = contract({
      name: 'rolling',
      events: { 'rolling.newer': plans.events['plan.changed'] },
    })
    const newer = stored('rolling.newer', { tier: 'pro', seats: 2, region: 'eu' }, 4)
    expect(upcastEvent(rolling, newer)).toBe(newer)
    expect(upcastEvent(rolling, { ...newer, index: 8 })).toMatchObject({ index: 8, version: 4 })
    expect(warn).toHaveBeenCalledTimes(1)
    expect(warn.mock.calls[0]?.[0]).toMatch(
      /"rolling\.newer" events of version 4 .* knows version 3/,
    )
  })

  it('upcasts by schema-free entries without a schema check (the browser, by A2s registry)', () => {
    const entries = {
      declares: (type: string) => type === 'ai.test.event',
      events: {
        'ai.test.event': { version: 2, upcast: { 1: (v1: { a: number }) => ({ b: v1.a }) } },
      },
    }
    expect(upcastEvent(entries, stored('ai.test.event', { a: 1 }))).toMatchObject({
      payload: { b: 1 },
      version: 2,
    })
  })

  it('keeps the stub signature: a contract of only `declares` upcasts nothing', () => {
    const event = stored('plan.changed', { plan: 'pro' })
    expect(upcastEvent({ declares: () => true }, event)).toBe(event)
    expectTypeOf(upcastEvent<StoredEvent<'a', number>>)
      .parameter(1)
      .toEqualTypeOf<StoredEvent<'a', number>>()
  })
})

describe('versionedEvent', () => {
  it('types the contract events by the current schema', () => {
    const reducer = contract({
      name: 'typed',
      events: plans.events,
      reducer: {
        name: 'typed.v1',
        initialState: '',
        fold: (state, event) => {
          if (event.type === 'plan.changed') {
            expectTypeOf(event.payload).toEqualTypeOf<{ tier: 'free' | 'pro'; seats: number }>()
            return event.payload.tier
          }
          return state
        },
      },
    })
    expect(reducer.reducer?.name).toBe('typed.v1')
  })

  it('validates appends against the current schema', () => {
    expect(() => plans.validate({ type: 'plan.changed', payload: { plan: 'pro' } })).toThrow(
      expect.objectContaining({ code: 'INVALID_EVENT' }),
    )
    expect(
      plans.validate({ type: 'plan.changed', payload: { tier: 'pro', seats: 1 } }),
    ).toMatchObject({ payload: { tier: 'pro', seats: 1 } })
  })

  it('refuses a version below 1 and upcasters that read no older version', () => {
    const schema = z.object({})
    expect(() => versionedEvent({ version: 0, schema, upcast: {} })).toThrow(TypeError)
    expect(() => versionedEvent({ version: 2, schema, upcast: { 2: (p) => p } })).toThrow(
      /upcast\[2\] reads no older version/,
    )
    expect(() => versionedEvent({ version: 2, schema, upcast: { 0: (p) => p } })).toThrow(TypeError)
  })
})
