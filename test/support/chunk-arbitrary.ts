import type { UIMessageChunk } from 'ai'
import fc from 'fast-check'

// Random but valid UIMessageChunk sequences: every delta, end, result or
// approval refers to something the sequence started, as a real stream does.
// Abstract operations are interpreted against a model of what is open, so a
// shrunk counterexample stays valid.

type Op =
  | { op: 'text-start' | 'reasoning-start'; id: number }
  | { op: 'text-delta' | 'reasoning-delta'; pick: number; delta: string }
  | { op: 'text-end' | 'reasoning-end'; pick: number }
  | { op: 'tool-start'; id: number; dynamic: boolean; text: boolean; name: number }
  | { op: 'tool-delta'; pick: number; delta: string }
  | { op: 'tool-available'; pick: number; input: unknown }
  | { op: 'tool-input-error'; pick: number }
  | { op: 'approval-request'; pick: number }
  | { op: 'approval-response'; pick: number; approved: boolean }
  | { op: 'output-available'; pick: number; preliminary: boolean }
  | { op: 'output-error' | 'output-denied'; pick: number }
  | { op: 'start-step' | 'finish-step' | 'reset-step' | 'error' | 'abort' }
  | { op: 'data'; id: number | null; transient: boolean; value: number }
  | {
      op: 'metadata'
      kind: 'start' | 'finish' | 'message-metadata'
      value: Record<string, unknown>
    }
  | { op: 'source-url' | 'file' | 'custom' | 'steering' }

const pick = fc.nat(7)
const jsonPiece = fc.constantFrom(
  '{',
  '}',
  '"ci',
  'ty"',
  ':',
  '"Ber',
  'lin"',
  ',',
  '[',
  ']',
  '1',
  '2.5',
  '-',
  'e3',
  'tr',
  'ue',
  'nul',
  'fa',
  '\\',
  '\\u00',
  '4f',
  ' ',
)

const opArbitrary: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({ op: fc.constantFrom('text-start', 'reasoning-start'), id: fc.nat(2) }),
  },
  {
    weight: 6,
    arbitrary: fc.record({
      op: fc.constantFrom('text-delta', 'reasoning-delta'),
      pick,
      delta: fc.string({ maxLength: 6 }),
    }),
  },
  { weight: 2, arbitrary: fc.record({ op: fc.constantFrom('text-end', 'reasoning-end'), pick }) },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant('tool-start'),
      id: fc.nat(3),
      dynamic: fc.boolean(),
      text: fc.boolean(),
      name: fc.nat(1),
    }),
  },
  { weight: 4, arbitrary: fc.record({ op: fc.constant('tool-delta'), pick, delta: jsonPiece }) },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant('tool-available'),
      pick,
      input: fc.jsonValue({ maxDepth: 2 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('tool-input-error'), pick }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('approval-request'), pick }) },
  {
    weight: 1,
    arbitrary: fc.record({ op: fc.constant('approval-response'), pick, approved: fc.boolean() }),
  },
  {
    weight: 2,
    arbitrary: fc.record({ op: fc.constant('output-available'), pick, preliminary: fc.boolean() }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ op: fc.constantFrom('output-error', 'output-denied'), pick }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constantFrom('start-step', 'finish-step', 'reset-step', 'error', 'abort'),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constant('data'),
      id: fc.option(fc.nat(2)),
      transient: fc.boolean(),
      value: fc.integer(),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constant('metadata'),
      kind: fc.constantFrom('start', 'finish', 'message-metadata'),
      value: fc.dictionary(
        fc.constantFrom('a', 'b', 'c'),
        fc.oneof(fc.integer(), fc.dictionary(fc.constantFrom('x', 'y'), fc.integer())),
      ),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ op: fc.constantFrom('source-url', 'file', 'custom', 'steering') }),
  },
)

interface Tool {
  id: string
  name: string
  dynamic: boolean
  streaming: boolean
  hasPart: boolean
  approvalId?: string
  step: number
}

