/**
 * The process lane-memory.bench.ts measures: it loads what the generation
 * function loads (the Lambda handlers, the AWS SDK clients, the AI SDK and
 * the Gateway provider) and, with `--steps N`, runs N turns of a 200-chunk
 * answer through the real Gateway provider against the bench's double,
 * sampling its resident set every 5 ms. Prints one JSON line.
 */
import { parseArgs } from 'node:util'

const { values } = parseArgs({
  options: { steps: { type: 'string', default: '0' }, bare: { type: 'boolean', default: false } },
})
const gc = (globalThis as { gc?: () => void }).gc ?? (() => {})
const rss = () => process.memoryUsage().rss
let peak = rss()
const sampler = setInterval(() => {
  peak = Math.max(peak, rss())
}, 5)

if (values.bare) {
  gc()
  console.log(JSON.stringify({ loaded: rss(), peak: Math.max(peak, rss()) }))
  process.exit(0)
}

const [{ createGateway }, { agent }, { inputs }] = await Promise.all([
  import('@ai-sdk/gateway'),
  import('../../shared/ai/server/index.ts'),
  import('../../shared/ai/index.ts'),
  import('../../shared/aws/lambda/pipeline-handlers.ts'),
  import('@aws-sdk/client-dynamodb'),
  import('@aws-sdk/client-sqs'),
  import('@aws-sdk/client-scheduler'),
])
gc()
const loaded = rss()
peak = loaded

const origin = process.env.A2_BENCH_GATEWAY as string
globalThis.AI_SDK_DEFAULT_PROVIDER = createGateway({
  baseURL: `${origin}/v4/ai`,
  apiKey: 'test-gateway-key',
})
const assistant = agent({
  name: 'memory-bench',
  model: 'openai/gpt-5.6-terra',
  modelCatalog: { url: `${origin}/v1/models` },
  logger: { info() {}, warn() {}, error() {} },
})
const steps = Number(values.steps)
const cpuBefore = process.cpuUsage()
for (let n = 1; n <= steps; n++) {
  const id = `m${n}`
  await assistant
    .session('s')
    .append(
      ...inputs.message({ id, role: 'user', parts: [{ type: 'text', text: `question ${n}` }] }),
    )
  await assistant.runtime.idle()
}
const { state } = await assistant.session('s').state()
const cpu = process.cpuUsage(cpuBefore)
clearInterval(sampler)
peak = Math.max(peak, rss())
const cpuMsPerTurn = steps === 0 ? 0 : (cpu.user + cpu.system) / 1000 / steps
console.log(JSON.stringify({ loaded, peak, cpuMsPerTurn, messages: state.messages.length }))
assistant.runtime.close()
process.exit(0)
