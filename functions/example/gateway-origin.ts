import { createGateway, type GatewayProvider } from '@ai-sdk/gateway'
import { ClearError } from '../exit-clearly.ts'

/** AI Gateway's own origin: the model API is below it at `/v4/ai`, the catalog at `/v1/models`. */
const DEFAULT_GATEWAY_ORIGIN = 'https://ai-gateway.vercel.sh'

/** What the example's processes read to reach AI Gateway. */
export interface GatewayEnv {
  /** The AI Gateway's origin (a proxy, a test double); default `DEFAULT_GATEWAY_ORIGIN`. */
  A2_GATEWAY_URL?: string
  AI_GATEWAY_API_KEY?: string
}

/** Where model ID strings and the model catalog go, for an origin other than AI Gateway's own. */
export interface GatewaySettings {
  /** The origin, as the startup line shows it. */
  origin: string
  /** For `globalThis.AI_SDK_DEFAULT_PROVIDER`: model ID strings resolve through it. */
  provider: GatewayProvider
  /** For `agent({ modelCatalog })`: compaction reads the model's limits here. */
  modelCatalog: { url: string }
}

/**
 * The two settings `A2_GATEWAY_URL` stands for, or `undefined` when it is
 * unset (the AI SDK's and A2's defaults already point at AI Gateway). The
 * model stays a model ID string: only the entry point (a process's main, an
 * agent module) sets the provider, since it is process-wide.
 *
 * @example
 * const gateway = gatewaySettings(process.env)
 * if (gateway) globalThis.AI_SDK_DEFAULT_PROVIDER = gateway.provider
 */
export function gatewaySettings(env: GatewayEnv): GatewaySettings | undefined {
  const value = env.A2_GATEWAY_URL?.trim()
  if (!value) return undefined
  const origin = originOf(value)
  return {
    origin,
    provider: createGateway({
      baseURL: `${origin}/v4/ai`,
      // Without it the provider reads AI_GATEWAY_API_KEY (or Vercel's OIDC token) itself.
      ...(env.AI_GATEWAY_API_KEY ? { apiKey: env.AI_GATEWAY_API_KEY } : {}),
    }),
    modelCatalog: { url: `${origin}/v1/models` },
  }
}

function originOf(value: string): string {
  let url: URL
  try {
    url = new URL(value)
  } catch {
    throw new ClearError(
      `A2_GATEWAY_URL: "${value}" is not a URL; give the AI Gateway's origin, e.g. ${DEFAULT_GATEWAY_ORIGIN}`,
    )
  }
  // A path would be dropped silently; say so instead (`/v4/ai` is added here).
  if (url.pathname !== '/' || url.search || url.hash) {
    throw new ClearError(
      `A2_GATEWAY_URL: "${value}" has a path; give the AI Gateway's origin only (${url.origin}): /v4/ai and /v1/models are added`,
    )
  }
  return url.origin
}
