import { fetchFailure } from './fetch-failure.ts'

/** Where A2 reads model limits: the AI Gateway model catalog. */
const DEFAULT_MODEL_CATALOG_URL = 'https://ai-gateway.vercel.sh/v1/models'

export interface ModelCatalogOptions {
  /** The catalog's URL (default: AI Gateway's public model list). */
  url?: string
  fetch?: typeof globalThis.fetch
  /** A lookup slower than this counts as a catalog that cannot be reached (default 10 s). */
  timeoutMs?: number
}

/**
 * The catalog as an agent reads it: its options, and what to do when it
 * cannot be reached at all (no network, a name that does not resolve, a
 * closed port, no answer in time). With `onUnreachable` the lookup then
 * answers `undefined`, as for a model the catalog does not list: the
 * model's limits stay unknown instead of the lookup being retried and
 * dead-lettered in every session. An answer that is not a list (a 503) is
 * still thrown, to be retried.
 */
export interface ModelCatalog extends ModelCatalogOptions {
  onUnreachable?: (reason: string) => void
}

export interface ModelLimits {
  contextWindow?: number
  maxOutputTokens?: number
}

/**
 * Looks a model up in the catalog: its limits, or `undefined` when the
 * catalog does not list it (or cannot be reached, with `onUnreachable`).
 * Throws when the catalog answers but cannot be read, so the lookup is
 * retried; every message names the catalog's URL.
 */
export async function lookUpModel(
  modelId: string,
  options: ModelCatalog = {},
): Promise<ModelLimits | undefined> {
  const url = options.url ?? DEFAULT_MODEL_CATALOG_URL
  let response: Response
  try {
    response = await (options.fetch ?? fetch)(url, {
      headers: { accept: 'application/json' },
      signal: AbortSignal.timeout(options.timeoutMs ?? 10_000),
    })
  } catch (error) {
    const why = fetchFailure(error)
    if (why === undefined) throw error
    const reason = `The model catalog at ${url} cannot be reached: ${why}`
    if (!options.onUnreachable) throw new Error(reason, { cause: error })
    options.onUnreachable(reason)
    return undefined
  }
  if (!response.ok) throw new Error(`The model catalog at ${url} answered ${response.status}`)
  const body = (await response.json()) as { data?: unknown }
  if (!Array.isArray(body.data)) {
    throw new Error(`The model catalog at ${url} answered without a data list`)
  }
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

/**
 * An agent's catalog: a catalog that cannot be reached falls back (the
 * model's limits unknown, so the session does not compact by the model's
 * window) and says so once per agent, with its URL and cause, not once per
 * session.
 */
export function agentModelCatalog(
  options: ModelCatalogOptions,
  logger: Pick<Console, 'warn'>,
): ModelCatalog {
  let warned = false
  return {
    ...options,
    onUnreachable: (reason) => {
      if (warned) return
      warned = true
      logger.warn(
        `a2: ${reason}. Models' limits stay unknown, so sessions do not compact by the model's context window (said once; each session asks once): give agent({ modelCatalog: { url } }) a catalog this machine reaches, or compaction a thresholdTokens`,
      )
    },
  }
}
