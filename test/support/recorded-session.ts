import type { UIMessageChunk } from 'ai'
import {
  type AIEventInput,
  type AIState,
  initialAIState,
  inputs,
  reduceAIState,
} from '../../shared/ai.ts'
import type { StoredEvent } from '../../shared/log/event.ts'
import { advance } from '../../shared/model/controller/advance.ts'
import { decide } from '../../shared/model/controller/decide.ts'
import { dueGeneration } from '../../shared/model/controller/due-work.ts'

export const CHUNKS_PER_PROGRESS = 8
const WORDS = 'the quick brown fox jumps over a lazy dog while streaming tokens arrive '.split(' ')

/** Records a session the way the runtime writes one: commands, decisions, steps, tools, batched chunks. */
export function recordSession(
  targetEvents: number,
  progressPerResponse: number,
  sessionId = 'bench',
): StoredEvent[] {
  const log: StoredEvent[] = []
  let state: AIState = initialAIState()
  const append = (events: readonly { id?: string; type: string; payload: unknown }[]): void => {
    for (const event of events) {
      const stored: StoredEvent = {
        id: event.id ?? `e${log.length + 1}`,
        type: event.type,
        payload: event.payload,
        sessionId,
        life: '',
        index: log.length + 1,
        timestamp: log.length,
      }
      log.push(stored)
      state = reduceAIState(state, stored)
    }
  }
  const fact = (...events: AIEventInput[]): void => {
    append(events)
    append(advance(state))
  }
  let turn = 0
  let word = 0
  const delta = (): string => `${WORDS[word++ % WORDS.length]} `
  while (log.length < targetEvents) {
    turn++
    const [command] = inputs.message({
      id: `u${turn}`,
      role: 'user',
      parts: [{ type: 'text', text: `Question ${turn}` }],
    })
    if (!command) throw new Error('no command')
    append([command])
    append(decide(state, log.at(-1) as never).events)
    const steps = turn % 3 === 0 ? 2 : 1
    for (let step = 1; step <= steps && log.length < targetEvents; step++) {
      const due = dueGeneration(state)
      if (due === null) break
      const generationId = `g${turn}.${step}`
      fact({
        id: `start:${generationId}`,
        type: 'ai.generation.started',
        payload: { generationId, ...due, attempt: 1 },
      })
      fact({
        id: `p0:${generationId}`,
        type: 'ai.generation.progress',
        payload: {
          generationId,
          chunks: [{ type: 'start-step' }, { type: 'text-start', id: 't' }],
        },
      })
      for (let i = 0; i < progressPerResponse && log.length < targetEvents - 6; i++) {
        const chunks: UIMessageChunk[] = Array.from({ length: CHUNKS_PER_PROGRESS }, () => ({
          type: 'text-delta',
          id: 't',
          delta: delta(),
        }))
        fact({
          id: `p${i + 1}:${generationId}`,
          type: 'ai.generation.progress',
          payload: { generationId, chunks },
        })
      }
      const toolCall = step < steps
      const end: UIMessageChunk[] = [{ type: 'text-end', id: 't' }]
      if (toolCall) {
        end.push({
          type: 'tool-input-available',
          toolCallId: `c${turn}`,
          toolName: 'lookup',
          input: { q: turn },
        })
      }
      fact({
        id: `pe:${generationId}`,
        type: 'ai.generation.progress',
        payload: { generationId, chunks: end },
      })
      const messageId = due.responseMessageId
      if (toolCall) {
        fact({
          id: `call:${generationId}`,
          type: 'ai.tool.called',
          payload: {
            toolCallId: `c${turn}`,
            toolName: 'lookup',
            generationId,
            messageId,
            turnId: due.turnId,
          },
        })
        fact({
          id: `result:${generationId}`,
          type: 'ai.tool.result',
          payload: {
            toolCallId: `c${turn}`,
            generationId,
            messageId,
            outcome: 'output',
            output: { hits: turn },
          },
        })
      }
      fact({
        id: `done:${generationId}`,
        type: 'ai.generation.completed',
        payload: { generationId, requestId: due.requestId, outcome: 'success' },
      })
    }
  }
  return log.slice(0, targetEvents)
}
