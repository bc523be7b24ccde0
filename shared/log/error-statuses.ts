import type { A2Code } from './error-brand.ts'

/**
 * The HTTP status of each of some codes: a table per layer, beside the
 * codes it declares (the log's in `errors.ts`), with a status for every one
 * of them. The layer that builds an HTTP endpoint merges the tables of the
 * layers under it and hands the merge to the edge (`logEndpoint`'s
 * `errorStatuses`), which answers a code it finds no status for with a 500
 * that tells nothing. So a layer needs no other layer's codes to say its
 * own answers, and the edge knows no code it does not own.
 *
 * @example
 * export const RUNTIME_ERROR_STATUSES: ErrorStatuses<'TIMER_CONFLICT'> = { TIMER_CONFLICT: 409 }
 */
export type ErrorStatuses<C extends A2Code = A2Code> = { readonly [K in C]: number }

/** Statuses for some of the codes, as the edge is handed them. */
export type SomeErrorStatuses = Readonly<Partial<ErrorStatuses>>