/** Turns abstract operations into a valid chunk sequence. */
function toChunks(ops: readonly Op[]): UIMessageChunk[] {
  const chunks: UIMessageChunk[] = []
  let openText: string[] = []
  let openReasoning: string[] = []
  let tools: Tool[] = []
  let step = 0
  let approvals = 0
  let counter = 0
  const choose = <T>(list: T[], index: number): T | undefined =>
    list.length === 0 ? undefined : list[index % list.length]

  for (const op of ops) {
    switch (op.op) {
      case 'text-start': {
        const id = `t${op.id}`
        chunks.push({ type: 'text-start', id })
        openText = [...openText.filter((open) => open !== id), id]
        break
      }
      case 'reasoning-start': {
        const id = `r${op.id}`
        chunks.push({ type: 'reasoning-start', id })
        openReasoning = [...openReasoning.filter((open) => open !== id), id]
        break
      }
      case 'text-delta': {
        const id = choose(openText, op.pick)
        if (id) chunks.push({ type: 'text-delta', id, delta: op.delta })
        break
      }
      case 'reasoning-delta': {
        const id = choose(openReasoning, op.pick)
        if (id) chunks.push({ type: 'reasoning-delta', id, delta: op.delta })
        break
      }
      case 'text-end': {
        const id = choose(openText, op.pick)
        if (id) {
          chunks.push({ type: 'text-end', id })
          openText = openText.filter((open) => open !== id)
        }
        break
      }
      case 'reasoning-end': {
        const id = choose(openReasoning, op.pick)
        if (id) {
          chunks.push({ type: 'reasoning-end', id })
          openReasoning = openReasoning.filter((open) => open !== id)
        }
        break
      }
      case 'tool-start': {
        const id = `c${op.id}`
        const name = op.name === 0 ? 'weather' : 'close-ticket'
        // Restarting a call that already has a part in this step keeps its
        // kind, as a provider would.
        const existing = tools.find((tool) => tool.id === id && tool.step === step)
        const dynamic = existing ? existing.dynamic : op.dynamic
        chunks.push({
          type: 'tool-input-start',
          toolCallId: id,
          toolName: name,
          ...(dynamic ? { dynamic: true } : {}),
          ...(op.text ? { inputEncoding: 'text' as const } : {}),
        })
        tools = [
          ...tools.filter((tool) => !(tool.id === id && tool.step === step)),
          { id, name, dynamic, streaming: true, hasPart: true, step },
        ]
        break
      }
      case 'tool-delta': {
        const tool = choose(
          tools.filter((candidate) => candidate.streaming),
          op.pick,
        )
        if (tool)
          chunks.push({ type: 'tool-input-delta', toolCallId: tool.id, inputTextDelta: op.delta })
        break
      }
      case 'tool-available': {
        const tool = choose(
          tools.filter((candidate) => candidate.step === step),
          op.pick,
        )
        if (tool) {
          chunks.push({
            type: 'tool-input-available',
            toolCallId: tool.id,
            toolName: tool.name,
            input: op.input,
            ...(tool.dynamic ? { dynamic: true } : {}),
          })
          tool.streaming = false
        }
        break
      }
      case 'tool-input-error': {
        const tool = choose(
          tools.filter((candidate) => candidate.step === step),
          op.pick,
        )
        if (tool) {
          chunks.push({
            type: 'tool-input-error',
            toolCallId: tool.id,
            toolName: tool.name,
            input: { bad: true },
            errorText: 'invalid input',
            ...(tool.dynamic ? { dynamic: true } : {}),
          })
          tool.streaming = false
        }
        break
      }
      case 'approval-request': {
        const tool = choose(tools, op.pick)
        if (tool) {
          approvals++
          const approvalId = `a${approvals}`
          chunks.push({ type: 'tool-approval-request', approvalId, toolCallId: tool.id })
          tool.approvalId = approvalId
        }
        break
      }
      case 'approval-response': {
        const tool = choose(
          tools.filter((candidate) => candidate.approvalId),
          op.pick,
        )
        if (tool?.approvalId) {
          chunks.push({
            type: 'tool-approval-response',
            approvalId: tool.approvalId,
            approved: op.approved,
          })
        }
        break
      }
      case 'output-available': {
        const tool = choose(tools, op.pick)
        if (tool) {
          chunks.push({
            type: 'tool-output-available',
            toolCallId: tool.id,
            output: { ok: counter++ },
            ...(op.preliminary ? { preliminary: true } : {}),
          })
        }
        break
      }
      case 'output-error': {
        const tool = choose(tools, op.pick)
        if (tool) chunks.push({ type: 'tool-output-error', toolCallId: tool.id, errorText: 'boom' })
        break
      }
      case 'output-denied': {
        const tool = choose(tools, op.pick)
        if (tool) chunks.push({ type: 'tool-output-denied', toolCallId: tool.id })
        break
      }
      case 'start-step':
        chunks.push({ type: 'start-step' })
        step++
        for (const tool of tools) tool.streaming = false
        break
      case 'reset-step':
        chunks.push({ type: 'reset-step' })
        openText = []
        openReasoning = []
        tools = tools.filter((tool) => tool.step !== step)
        for (const tool of tools) tool.streaming = false
        break
      case 'finish-step':
      case 'error':
      case 'abort':
        chunks.push(
          op.op === 'error'
            ? { type: 'error', errorText: 'provider error' }
            : op.op === 'abort'
              ? { type: 'abort' }
              : { type: 'finish-step' },
        )
        break
      case 'data':
        chunks.push({
          type: 'data-progress',
          ...(op.id === null ? {} : { id: `d${op.id}` }),
          data: { value: op.value },
          ...(op.transient ? { transient: true } : {}),
        } as UIMessageChunk)
        break
      case 'metadata':
        chunks.push(
          op.kind === 'message-metadata'
            ? { type: 'message-metadata', messageMetadata: op.value }
            : { type: op.kind, messageMetadata: op.value },
        )
        break
      case 'source-url':
        chunks.push({ type: 'source-url', sourceId: `s${counter++}`, url: 'https://example.com' })
        break
      case 'file':
        chunks.push({ type: 'file', url: 'data:text/plain;base64,SGk=', mediaType: 'text/plain' })
        break
      case 'custom':
        chunks.push({ type: 'custom', kind: 'openai.compaction' })
        break
      case 'steering':
        chunks.push({
          type: 'steering-message',
          id: `u${counter++}`,
          parts: [{ type: 'text', text: 'also' }],
        })
        break
    }
  }
  return chunks
}

export const chunkSequence = fc.array(opArbitrary, { maxLength: 40 }).map(toChunks)
