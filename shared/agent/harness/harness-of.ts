import type { ToolSet } from 'ai'
import { fxHarness } from '../../harness/fx/fx-harness.ts'
import { piHarness } from '../../harness/pi/pi-harness.ts'
import { aiSdkHarness } from './ai-sdk-harness.ts'
import type { Harness } from './harness.ts'
import { UnknownHarnessError } from './harness-errors.ts'
import type { HarnessOptions } from './harness-options.ts'

/**
 * The agent's loop behind the port, from `agent({ harness })`: the AI SDK's
 * by default. Any other `type` is refused here, when the agent is made (from
 * JavaScript nothing else stops `{ type: 'pie' }`), never run as another loop.
 */
export function harnessOf(options: HarnessOptions | undefined, tools: ToolSet): Harness {
  const harness: unknown = options ?? { type: 'ai-sdk' }
  if (typeof harness !== 'object' || harness === null) throw new UnknownHarnessError(harness)
  const type = (harness as { type?: unknown }).type
  switch (type) {
    case 'ai-sdk':
      return aiSdkHarness(harness as Extract<HarnessOptions, { type: 'ai-sdk' }>)
    case 'pi':
      return piHarness(harness as Extract<HarnessOptions, { type: 'pi' }>, tools)
    case 'fx':
      return fxHarness(harness as Extract<HarnessOptions, { type: 'fx' }>)
    default:
      throw new UnknownHarnessError(type)
  }
}
