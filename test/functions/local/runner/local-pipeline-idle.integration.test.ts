import { spawn } from 'node:child_process'
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  type LocalPipeline,
  startLocalPipeline,
} from '../../../../functions/local/runner/local-pipeline.ts'
import { createLocalResources } from '../../../../functions/local/runner/resources.ts'
import { agent } from '../../../../shared/agent/index.ts'
import { inputs } from '../../../../shared/ai.ts'
import { awsAgentParts } from '../../../../shared/aws/agent-environment.ts'
import { QUEUE_FUNCTION_NAMES } from '../../../../shared/aws/pipeline-functions.ts'
import { scriptedModel, text } from '../../../../shared/testing/scripted-model.ts'
import { sleep } from '../../../../shared/timing/sleep.ts'
import { resetMotoForSuite } from '../../../support/aws.ts'
import { pipelineClients, silent } from '../../../support/pipeline.ts'

import { repoRoot as root } from '../../../support/repo-root.ts'

let requests = 0
/** ReceiveMessage calls by queue URL: one poller each. */
const receives = new Map<string, number>()
let pipeline: LocalPipeline | undefined
let answerOf: (sessionId: string) => Promise<string> = async () => ''

beforeAll(async () => {
  await resetMotoForSuite()
  const clients = pipelineClients()
  // Every request the runner (and the agent) makes to the emulator.
  const counting = { step: 'initialize' } as const
  clients.dynamodb.middlewareStack.add(
    (next) => (args) => {
      requests++
      return next(args)
    },
    counting,
  )
  clients.streams.middlewareStack.add(
    (next) => (args) => {
      requests++
      return next(args)
    },
    counting,
  )
  clients.sqs.middlewareStack.add(
    (next, context) => (args) => {
      requests++
      const queueUrl = (args.input as { QueueUrl?: string }).QueueUrl
      if (context.commandName === 'ReceiveMessageCommand' && queueUrl) {
        receives.set(queueUrl, (receives.get(queueUrl) ?? 0) + 1)
      }
      return next(args)
    },
    counting,
  )
  clients.scheduler.middlewareStack.add(
    (next) => (args) => {
      requests++
      return next(args)
    },
    counting,
  )
  const prefix = `a2-idle-${Date.now().toString(36)}`
  const { environment, queues } = await createLocalResources(clients, { prefix })
  const aws = awsAgentParts({ environment, clients })
  const assistant = agent({
    name: 'support-agent',
    model: scriptedModel([text('Awake.')]).model,
    logger: silent,
    store: aws.store,
    dispatcher: aws.dispatcher,
    scheduler: aws.scheduler,
  })
  answerOf = async (sessionId) => {
    const { state } = await assistant.session(sessionId).state()
    const reply = state.messages.find((message) => message.role === 'assistant')
    return (reply?.parts ?? []).map((part) => (part.type === 'text' ? part.text : '')).join('')
  }
  pipeline = await startLocalPipeline({
    agentModule: { default: assistant },
    environment,
    queues,
    clients,
    logger: silent,
    // This file measures polling; who may open a session is pipeline-access.test.ts's.
    auth: { type: 'none' },
  })
})

afterAll(async () => {
  await pipeline?.stop()
})

describe('npm run local idles quietly and wakes on work', () => {
  it('"idles quietly": with nothing to do each poller backs off to one poll a second (it polled every 50 ms)', async () => {
    // Let the pollers reach their longest pause, then count.
    await sleep(3_000)
    const before = requests
    receives.clear()
    const cpu = process.cpuUsage()
    const started = Date.now()
    await sleep(4_000)
    const seconds = (Date.now() - started) / 1000
    const used = process.cpuUsage(cpu)
    const perSecond = (requests - before) / seconds
    console.info(
      `idle runner: ${perSecond.toFixed(1)} requests/s, ${(((used.user + used.system) / 1e6 / seconds) * 100).toFixed(1)}% of a core in this process`,
    )
    // Each queue's poller: once a second at most (it was 20 times a second,
    // less only what the emulator's answers took).
    expect(receives.size).toBe(QUEUE_FUNCTION_NAMES.length)
    expect(Math.max(...receives.values())).toBeLessThanOrEqual(Math.ceil(seconds) + 1)
    // A poller a queue at one poll a second, the stream's 3 requests a poll: about a dozen.
    expect(perSecond).toBeLessThan(25)
  }, 30_000)

  it('a message POSTed to the idle runner is answered: the request wakes every poller', async () => {
    const started = Date.now()
    const posted = await fetch(`${pipeline?.url}?sessionId=wake`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        events: inputs.message({ id: 'w1', role: 'user', parts: [{ type: 'text', text: 'Hi' }] }),
      }),
    })
    expect(posted.status).toBe(200)
    await expect.poll(() => answerOf('wake'), { timeout: 20_000, interval: 100 }).toBe('Awake.')
    console.info(`answered after ${Date.now() - started} ms`)
  }, 30_000)
})

describe('npm run local stops what it started when it cannot start', () => {
  it('a port in use: one line saying so, exit code 1, and the moto server it started is gone', async () => {
    const blocker = createServer()
    await new Promise<void>((done) => blocker.listen(0, '127.0.0.1', done))
    const port = (blocker.address() as { port: number }).port
    // A python3 that says where moto runs (exec keeps the process ID).
    const dir = mkdtempSync(join(tmpdir(), 'a2-moto-pid-'))
    const python = join(dir, 'python3')
    writeFileSync(python, `#!/bin/sh\necho $$ > ${dir}/pid\nexec python3 "$@"\n`)
    chmodSync(python, 0o755)
    const run = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, ['functions/local/local-aws-server.ts'], {
        cwd: root,
        env: { ...process.env, A2_PYTHON: python, A2_AWS_ENDPOINT: '', PORT: String(port) },
        stdio: ['ignore', 'ignore', 'pipe'],
      })
      let stderr = ''
      child.stderr.on('data', (chunk) => {
        stderr += chunk
      })
      child.once('exit', (code) => resolve({ code, stderr }))
    })
    blocker.close()
    expect(run.code).toBe(1)
    expect(run.stderr.trim()).toBe(
      `npm run local: Port ${port} on 127.0.0.1 is in use: stop what is listening there, or pick another port with PORT=<port> (PORT=0 picks a free one).`,
    )
    const motoPid = Number(readFileSync(join(dir, 'pid'), 'utf8'))
    expect(motoPid).toBeGreaterThan(0)
    // Gone, or a zombie nobody reaped yet (a container's init may never): not running.
    const state = (): string => {
      try {
        return readFileSync(`/proc/${motoPid}/stat`, 'utf8').split(') ')[1]?.[0] ?? 'gone'
      } catch {
        return 'gone'
      }
    }
    await expect
      .poll(() => (['gone', 'Z', 'X'].includes(state()) ? 'stopped' : state()))
      .toBe('stopped')
  }, 120_000)
})
