import type { AgentClient } from '../client/agent-client.ts'
import { untypedAgentClient } from '../client/agent-client.ts'
import type { ContractLike } from '../state/session-state.ts'

const NO_CONTRACT: ContractLike = {}
const clients = new Map<string, WeakMap<ContractLike, AgentClient>>()

/**
 * The client `useAgent({ api })` uses: one per route and contract, so every
 * component on a page that names the same session shares one session object
 * and one stream. A server render gets a fresh client each time, so no state
 * outlives the request.
 *
 * @example
 * defaultClient('/api/agent', undefined).session('s1')
 */
export function defaultClient(api: string, contract: ContractLike | undefined): AgentClient {
  const key = contract ?? NO_CONTRACT
  const create = () => untypedAgentClient({ api, contract })
  if (typeof window === 'undefined') return create()
  let byContract = clients.get(api)
  if (!byContract) {
    byContract = new WeakMap()
    clients.set(api, byContract)
  }
  let client = byContract.get(key)
  if (!client) {
    client = create()
    byContract.set(key, client)
  }
  return client
}
