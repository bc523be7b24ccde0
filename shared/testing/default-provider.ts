/**
 * Makes `provider` the AI SDK's default provider, the one model ID strings
 * (`model: 'openai/gpt-5.6-terra'`) resolve through, as AI Gateway is in
 * production: sets `globalThis.AI_SDK_DEFAULT_PROVIDER`. Returns the
 * function that puts back what was there, for the test's cleanup.
 *
 * @example
 * const undo = installDefaultProvider(gateway.provider)
 * onTestFinished(undo)
 */
export function installDefaultProvider(provider: unknown): () => void {
  // Typed by the AI SDK as a v4 provider; the legacy doubles install others.
  const global = globalThis as { AI_SDK_DEFAULT_PROVIDER?: unknown }
  const before = global.AI_SDK_DEFAULT_PROVIDER
  global.AI_SDK_DEFAULT_PROVIDER = provider
  return () => {
    global.AI_SDK_DEFAULT_PROVIDER = before
  }
}
