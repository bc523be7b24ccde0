/** Where A2 reads model limits: the AI Gateway model catalog. */
const DEFAULT_MODEL_CATALOG_URL = 'https://ai-gateway.vercel.sh/v1/models'

export interface ModelCatalogOptions {
  /** The catalog's URL (default: AI Gateway's public model list). */
  url?: string
  fetch?: typeof globalThis.fetch
  /** A lookup slower than this fails and is retried (default 10 s). */
  timeoutMs?: number
}

export interface ModelLimits {
  contextWindow?: number
  maxOutputTokens?: number
}

/**
 * Looks a model up in the catalog: its limits, or `undefined` when the
 * catalog does not list it. Throws when the catalog cannot be read, so the
 * lookup is retried.
 */
export async function lookUpModel(
  modelId: string,
  options: ModelCatalogOptions = {},
): Promise<ModelLimits | undefined> {
  const response = await (options.fetch ?? fetch)(options.url ?? DEFAULT_MODEL_CATALOG_URL, {
    headers: { accept: 'application/json' },
    signal: AbortSignal.timeout(options.timeoutMs ?? 10_000),
  })
  if (!response.ok) throw new Error(`The model catalog answered ${response.status}`)
  const body = (await response.json()) as { data?: unknown }
  if (!Array.isArray(body.data)) throw new Error('The model catalog answered without a data list')
  const entry = (body.data as Record<string, unknown>[]).find((model) => model.id === modelId)
  if (!entry) return undefined
  const number = (value: unknown): number | undefined =>
    typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : undefined
  const contextWindow = number(entry.context_window)
  const maxOutputTokens = number(entry.max_tokens)
  return {
    ...(contextWindow === undefined ? {} : { contextWindow }),
    ...(maxOutputTokens === undefined ? {} : { maxOutputTokens }),
  }
}
