/**
 * The registry of error codes, open to every layer. The log, the lowest
 * layer, imports nothing: each layer adds the codes it throws, in the file
 * that throws them, by augmenting this interface. A key per code, and its
 * type is the code's details: what an error with that code tells whoever
 * recognises it, in this process, from another copy of the package or over
 * HTTP (`undefined` for a code that tells nothing more than its message):
 *
 * @example
 * declare module './error-brand.ts' {
 *   interface A2Codes {
 *     CLAIM_HELD: { retryAt: number }
 *     TIMER_CONFLICT: undefined
 *   }
 * }
 *
 * @public Exported for those augmentations, which knip does not count as uses.
 */
// biome-ignore lint/suspicious/noEmptyInterface: filled by module augmentation, layer by layer
export interface A2Codes {}

/** Every code an error of this package carries, whichever layer threw it. */
export type A2Code = keyof A2Codes & string

/** The details an error with `code` carries (`A2Codes`). */
export type A2Details<C extends A2Code> = A2Codes[C]

/**
 * What an `A2Error` is made with besides its code and message: its cause,
 * and its code's details, which a code that has some must be given.
 */
type A2ErrorOptions<C extends A2Code> = ErrorOptions &
  (undefined extends A2Details<C> ? { details?: A2Details<C> } : { details: A2Details<C> })

/** The options argument: optional for a code without details, required for one with. */
type OptionsArgument<C extends A2Code> =
  undefined extends A2Details<C> ? [options?: A2ErrorOptions<C>] : [options: A2ErrorOptions<C>]

// A registered symbol is the same in every copy of the package (two versions
// side by side, a bundled handler and the app's node_modules), where a class
// is not: `instanceof` fails across copies, the brand does not.
const BRAND = Symbol.for('a2-aws.error')

/**
 * Every failure this package reports on purpose: a stable `code`, a
 * message that says what to do, and the code's typed `details`. Only the
 * edges turn codes into answers (an HTTP status, an exit code); recognise
 * one with `hasA2Code(error, code)`, which narrows its details too.
 */
export class A2Error<C extends A2Code = A2Code> extends Error {
  readonly code: C
  readonly details: A2Details<C>

  constructor(code: C, message: string, ...[options]: OptionsArgument<C>) {
    super(message, options)
    this.name = 'A2Error'
    this.code = code
    // Absent options give no details, which only a code without details
    // accepts (OptionsArgument): `undefined` is then this code's details.
    this.details = options?.details as A2Details<C>
    // Not enumerable: a spread copy of an error (`{ ...error }`) is not one.
    Object.defineProperty(this, BRAND, { value: true, enumerable: false })
  }
}

/** An error of this package with `code`, as any copy of the package makes it. */
export type A2ErrorOf<C extends A2Code> = Error & {
  readonly code: C
  readonly details: A2Details<C>
}

/** Whether `error` is an error of this package, from any copy of it. */
export function isA2Error(error: unknown): error is A2ErrorOf<A2Code> {
  return typeof error === 'object' && error !== null && BRAND in error
}

/**
 * Whether `error` is an error of this package with this code, even when it
 * came from another copy of the package (which `instanceof` misses). Plain
 * objects and other libraries' errors with the same `code` do not count.
 * It narrows `details` to the code's (`A2Codes`).
 *
 * @example
 * try {
 *   await store.claim(sessionId, key, { ttlMs })
 * } catch (error) {
 *   if (hasA2Code(error, 'CLAIM_HELD')) return { retryAt: error.details.retryAt }
 *   throw error
 * }
 */
export function hasA2Code<C extends A2Code>(error: unknown, code: C): error is A2ErrorOf<C> {
  return isA2Error(error) && error.code === code
}
