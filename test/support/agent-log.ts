import type { UIMessage } from 'ai'
import { expect, onTestFinished } from 'vitest'
import type { Agent } from '../../shared/agent/index.ts'
import type { StoredEvent } from '../../shared/index.ts'

import { textOf } from './conversation.ts'

export { textOf, userMessage } from './conversation.ts'
export { until } from './until.ts'

/** Closes the agent's embedded timers and dispatch when the test ends. */
export function track<A extends Pick<Agent, 'runtime'>>(a: A): A {
  onTestFinished(() => a.runtime.close())
  return a
}

export async function eventsOf(
  a: Pick<Agent, 'runtime'>,
  sessionId: string,
): Promise<StoredEvent[]> {
  return a.runtime.log.session(sessionId).read()
}

export async function typesOf(a: Pick<Agent, 'runtime'>, sessionId: string): Promise<string[]> {
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
