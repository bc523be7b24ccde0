import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { build } from 'esbuild'
import { environmentVariables } from '../../shared/aws/environment-variables.ts'
import { repoRoot } from './repo-root.ts'

// What a cold start of an A2Agent function loads: the Lambda entry point
// (functions/lambda.ts) with an agent module, bundled by esbuild with the
// construct's bundling options (infra/agent-functions.ts: ESM, node22,
// minified, the AWS SDK bundled, a source map without sources, the
// createRequire banner), then imported by a fresh Node process with the
// environment the construct sets and Lambda's `awslambda` global. Every
// function ships this one bundle; only its handler export differs.

/** The bundle of the entry point with `agentModule` (a path from the repo root). */
export async function bundleLambda(
  agentModule = 'functions/example-agent.ts',
): Promise<{ file: string; bytes: number; dispose(): void }> {
  const dir = mkdtempSync(join(tmpdir(), 'a2-lambda-bundle-'))
  const file = join(dir, 'index.mjs')
  await build({
    entryPoints: [join(repoRoot, 'functions/lambda.ts')],
    absWorkingDir: repoRoot,
    outfile: file,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node22',
    minify: true,
    sourcemap: true,
    sourcesContent: false,
    mainFields: ['module', 'main'],
    alias: { 'a2-aws-agent-module': join(repoRoot, agentModule) },
    banner: {
      js: "import { createRequire as __a2CreateRequire } from 'node:module'; const require = __a2CreateRequire(import.meta.url);",
    },
    logLevel: 'silent',
  })
  return { file, bytes: statSync(file).size, dispose: () => rmSync(dir, { recursive: true }) }
}

/** The environment the construct gives a function, with placeholder resources (nothing is called at init). */
function functionEnvironment(): Record<string, string> {
  return {
    ...environmentVariables({
      tableName: 'a2-table',
      queueUrls: {
        admission: 'https://sqs.us-east-1.amazonaws.com/123456789012/admission.fifo',
        generation: 'https://sqs.us-east-1.amazonaws.com/123456789012/generation.fifo',
        tools: 'https://sqs.us-east-1.amazonaws.com/123456789012/tools.fifo',
        handlers: 'https://sqs.us-east-1.amazonaws.com/123456789012/handlers.fifo',
      },
      ingressQueueUrl: 'https://sqs.us-east-1.amazonaws.com/123456789012/ingress.fifo',
      timers: {
        queueUrl: 'https://sqs.us-east-1.amazonaws.com/123456789012/timers',
        queueArn: 'arn:aws:sqs:us-east-1:123456789012:timers',
        scheduleGroup: 'a2',
        schedulerRoleArn: 'arn:aws:iam::123456789012:role/scheduler',
        deadLetterQueueArn: 'arn:aws:sqs:us-east-1:123456789012:scheduler-dlq',
      },
      agentExport: 'default',
      maxReceiveCount: 5,
    }),
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'test',
    AWS_SECRET_ACCESS_KEY: 'test',
    AWS_LAMBDA_FUNCTION_NAME: 'a2-bench-function',
  }
}

/** Lambda's response streaming global, which the entry point wraps `http` with. */
const AWSLAMBDA_GLOBAL =
  'data:text/javascript,globalThis.awslambda={streamifyResponse:(h)=>h,HttpResponseStream:{from:(s)=>s}}'

export interface InitTiming {
  /** From the process's start to the handlers exported (the bundle imported), ms. */
  ms: number
  /** Resident set once imported, bytes. */
  rss: number
}

/**
 * One fresh Node process: with `file`, it imports the bundle and reports
 * when that finished (`performance.now()`: from the process's start, so
 * Node's own start is in it, as it is in Lambda's INIT); without, a bare
 * process's start (the baseline).
 */
export function timeInit(file: string | undefined): Promise<InitTiming> {
  const script = file
    ? `await import(${JSON.stringify(file)}); console.log(JSON.stringify({ ms: performance.now(), rss: process.memoryUsage().rss }))`
    : 'console.log(JSON.stringify({ ms: performance.now(), rss: process.memoryUsage().rss }))'
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--import', AWSLAMBDA_GLOBAL, '--input-type=module', '-e', script],
      {
        env: { PATH: process.env.PATH ?? '', ...functionEnvironment() },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    )
    let out = ''
    let err = ''
    child.stdout.on('data', (chunk) => {
      out += chunk
    })
    child.stderr.on('data', (chunk) => {
      err += chunk
    })
    child.once('exit', (code) => {
      const last = out.trim().split('\n').at(-1)
      if (code !== 0 || !last) return reject(new Error(`init child exited ${code}: ${err}`))
      resolve(JSON.parse(last) as InitTiming)
    })
  })
}
