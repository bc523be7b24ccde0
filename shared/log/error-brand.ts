/**
 * The registry of error codes, open to every layer. The log, the lowest
 * layer, imports nothing: each layer adds the codes it throws, in the file
 * that throws them, by augmenting this interface (a key per code):
 *
 * @example
 * declare module './error-brand.ts' {
 *   interface A2Codes {
 *     TIMER_CONFLICT: true
 *   }
 * }
 *
 * @public Exported for those augmentations, which knip does not count as uses.
 */
// biome-ignore lint/suspicious/noEmptyInterface: filled by module augmentation, layer by layer
export interface A2Codes {}

/** Every code an error of this package carries, whichever layer threw it. */
export type A2Code = keyof A2Codes & string

// A registered symbol is the same in every copy of the package (two versions
// side by side, a bundled handler and the app's node_modules), where a class
// is not: `instanceof` fails across copies, the brand does not.
const BRAND = Symbol.for('a2-aws.error')

/**
 * Every failure this package reports on purpose: a stable `code` and a
 * message that says what to do. Only the edges turn codes into answers (an
 * HTTP status, an exit code); recognise one with `hasA2Code(error, code)`.
 */
export class A2Error<C extends A2Code = A2Code> extends Error {
  readonly code: C

  constructor(code: C, message: string, options?: ErrorOptions) {
    super(message, options)
    this.name = 'A2Error'
    this.code = code
    // Not enumerable: a spread copy of an error (`{ ...error }`) is not one.
    Object.defineProperty(this, BRAND, { value: true, enumerable: false })
  }
}

/** Whether `error` is an error of this package, from any copy of it. */
export function isA2Error(error: unknown): error is Error & { readonly code: A2Code } {
  return typeof error === 'object' && error !== null && BRAND in error
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
  return isA2Error(error) && error.code === code
}
