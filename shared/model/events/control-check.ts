import type { ControlAction } from './control.ts'

// The command schema (control.ts) checked by hand, for the code a browser
// loads: the `inputs` builders and the client's preview of a decision. The
// zod schema stays the server's: the log validates every push and append
// with it. This check is never stricter than that schema (a property test
// holds them to the same verdicts), so a client never refuses a command the
// server takes; zod and the schemas of every other event stay out of the
// browser bundle.

/** Where a command's payload first fails, as `InvalidEventError` reports it. */
export interface ControlIssue {
  path: (string | number)[]
  message: string
}

/**
 * One field's check: its issue, with a path relative to the field, or none.
 * `present` says whether the key is there at all: zod 4 requires the key of
 * a `z.unknown()` field, whatever its value.
 */
type Check = (value: unknown, present: boolean) => ControlIssue | undefined

const fail = (message: string): ControlIssue => ({ path: [], message })
const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

const id: Check = (value) =>
  typeof value === 'string' && value.length > 0 ? undefined : fail('expected a non-empty string')
const nullableId: Check = (value, present) => (value === null ? undefined : id(value, present))
const text: Check = (value) => (typeof value === 'string' ? undefined : fail('expected a string'))
const flag: Check = (value) => (typeof value === 'boolean' ? undefined : fail('expected a boolean'))
const anything: Check = (_value, present) => (present ? undefined : fail('expected a value'))
const optional =
  (check: Check): Check =>
  (value, present) =>
    value === undefined ? undefined : check(value, present)
const oneOf =
  (...allowed: string[]): Check =>
  (value) =>
    typeof value === 'string' && allowed.includes(value)
      ? undefined
      : fail(`expected one of ${allowed.join(', ')}`)
const frontier: Check = (value) =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= 0
    ? undefined
    : fail('expected a non-negative integer')
const record: Check = (value) => (isObject(value) ? undefined : fail('expected an object'))

/** Checks each named field; keys it does not name are left alone (zod's `object`). */
function fields(shape: Record<string, Check>): Check {
  return (value) => {
    if (!isObject(value)) return fail('expected an object')
    for (const [key, check] of Object.entries(shape)) {
      const issue = check(value[key], key in value)
      if (issue) return { path: [key, ...issue.path], message: issue.message }
    }
    return undefined
  }
}

/** Only these keys (zod's `strictObject`). */
function exactly(shape: Record<string, Check>): Check {
  const checkFields = fields(shape)
  return (value, present) => {
    const issue = checkFields(value, present)
    if (issue !== undefined || !isObject(value)) return issue
    const unexpected = Object.keys(value).find((key) => !Object.hasOwn(shape, key))
    return unexpected === undefined ? undefined : { path: [unexpected], message: 'unexpected key' }
  }
}

// The envelope of a UI message, as message-schema.ts checks it.
const part = fields({ type: id })
const message = fields({
  id,
  role: oneOf('system', 'user', 'assistant'),
  metadata: optional(anything),
  parts: (value) => {
    if (!Array.isArray(value)) return fail('expected an array')
    for (const [at, item] of value.entries()) {
      const issue = part(item, true)
      if (issue) return { path: [at, ...issue.path], message: issue.message }
    }
    return undefined
  },
})

const owners = [
  exactly({ requestId: id, messageId: id }),
  exactly({ generationId: id, responseMessageId: id }),
  exactly({ approvalId: id }),
  exactly({ inputRequestId: id }),
  exactly({ toolCallId: id }),
]
const owner: Check = (value) =>
  owners.some((check) => check(value, true) === undefined)
    ? undefined
    : fail('expected exactly one owner')

// Every action the schema knows, with its fields: `satisfies` keeps the two
// lists of actions the same.
const ACTIONS = {
  message: fields({ message, generate: flag }),
  steer: fields({ message, afterStepOf: nullableId }),
  retry: fields({ turnId: id, retryId: id }),
  stop: fields({ turnId: id, frontier }),
  interrupt: fields({ owner }),
  pause: fields({ when: oneOf('after-turn', 'now') }),
  resume: fields({}),
  'queue.edit': fields({ message }),
  'queue.move': fields({ inputId: id, beforeId: nullableId }),
  'queue.remove': fields({ inputId: id }),
  'queue.sendNow': fields({ inputId: id, afterStepOf: nullableId }),
  approval: fields({
    approvalId: id,
    toolCallId: id,
    messageId: id,
    generationId: id,
    approved: flag,
    reason: optional(text),
  }),
  input: fields({ inputRequestId: id, value: anything }),
  requestInput: fields({
    inputRequestId: id,
    request: anything,
    turnId: optional(id),
    messageId: optional(id),
    generationId: optional(id),
    toolCallId: optional(id),
  }),
  toolResult: fields({
    toolCallId: id,
    generationId: id,
    messageId: id,
    output: optional(anything),
    errorText: optional(text),
    providerMetadata: optional(record),
  }),
} satisfies Record<ControlAction, Check>

/**
 * The first issue of a command payload (`ai.control.requested`), or
 * undefined when it is well-formed; without zod.
 *
 * @example
 * controlIssue({ action: 'stop', turnId: 't1', frontier: -1 })
 * // { path: ['frontier'], message: 'expected a non-negative integer' }
 */
export function controlIssue(payload: unknown): ControlIssue | undefined {
  if (!isObject(payload)) return fail('expected an object')
  const { action } = payload
  if (typeof action !== 'string' || !Object.hasOwn(ACTIONS, action)) {
    return { path: ['action'], message: 'expected a known action' }
  }
  return ACTIONS[action as ControlAction](payload, true)
}

/** Whether a command payload is well-formed: `controlIssue()` finds nothing. */
export function isWellFormedControl(payload: unknown): boolean {
  return controlIssue(payload) === undefined
}
