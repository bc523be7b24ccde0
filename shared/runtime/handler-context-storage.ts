import { AsyncLocalStorage } from 'node:async_hooks'
import {
  type HandlerContext,
  installHandlerContextProvider,
  runInHandlerContext,
} from './handler-context.ts'

const storage = new AsyncLocalStorage<HandlerContext>()
installHandlerContextProvider({
  get: () => storage.getStore(),
  run: (context, fn) => storage.run(context, fn),
})

/**
 * Runs `fn` with `context` as the handler context, for tests of tools that
 * read `handlerContext()`.
 *
 * @example
 * await runWithHandlerContext(fakeContext, () => setReminder.execute(input, options))
 */
export function runWithHandlerContext<T>(context: HandlerContext, fn: () => T): T {
  return runInHandlerContext(context, fn)
}
