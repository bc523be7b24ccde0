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
 *    embedded agent runs every lane of the turn in this one process).
 *
 *   npm run bench -- lane-memory
 */
import { spawn } from 'node:child_process'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { gatewayDouble } from '../../shared/testing/gateway-double.ts'
import { text } from '../../shared/testing/model-script.ts'

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
try {
  const bare = await measure(['--bare'])
  const loaded = await measure(['--steps', '0'])
  const stepping = await measure(['--steps', String(STEPS)], { A2_BENCH_GATEWAY: gateway.url })
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
  console.log(
    `A step adds ${((stepping.peak - loaded.loaded) / MB).toFixed(0)} MB to the loaded code's ${(loaded.loaded / MB).toFixed(0)} MB.`,
  )
  // Lambda gives a function CPU in proportion to its memory: a full vCPU at
  // 1,769 MB (https://docs.aws.amazon.com/lambda/latest/dg/configuration-memory.html).
  for (const memory of [256, 512, 1024]) {
    const share = Math.min(1, memory / 1769)
    console.log(
      `  at ${String(memory).padStart(4)} MB: ${(stepping.peak / MB / memory).toFixed(2)} of the memory at the peak, about ${(stepping.cpuMsPerTurn / share).toFixed(0)} ms of a turn's ${stepping.cpuMsPerTurn.toFixed(0)} ms of CPU work on its CPU share`,
    )
  }
} finally {
  await gateway.close()
}
