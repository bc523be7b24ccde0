import { A2Error } from '../../log/error-brand.ts'
import type { ErrorStatuses } from '../../log/error-statuses.ts'

declare module '../../log/error-brand.ts' {
  interface A2Codes {
    /** `agent({ harness })` named a loop this package does not run. */
    UNKNOWN_HARNESS: undefined
    /** `agent({ harness: { type: 'pi' } })`: a loop whose adapter comes from its own entry point. */
    HARNESS_NOT_IMPORTED: undefined
    /** A harness's package is not installed. */
    HARNESS_UNAVAILABLE: undefined
  }
}

/**
 * The HTTP answers to the harness codes: the server's configuration, never
 * the request's (an agent made with them fails at startup or in its steps).
 */
export const HARNESS_ERROR_STATUSES: ErrorStatuses<
  'UNKNOWN_HARNESS' | 'HARNESS_NOT_IMPORTED' | 'HARNESS_UNAVAILABLE'
> = {
  UNKNOWN_HARNESS: 500,
  HARNESS_NOT_IMPORTED: 500,
  HARNESS_UNAVAILABLE: 500,
}

import { HARNESS_ENTRY_POINTS, HARNESS_TYPES } from './harness-options.ts'

/** How each loop but the AI SDK's is asked for, for the errors' messages. */
const ADAPTERS = Object.entries(HARNESS_ENTRY_POINTS)
  .map(([, { entryPoint, adapter }]) => `${adapter}() from '${entryPoint}'`)
  .join(', ')

/**
 * `agent({ harness })` named a loop this package does not run (from
 * JavaScript, or a typo past a cast): refused when the agent is made, never
 * run as another loop.
 *
 * @example
 * try {
 *   agent({ name: 'a', model, harness: { type: 'pie' } as never })
 * } catch (error) {
 *   if (hasA2Code(error, 'UNKNOWN_HARNESS')) console.error(error.message)
 * }
 */
export class UnknownHarnessError extends A2Error<'UNKNOWN_HARNESS'> {
  readonly harnessType: unknown
  readonly supported: readonly string[] = HARNESS_TYPES

  constructor(harnessType: unknown) {
    super(
      'UNKNOWN_HARNESS',
      `agent() has no harness of type ${JSON.stringify(harnessType) ?? String(harnessType)}: use { type: 'ai-sdk' }, an adapter (${ADAPTERS}, or your own with create()), or leave harness out for the AI SDK's loop`,
    )
    this.name = 'UnknownHarnessError'
    this.harnessType = harnessType
  }
}

/**
 * `agent({ harness: { type: 'pi' } })` (or `'fx'`) without the loop's
 * adapter: Pi's and FX's loops are behind entry points of their own, so an
 * agent on another loop loads neither (FX's starts processes, Pi's loads its
 * packages). Refused when the agent is made; the message names the import.
 *
 * @example
 * import { piHarness } from 'a2-aws/harness/pi'
 *
 * agent({ name: 'a', model, harness: piHarness({ tools: [closeTicket] }) })
 */
export class HarnessNotImportedError extends A2Error<'HARNESS_NOT_IMPORTED'> {
  readonly harnessType: keyof typeof HARNESS_ENTRY_POINTS
  /** The entry point the adapter is imported from (`'a2-aws/harness/pi'`). */
  readonly entryPoint: string
  /** The adapter that makes the harness option (`'piHarness'`). */
  readonly adapter: string

  constructor(harnessType: keyof typeof HARNESS_ENTRY_POINTS) {
    const { entryPoint, adapter } = HARNESS_ENTRY_POINTS[harnessType]
    super(
      'HARNESS_NOT_IMPORTED',
      `agent() runs the ${harnessType} harness through its adapter, from its own entry point: import { ${adapter} } from '${entryPoint}' and pass harness: ${adapter}({ ... }) (the same options, without type)`,
    )
    this.name = 'HarnessNotImportedError'
    this.harnessType = harnessType
    this.entryPoint = entryPoint
    this.adapter = adapter
  }
}

/**
 * In a Lambda function, what the deployment must say: a bundle cannot hold
 * a package loaded by name, so the A2Agent construct installs it when told.
 */
function inLambda(harnessType: string): string {
  if (process.env.AWS_LAMBDA_FUNCTION_NAME === undefined) return ''
  return harnessType === 'fx'
    ? ' (the FX harness does not run in a Lambda function: run it in a Node server or container)'
    : ` (in a function the A2Agent construct deployed, set its harness: '${harnessType}' prop, which installs it beside the bundle)`
}

/**
 * A harness's package is not installed (`@mariozechner/pi-agent-core` for
 * `piHarness()`, `@agentclientprotocol/sdk` for `fxHarness()`): the
 * step fails with this message, and `retry()` runs it again once it is. In
 * a Lambda function the message names the A2Agent prop that installs it.
 */
export class HarnessUnavailableError extends A2Error<'HARNESS_UNAVAILABLE'> {
  readonly harnessType: string
  readonly packageName: string

  constructor(harnessType: string, packageName: string, options?: ErrorOptions) {
    super(
      'HARNESS_UNAVAILABLE',
      `The ${harnessType} harness needs ${packageName}: npm install ${packageName}${inLambda(harnessType)}`,
      options,
    )
    this.name = 'HarnessUnavailableError'
    this.harnessType = harnessType
    this.packageName = packageName
  }
}
