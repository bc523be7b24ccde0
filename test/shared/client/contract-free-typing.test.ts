import { describe, expect, expectTypeOf, it } from 'vitest'
import type { HasAppReducer } from '../../../shared/client/agent-types.ts'
import { createAgentClient } from '../../../shared/client/index.ts'
import type { assistant } from '../../seeds/assistant.ts'
import type { metadataAssistant } from '../../seeds/metadata-assistant.ts'
import { supportDesk } from '../../seeds/support-desk.ts'
import type { supportDeskAgent } from '../../seeds/support-desk-agent.ts'

describe('the contract-free client folds only AI_STATE_REDUCER', () => {
  it('accepts agent({ name }) and an agentContract() without a reducer', () => {
    expectTypeOf<HasAppReducer<typeof assistant>>().toEqualTypeOf<false>()
    expectTypeOf<HasAppReducer<typeof metadataAssistant>>().toEqualTypeOf<false>()
    const client = createAgentClient<typeof assistant>({ api: 'http://a2.test/api/agent' })
    expect(typeof client.session).toBe('function')
    client.dispose()
  })

  it('refuses, at compile time, an agent whose contract folds its own state unless the contract is passed', () => {
    expectTypeOf<HasAppReducer<typeof supportDeskAgent>>().toEqualTypeOf<true>()
    // @ts-expect-error: the contract-free client cannot fold support-desk's state
    const refused = createAgentClient<typeof supportDeskAgent>({ api: 'http://a2.test/api/agent' })
    refused.dispose()
    const withContract = createAgentClient({
      api: 'http://a2.test/api/agent',
      contract: supportDesk,
    })
    expectTypeOf(withContract.session('s').getSnapshot().state.plan).toEqualTypeOf<'free' | 'pro'>()
    withContract.dispose()
  })
})
