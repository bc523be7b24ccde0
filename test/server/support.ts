import type { UIMessage } from 'ai'
import { afterEach, expect } from 'vitest'
import type { Agent, AgentRuntime } from '../../shared/ai/server/index.ts'
import type { StoredEvent } from '../../shared/index.ts'

const agents: Agent[] = []
afterEach(() => {
  for (const a of agents.splice(0)) a.runtime.close()
})

/** Closes the agent's embedded timers and dispatch after the test. */
export function track<A>(a: A): A {
  agents.push(a as unknown as Agent)
  return a
}

export const userMessage = (id: string, content: string): UIMessage => ({
  id,
  role: 'user',
  parts: [{ type: 'text', text: content }],
})

export function textOf(
  message: { parts: readonly { type: string; text?: string }[] } | undefined,
): string {
  return (message?.parts ?? []).map((part) => (part.type === 'text' ? part.text : '')).join('')
}

export async function eventsOf(
  a: { runtime: AgentRuntime },
  sessionId: string,
): Promise<StoredEvent[]> {
  return a.runtime.log.session(sessionId).read()
}

export async function typesOf(a: { runtime: AgentRuntime }, sessionId: string): Promise<string[]> {
  return (await eventsOf(a, sessionId))
    .map((event) => event.type)
    .filter((type) => type !== 'ai.generation.progress')
}

/**
 * The event types with tool results and the step's completion in one order:
 * "tool results and generation completion can arrive in either order", so a
 * run of adjacent `ai.tool.result` and `ai.generation.completed` events is
 * listed completion first, as a step whose tools outlast it writes them.
 */
export function stepOrder(types: readonly string[]): string[] {
  const joined = new Set(['ai.tool.result', 'ai.generation.completed'])
  const out: string[] = []
  let run: string[] = []
  const flush = () => {
    out.push(...run.filter((type) => type === 'ai.generation.completed'))
    out.push(...run.filter((type) => type === 'ai.tool.result'))
    run = []
  }
  for (const type of types) {
    if (joined.has(type)) run.push(type)
    else {
      flush()
      out.push(type)
    }
  }
  flush()
  return out
}

/** Waits until `check` passes, polling; for conditions that depend on timers. */
export async function until<T>(
  check: () => Promise<T | undefined | false> | T | undefined | false,
  timeoutMs = 3_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await check()
    if (value) return value
    if (Date.now() > deadline) throw new Error('until(): timed out')
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

/**
 * Concurrent pushes of `inputIds` were each admitted and answered once, in one
 * order: user and assistant messages alternate, every input appears once, and
 * the answers are `answers` in turn order.
 */
export function expectEachAnsweredOnce(
  messages: readonly UIMessage[],
  inputIds: readonly string[],
  answers: readonly string[],
): void {
  expect(messages.map((message) => message.role)).toEqual(
    inputIds.flatMap(() => ['user', 'assistant']),
  )
  const users = messages.filter((message) => message.role === 'user').map((m) => m.id)
  expect([...users].sort()).toEqual([...inputIds].sort())
  expect(messages.filter((message) => message.role === 'assistant').map(textOf)).toEqual(answers)
}
