import type { ToolSet } from 'ai'
import type { World } from './world.ts'

/** Each tool with a call into the world as its `execute` starts and as it returns: a process may die there. */
export function withCrashPoints<Tools extends ToolSet>(
  world: World,
  owner: number,
  tools: Tools,
): Tools {
  const wrapped: ToolSet = {}
  for (const [name, definition] of Object.entries(tools)) {
    const execute = definition.execute as
      | ((input: unknown, options: unknown) => unknown)
      | undefined
    if (!execute) {
      wrapped[name] = definition
      continue
    }
    wrapped[name] = {
      ...definition,
      execute: async (input: unknown, options: unknown) => {
        await world.call(owner, `tool ${name} start`, 1, () => undefined)
        const output = await execute(input, options)
        await world.call(owner, `tool ${name} return`, 1, () => undefined)
        return output
      },
    } as ToolSet[string]
  }
  return wrapped as Tools
}
