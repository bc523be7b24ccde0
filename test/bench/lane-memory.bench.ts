/**
 * What a model step uses of a Lambda function's memory (issue 26: the
 * generation function waited on the model at 1024 MB). Each figure is the
 * peak resident set of a process of its own, sampled every 5 ms, against
 * the baseline of a bare Node process measured in the same run:
 *
 * 1. bare Node (the baseline);
 * 2. the generation function's code loaded (the Lambda handlers, the AWS
 *    SDK clients, the AI SDK and the Gateway provider), no step run;
 * 3. that, running 20 turns of a 200-chunk answer through the real Gateway
 *    provider against a double in the bench's process (an upper bound: the
 *    embedded agent runs every lane of the turn in this one process);
 * 4. the stream function (issue 34): the same code loaded, serving a GET
 *    stream per turn of 20 turns recorded here (every event of a turn
 *    appended while its stream is open: read off the live tail, folded for
 *    the settled check, sent), no lane running.
 *
 *   npm run bench -- lane-memory
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { agent } from '../../shared/agent/index.ts'
import { inputs } from '../../shared/ai.ts'
import { memoryEventStore } from '../../shared/stores/memory/memory-event-store.ts'
import { gatewayDouble } from '../../shared/testing/gateway-double.ts'
import { text } from '../../shared/testing/model-script.ts'
import { scriptedModel } from '../../shared/testing/scripted-model.ts'

const child = join(dirname(fileURLToPath(import.meta.url)), 'lane-memory-child.ts')
const MB = 1024 * 1024
const STEPS = 20

function measure(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ loaded: number; peak: number; cpuMsPerTurn: number }> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, ['--expose-gc', child, ...args], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    let out = ''
    proc.stdout.on('data', (chunk) => {
      out += chunk
    })
    proc.once('exit', (code) => {
      if (code !== 0) return reject(new Error(`lane-memory-child exited with ${code}`))
      resolve(JSON.parse(out.trim().split('\n').at(-1) as string))
    })
  })
}

const answer = `${'lorem ipsum dolor sit amet, consectetur adipiscing elit '.repeat(40)}`
const gateway = await gatewayDouble({
  script: Array.from({ length: STEPS }, () => text(answer, { chunks: 200 })),
  catalog: { 'openai/gpt-5.6-terra': { contextWindow: 400_000, maxOutputTokens: 128_000 } },
})
/** The events of STEPS turns of the same answer, split by turn, as the stream child appends them. */
async function recordedTurns(): Promise<{ id: string; type: string; payload: unknown }[][]> {
  const store = memoryEventStore()
  const recorder = agent({
    name: 'memory-bench',
    model: scriptedModel(Array.from({ length: STEPS }, () => text(answer, { chunks: 200 }))).model,
    store,
    logger: { info() {}, warn() {}, error() {} },
  })
  for (let n = 1; n <= STEPS; n++) {
    await recorder.session('s').append(
      ...inputs.message({
        id: `m${n}`,
        role: 'user',
        parts: [{ type: 'text', text: `question ${n}` }],
      }),
    )
    await recorder.runtime.idle()
  }
  recorder.runtime.close()
  const turns: { id: string; type: string; payload: unknown }[][] = []
  for (const event of await store.read('s')) {
    if (event.type === 'ai.control.requested' || turns.length === 0) turns.push([])
    turns.at(-1)?.push({ id: event.id, type: event.type, payload: event.payload })
  }
  return turns
}

const dir = mkdtempSync(join(tmpdir(), 'a2-lane-memory-'))
try {
  const turnsFile = join(dir, 'turns.json')
  const turns = await recordedTurns()
  writeFileSync(turnsFile, JSON.stringify(turns))
  const bare = await measure(['--bare'])
  const loaded = await measure(['--steps', '0'])
  const stepping = await measure(['--steps', String(STEPS)], { A2_BENCH_GATEWAY: gateway.url })
  const streaming = await measure(['--streams', turnsFile])
  const row = (label: string, bytes: number) =>
    console.log(
      `${label.padEnd(48)} ${(bytes / MB).toFixed(0).padStart(5)} MB  ${(bytes / bare.peak).toFixed(2)}x bare Node`,
    )
  console.log(
    `Peak resident set, ${STEPS} turns of a 200-chunk answer (${gateway.calls.length} model calls):`,
  )
  row('bare Node (baseline)', bare.peak)
  row('the generation function code loaded', loaded.peak)
  row(`running ${STEPS} turns`, stepping.peak)
  row(`the stream function: a GET stream per turn, ${turns.length} turns`, streaming.peak)
  console.log(
    `A step adds ${((stepping.peak - loaded.loaded) / MB).toFixed(0)} MB to the loaded code's ${(loaded.loaded / MB).toFixed(0)} MB; a turn's GET stream ${((streaming.peak - streaming.loaded) / MB).toFixed(0)} MB (${streaming.cpuMsPerTurn.toFixed(0)} ms of CPU a turn).`,
  )
  // Lambda gives a function CPU in proportion to its memory: a full vCPU at
  // 1,769 MB (https://docs.aws.amazon.com/lambda/latest/dg/configuration-memory.html).
  for (const memory of [256, 512, 1024]) {
    const share = Math.min(1, memory / 1769)
    console.log(
      `  at ${String(memory).padStart(4)} MB: ${(stepping.peak / MB / memory).toFixed(2)} of the memory at the peak, about ${(stepping.cpuMsPerTurn / share).toFixed(0)} ms of a turn's ${stepping.cpuMsPerTurn.toFixed(0)} ms of CPU work on its CPU share`,
    )
  }
  console.log(
    `BENCH_RESULT ${JSON.stringify({ bench: 'lane-memory', bareMb: bare.peak / MB, loadedMb: loaded.loaded / MB, stepPeakMb: stepping.peak / MB, streamPeakMb: streaming.peak / MB, streamAddsMb: (streaming.peak - streaming.loaded) / MB, stepCpuMsPerTurn: stepping.cpuMsPerTurn, streamCpuMsPerTurn: streaming.cpuMsPerTurn })}`,
  )
} finally {
  rmSync(dir, { recursive: true })
  await gateway.close()
}
