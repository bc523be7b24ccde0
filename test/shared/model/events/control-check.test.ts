import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { inputs } from '../../../../shared/ai.ts'
import { InvalidEventError } from '../../../../shared/log/errors.ts'
import { controlRequestSchema } from '../../../../shared/model/events/control.ts'
import { controlIssue } from '../../../../shared/model/events/control-check.ts'

// The browser checks commands by hand (control-check.ts) so that zod stays
// out of its bundle; the server checks them with the zod schema. The two
// must give the same verdicts, or a client would refuse what the server
// takes (never acceptable) or push what it refuses (a 400 the user sees).

const message = { id: 'm1', role: 'user', parts: [{ type: 'text', text: 'Hi' }] }
const VALID: Record<string, unknown>[] = [
  { action: 'message', message, generate: true },
  { action: 'steer', message, afterStepOf: null },
  { action: 'steer', message: { ...message, metadata: { at: 1 } }, afterStepOf: 'g1' },
  { action: 'retry', turnId: 't1', retryId: 'r1' },
  { action: 'stop', turnId: 't1', frontier: 3 },
  { action: 'interrupt', owner: { requestId: 'q1', messageId: 'm1' } },
  { action: 'interrupt', owner: { generationId: 'g1', responseMessageId: 'm2' } },
  { action: 'interrupt', owner: { approvalId: 'a1' } },
  { action: 'interrupt', owner: { inputRequestId: 'i1' } },
  { action: 'interrupt', owner: { toolCallId: 'c1' } },
  { action: 'pause', when: 'after-turn' },
  { action: 'resume' },
  { action: 'queue.edit', message },
  { action: 'queue.move', inputId: 'm1', beforeId: null },
  { action: 'queue.remove', inputId: 'm1' },
  { action: 'queue.sendNow', inputId: 'm1', afterStepOf: 't1' },
  {
    action: 'approval',
    approvalId: 'a1',
    toolCallId: 'c1',
    messageId: 'm2',
    generationId: 'g1',
    approved: false,
    reason: 'not now',
  },
  { action: 'input', inputRequestId: 'i1', value: { city: 'Paris' } },
  { action: 'requestInput', inputRequestId: 'i1', request: {}, turnId: 't1', toolCallId: 'c1' },
  {
    action: 'toolResult',
    toolCallId: 'c1',
    generationId: 'g1',
    messageId: 'm2',
    output: [1],
    errorText: 'failed',
    providerMetadata: { gateway: { cost: 1 } },
  },
]

// Values a mutation writes: each type a field might wrongly get, and the
// right ones of other fields (an owner, a part, an action, a role).
const VALUES: unknown[] = [
  undefined,
  null,
  '',
  'x',
  'now',
  'user',
  'tool',
  'message',
  'launch',
  0,
  -0,
  -1,
  1.5,
  2 ** 53,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  true,
  [],
  {},
  [{ type: 'text', text: 'x' }],
  [{ type: '' }],
  [null],
  { approvalId: 'a1' },
  { type: 'text', text: 'x' },
]
const KEYS = ['extra', 'type', 'approvalId', 'messageId', 'metadata', 'action']

type Path = (string | number)[]

/** Every place in a payload a mutation can reach: the root, each object key and array slot. */
function pathsOf(value: unknown, at: Path = []): Path[] {
  if (typeof value !== 'object' || value === null) return [at]
  const keys = Array.isArray(value) ? value.map((_, index) => index) : Object.keys(value)
  return [
    at,
    ...keys.flatMap((key) => pathsOf((value as Record<string, unknown>)[key], [...at, key])),
  ]
}

type Mutation = { where: number; op: 'delete' | 'set' | 'add'; value: unknown; key: string }

function mutate(payload: unknown, { where, op, value, key }: Mutation): unknown {
  const paths = pathsOf(payload)
  const path = paths[where % paths.length] as Path
  const copy = structuredClone(payload)
  const written = structuredClone(value)
  if (path.length === 0) return op === 'set' ? written : copy
  const parent = path
    .slice(0, -1)
    .reduce<unknown>((node, step) => (node as Record<string, unknown>)[step], copy) as Record<
    string | number,
    unknown
  >
  const last = path.at(-1) as string | number
  if (op === 'delete') delete parent[last]
  else if (op === 'set') parent[last] = written
  else if (typeof parent[last] === 'object' && parent[last] !== null) {
    ;(parent[last] as Record<string, unknown>)[key] = written
  }
  return copy
}

const mutation = fc.record({
  where: fc.nat(),
  op: fc.constantFrom('delete', 'set', 'add'),
  value: fc.constantFrom(...VALUES),
  key: fc.constantFrom(...KEYS),
}) as fc.Arbitrary<Mutation>
const payloads = fc
  .tuple(fc.constantFrom(...VALID), fc.array(mutation, { minLength: 0, maxLength: 3 }))
  .map(([valid, mutations]) => mutations.reduce<unknown>(mutate, valid))

const byHand = (payload: unknown): boolean => controlIssue(payload) === undefined
const byZod = (payload: unknown): boolean => controlRequestSchema.safeParse(payload).success

describe('The command check without zod', () => {
  it('Given a valid command of every action, Then both checks accept it', () => {
    for (const payload of VALID) {
      expect(byZod(payload), JSON.stringify(payload)).toBe(true)
      expect(controlIssue(payload), JSON.stringify(payload)).toBeUndefined()
    }
  })

  it('Given commands with fields dropped, retyped, emptied or added at random, Then it is never stricter than the zod schema, and agrees with it', () => {
    fc.assert(
      fc.property(payloads, (payload) => {
        // The direction that must always hold, even if the schema grows
        // stricter about message parts: what the server takes, the client builds.
        if (byZod(payload)) expect(byHand(payload)).toBe(true)
        expect(byHand(payload)).toBe(byZod(payload))
      }),
      { numRuns: 3000 },
    )
  })

  it('Given a malformed command, Then it names the first failing field as zod would', () => {
    expect(controlIssue({ action: 'stop', turnId: 't1', frontier: -1 })).toEqual({
      path: ['frontier'],
      message: 'expected a non-negative integer',
    })
    expect(controlIssue({ action: 'message', message: { ...message, parts: [{}] } })).toEqual({
      path: ['message', 'parts', 0, 'type'],
      message: 'expected a non-empty string',
    })
    expect(controlIssue({ action: 'launch' })?.path).toEqual(['action'])
    expect(controlIssue(null)?.path).toEqual([])
  })

  it('Given a builder called with a malformed field, Then it throws InvalidEventError at that field before anything is pushed', () => {
    const call = () => inputs.stop({ turnId: '', frontier: 1 })
    expect(call).toThrow(InvalidEventError)
    expect(call).toThrow(expect.objectContaining({ code: 'INVALID_EVENT', path: ['turnId'] }))
    expect(() => inputs.message({ id: 'm1', role: 'robot' as 'user', parts: [] })).toThrow(
      expect.objectContaining({ path: ['message', 'role'] }),
    )
  })
})
