// The one thing the package test adds to the page's server: loaded into
// `npm start`'s Node with `--import` (through npm's `node-options`, so npm
// itself never loads it), it points AI Gateway's own provider at the test's
// Gateway double, which a user's server never needs. The page's model ID
// string resolves through it as it resolves through AI Gateway; the API key
// comes as the page says, from AI_GATEWAY_API_KEY. Plain JavaScript, so
// that on a Node without type stripping the page's own server.ts is what
// fails, not this file.
import { createGateway } from '@ai-sdk/gateway'

globalThis.AI_SDK_DEFAULT_PROVIDER = createGateway({
  baseURL: process.env.A2_TEST_GATEWAY_BASE_URL,
})
