/**
 * The process lane-memory.bench.ts measures: it loads what the generation
 * function loads (the Lambda handlers, the AWS SDK clients, the AI SDK and
 * the Gateway provider) and, with `--steps N`, runs N turns of a 200-chunk
 * answer through the real Gateway provider against the bench's double,
 * sampling its resident set every 5 ms. With `--streams FILE`, it is the
 * stream function instead: the same code loaded, and a GET stream per turn
 * of the turns in FILE (stored events, as the bench recorded them), each
 * appended one by one while the stream is open, so it reads them off its
 * live tail, folds them for its settled check, and sends them. Prints one
 * JSON line.
 */
import { readFileSync } from 'node:fs'
import { parseArgs } from 'node:util'

const { values } = parseArgs({
  options: {
    steps: { type: 'string', default: '0' },
    streams: { type: 'string' },
    bare: { type: 'boolean', default: false },
  },
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
  import('../../shared/agent/index.ts'),
  import('../../shared/ai.ts'),
  import('../../shared/aws/lambda/pipeline-handlers.ts'),
  import('@aws-sdk/client-dynamodb'),
  import('@aws-sdk/client-sqs'),
  import('@aws-sdk/client-scheduler'),
])
gc()
const loaded = rss()
peak = loaded

if (values.streams) {
  const { memoryEventStore } = await import('../../shared/stores/memory/memory-event-store.ts')
  const turns = JSON.parse(readFileSync(values.streams, 'utf8')) as {
    id: string
    type: string
    payload: unknown
  }[][]
  const store = memoryEventStore()
  // The stream function: it serves GETs and wakes nothing here (a wake-up
  // goes to a queue on AWS), so no lane runs in this process.
  const reader = agent({
    name: 'memory-bench',
    model: 'openai/gpt-5.6-terra',
    store,
    dispatcher: { wake: async () => {} },
    logger: { info() {}, warn() {}, error() {} },
  })
  const cpuBefore = process.cpuUsage()
  let head = 0
  for (const events of turns) {
    const response = await reader.fetch(
      new Request('http://bench.local/agent?sessionId=s', {
        headers: { 'last-event-id': String(head) },
      }),
    )
    const body = (response.body as ReadableStream<Uint8Array>).getReader()
    const want = head + events.length
    const reading = (async () => {
      let text = ''
      const decoder = new TextDecoder()
      while (!text.includes(`id: ${want}\n`)) {
        const next = await body.read()
        if (next.done) break
        text += decoder.decode(next.value, { stream: true })
        // Keep only the tail: the page's frames are gone once sent.
        text = text.slice(-200)
      }
      await body.cancel()
    })()
    for (const event of events) {
      const result = await store.append('s', [event])
      head = result.events.at(-1)?.index ?? head
      await new Promise((resolve) => setTimeout(resolve, 2))
    }
    await reading
  }
  const cpu = process.cpuUsage(cpuBefore)
  clearInterval(sampler)
  peak = Math.max(peak, rss())
  const cpuMsPerTurn = (cpu.user + cpu.system) / 1000 / turns.length
  console.log(JSON.stringify({ loaded, peak, cpuMsPerTurn, messages: head }))
  reader.runtime.close()
  process.exit(0)
}

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
