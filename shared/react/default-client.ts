import type { AgentClient } from '../client/agent-client.ts'
import { untypedAgentClient } from '../client/agent-client.ts'
import type { ContractLike } from '../model/state/session-state.ts'

const NO_CONTRACT: ContractLike = {}
const clients = new Map<string, WeakMap<ContractLike, Map<string, AgentClient>>>()

/**
 * The client `useAgent({ api })` uses: one per route, contract and session
 * token, so every component on a page that names the same session shares
 * one session object and one stream. A server render gets a fresh client
 * each time, so no state outlives the request.
 *
 * @example
 * defaultClient('/api/agent', undefined).session('s1')
 */
export function defaultClient(
  api: string,
  contract: ContractLike | undefined,
  token?: string,
): AgentClient {
  const key = contract ?? NO_CONTRACT
  const create = () =>
    untypedAgentClient({ api, contract, ...(token === undefined ? {} : { token }) })
  if (typeof window === 'undefined') return create()
  let byContract = clients.get(api)
  if (!byContract) {
    byContract = new WeakMap()
    clients.set(api, byContract)
  }
  let byToken = byContract.get(key)
  if (!byToken) {
    byToken = new Map()
    byContract.set(key, byToken)
  }
  let client = byToken.get(token ?? '')
  if (!client) {
    client = create()
    byToken.set(token ?? '', client)
  }
  return client
}
