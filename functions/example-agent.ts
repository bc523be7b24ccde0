// The example agent the repo's CDK app deploys (`infra/app.ts`). Your own
// agent module looks the same: export the value agent() returns, built with
// the store, dispatcher and scheduler the A2Agent construct configures.

import { tool } from 'ai'
import { z } from 'zod'
import { agent } from '../shared/ai/server/index.ts'
import { awsAgentParts } from '../shared/aws/agent-environment.ts'

const aws = awsAgentParts()

export default agent({
  name: 'support-agent',
  // An AI Gateway model ID; set A2_MODEL on the functions to change it.
  model: process.env.A2_MODEL ?? 'openai/gpt-5-mini',
  instructions: 'Help the customer with their orders. Be concise.',
  tools: {
    lookupOrder: tool({
      description: 'Looks up the status of an order by its ID',
      inputSchema: z.object({ orderId: z.string() }),
      execute: async ({ orderId }) => ({ orderId, status: 'shipped' }),
    }),
  },
  store: aws.store,
  dispatcher: aws.dispatcher,
  scheduler: aws.scheduler,
})
