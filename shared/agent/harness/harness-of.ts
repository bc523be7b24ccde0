import type { ToolSet } from 'ai'
import { aiSdkHarness } from './ai-sdk-harness.ts'
import type { Harness } from './harness.ts'
import { HarnessNotImportedError, UnknownHarnessError } from './harness-errors.ts'
import {
  type AiSdkHarnessOptions,
  HARNESS_ENTRY_POINTS,
  type HarnessAdapter,
  type HarnessOptions,
} from './harness-options.ts'

/**
 * The agent's loop behind the port, from `agent({ harness })`: the AI SDK's
 * by default, or the one an adapter makes (Pi's and FX's come from their own
 * entry points, so this file loads neither). Any other value is refused
 * here, when the agent is made (from JavaScript nothing else stops
 * `{ type: 'pie' }`), never run as another loop; `{ type: 'pi' }` without
 * its adapter is refused naming the import that brings it.
 */
export function harnessOf(options: HarnessOptions | undefined, tools: ToolSet): Harness {
  const harness: unknown = options ?? { type: 'ai-sdk' }
  if (typeof harness !== 'object' || harness === null) throw new UnknownHarnessError(harness)
  if (isAdapter(harness)) return harness.create({ tools })
  const type = (harness as { type?: unknown }).type
  if (type === 'ai-sdk') return aiSdkHarness(harness as AiSdkHarnessOptions)
  if (typeof type === 'string' && Object.hasOwn(HARNESS_ENTRY_POINTS, type))
    throw new HarnessNotImportedError(type as keyof typeof HARNESS_ENTRY_POINTS)
  throw new UnknownHarnessError(type)
}

function isAdapter(harness: object): harness is HarnessAdapter {
  return typeof (harness as { create?: unknown }).create === 'function'
}
