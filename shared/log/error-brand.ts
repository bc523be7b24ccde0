import type { AgentClientErrorCode } from '../ai/client/client-error.ts'
import type { PipelineErrorCode } from '../aws/errors.ts'
import type { HttpErrorCode } from '../http/http-error.ts'
import type { ServeErrorCode } from '../node/serve-error.ts'
import type { A2ErrorCode } from './errors.ts'

/** Every code an error of this package carries, whichever part threw it. */
export type A2Code =
  | A2ErrorCode
  | HttpErrorCode
  | PipelineErrorCode
  | AgentClientErrorCode
  | ServeErrorCode

/** Which family a branded error belongs to: the log's, the HTTP edge's, the AWS pipeline's, the client's. */
export type A2ErrorKind = 'log' | 'http' | 'pipeline' | 'client'

// A registered symbol is the same in every copy of the package (two versions
// side by side, a bundled handler and the app's node_modules), where a class
// is not: `instanceof` fails across copies, the brand does not.
const BRAND = Symbol.for('a2-aws.error')

/** Marks an error of this package (called by each error family's constructor). */
export function brandA2Error(error: Error, kind: A2ErrorKind): void {
  Object.defineProperty(error, BRAND, { value: kind, enumerable: false })
}

/** The family of an error this package threw (from any copy of it), or `undefined`. */
export function a2ErrorKind(error: unknown): A2ErrorKind | undefined {
  if (typeof error !== 'object' || error === null) return undefined
  return (error as { [BRAND]?: A2ErrorKind })[BRAND]
}

/**
 * Whether `error` is an error of this package with this code, even when it
 * came from another copy of the package (which `instanceof` misses). Plain
 * objects and other libraries' errors with the same `code` do not count.
 *
 * @example
 * try {
 *   await session.append(...events)
 * } catch (error) {
 *   if (hasA2Code(error, 'PARTIAL_DUPLICATE_BATCH')) return
 *   throw error
 * }
 */
export function hasA2Code<C extends A2Code>(
  error: unknown,
  code: C,
): error is Error & { readonly code: C } {
  return a2ErrorKind(error) !== undefined && (error as { code?: unknown }).code === code
}
