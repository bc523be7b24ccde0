import { jsonSchema, type Tool, type ToolSet, tool } from 'ai'
import { loadPi } from './load-pi.ts'
import type { PiTool, PiToolResult } from './pi-harness-options.ts'

/**
 * Pi's `AgentTool`s as the tools lane runs them: the TypeBox schema is the
 * input schema (checked with Pi's own `validateToolArguments`, after the
 * tool's `prepareArguments`), `execute` gets the call's ID and abort signal,
 * and each `onUpdate` is a preliminary output. What the tool returns (its
 * `content` and `details`) is the call's output, and Pi's loop gets it back
 * as the tool result message it would have made.
 */
export function piTools(tools: readonly PiTool[], taken: ToolSet): ToolSet {
  const out: ToolSet = {}
  for (const piTool of tools) {
    if (Object.hasOwn(taken, piTool.name) || Object.hasOwn(out, piTool.name)) {
      throw new TypeError(
        `Two tools are named "${piTool.name}": a Pi tool's name must differ from every other tool's`,
      )
    }
    out[piTool.name] = piToolOf(piTool)
  }
  return out
}

function piToolOf(piTool: PiTool): Tool {
  return tool({
    description: piTool.description,
    title: piTool.label,
    inputSchema: jsonSchema<unknown>(piTool.parameters as Parameters<typeof jsonSchema>[0], {
      validate: async (value) => {
        try {
          const { ai } = await loadPi()
          const args = piTool.prepareArguments ? piTool.prepareArguments(value) : value
          const checked = ai.validateToolArguments(piTool, {
            type: 'toolCall',
            id: '',
            name: piTool.name,
            arguments: args as Record<string, unknown>,
          })
          return { success: true, value: checked }
        } catch (error) {
          return {
            success: false,
            error: error instanceof Error ? error : new Error(String(error)),
          }
        }
      },
    }),
    execute: (input: unknown, { toolCallId, abortSignal }) =>
      updatesOf((onUpdate) => piTool.execute(toolCallId, input, abortSignal, onUpdate)),
  })
}

/** A Pi tool's run as the AI SDK's preliminary outputs: each update, then the result. */
async function* updatesOf(
  run: (onUpdate: (partial: PiToolResult) => void) => Promise<PiToolResult>,
): AsyncGenerator<PiToolResult, void, void> {
  const updates: PiToolResult[] = []
  let wake: (() => void) | undefined
  let settled: { result: PiToolResult } | { error: unknown } | undefined
  void run((partial) => {
    updates.push(partial)
    wake?.()
  }).then(
    (result) => {
      settled = { result }
      wake?.()
    },
    (error: unknown) => {
      settled = { error }
      wake?.()
    },
  )
  for (;;) {
    const update = updates.shift()
    if (update !== undefined) {
      yield update
      continue
    }
    if (settled !== undefined) {
      if ('error' in settled) throw settled.error
      yield settled.result
      return
    }
    await new Promise<void>((resolve) => {
      wake = resolve
    })
    wake = undefined
  }
}
