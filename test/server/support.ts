import type { UIMessage } from 'ai'
import { afterEach } from 'vitest'
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
