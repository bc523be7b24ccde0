// Agent modules as `a2-aws check --agent` loads them (check-command.test.ts):
// the deployed code and a new version without its tool, by name.
import { agent } from '../../shared/agent/index.ts'
import { scriptedModel } from '../../shared/testing/scripted-model.ts'
import { supportTools } from './recorded-export.ts'

export const current = agent({
  name: 'support',
  model: scriptedModel([]).model,
  tools: supportTools,
})
export const withoutLookup = agent({ name: 'support', model: scriptedModel([]).model })
export const notAnAgent = { name: 'support' }
