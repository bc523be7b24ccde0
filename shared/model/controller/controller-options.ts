import type { AdvanceOptions } from './advance.ts'

/** What the controller's rounds take: `advance`'s options and the command check. */
export interface ControllerOptions extends AdvanceOptions {
  /**
   * Whether a stored command is one to decide; `decide` rejects any other
   * as `invalid-command`. The default is the command schema checked by hand
   * (`isWellFormedControl`), which a browser's preview runs without zod.
   * The server's admission lane passes the zod schema itself
   * (`controlRequestSchema`), the one the log validates pushes with.
   */
  isWellFormed?: (payload: unknown) => boolean
}
