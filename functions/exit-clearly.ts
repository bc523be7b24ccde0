import { isA2Error } from '../shared/log/error-brand.ts'

/**
 * Runs a command's main and turns a failure it expects (a typed error of
 * this package, such as `PORT_IN_USE`, or one marked `clear`) into one
 * plain line and exit code 1, without a stack; anything else is thrown as
 * it is, stack and all, since that is a bug to report.
 */
export async function exitClearly(
  command: string,
  main: () => Promise<void>,
  cleanUp: () => Promise<void> | void = () => {},
): Promise<void> {
  try {
    await main()
  } catch (error) {
    await cleanUp()
    if (isClear(error)) {
      console.error(`${command}: ${(error as Error).message}`)
      process.exit(1)
    }
    throw error
  }
}

/** An error whose message is the whole story (it says what to do). */
export class ClearError extends Error {
  readonly clear = true
}

function isClear(error: unknown): boolean {
  return isA2Error(error) || error instanceof ClearError
}
