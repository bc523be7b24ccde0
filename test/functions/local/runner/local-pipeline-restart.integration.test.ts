import { execFile } from 'node:child_process'
import { mkdtempSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type MotoServer, startMotoServer } from '../../../../functions/local/runner/moto-server.ts'
import type { OpenedSession } from '../../../../shared/http/log-endpoint.ts'
import type { AIState } from '../../../../shared/model/state/ai-state.ts'
import { awsEndpoint, resetMotoForSuite } from '../../../support/aws.ts'
import {
  bareEnv,
  type RunnerProcess,
  startRunnerProcess,
} from '../../../support/local-runner-process.ts'
import { repoRoot as root } from '../../../support/repo-root.ts'
import { until } from '../../../support/until.ts'

// `npm run local` stopped and started again against the same endpoint, which
// still holds the sessions (here this worker's moto; against real AWS, a moto
// of this file's own): the session's old token still reads it and moves it
// on. The runner runs as its npm script does, in its own process, from a
// folder of its own (where it keeps .a2-local/), with the offline demo model.

let moto: MotoServer | undefined
let endpoint = ''
const dir = mkdtempSync(join(tmpdir(), 'a2-local-restart-'))
const runners: RunnerProcess[] = []

beforeAll(async () => {
  await resetMotoForSuite()
  const shared = awsEndpoint()
  if (shared === 'aws') moto = await startMotoServer()
  endpoint = moto?.endpoint ?? shared
})

afterAll(async () => {
  for (const runner of runners) await runner.stop()
  moto?.stop()
})

/** Starts the runner on `endpoint` (with the example agent, or `agentModule`) and answers once its banner is out. */
async function startRunner(agentModule?: string): Promise<RunnerProcess> {
  const runner = await startRunnerProcess({
    dir,
    endpoint,
    ...(agentModule ? { agentModule } : {}),
  })
  runners.push(runner)
  return runner
}

const json = { 'content-type': 'application/json' }

async function stateOf(url: string, session: OpenedSession): Promise<Response> {
  return fetch(`${new URL(url).origin}/api/state?sessionId=${session.sessionId}`, {
    headers: { authorization: `Bearer ${session.token}` },
  })
}

async function push(url: string, session: OpenedSession, events: unknown[]): Promise<void> {
  const response = await fetch(`${url}?sessionId=${session.sessionId}`, {
    method: 'POST',
    headers: { ...json, authorization: `Bearer ${session.token}` },
    body: JSON.stringify({ events }),
  })
  expect(response.status).toBe(200)
}

describe('npm run local restarted against the same endpoint', () => {
  it("keeps its session key in .a2-local/: a session's old token reads it and approves its tool after the restart", async () => {
    const first = await startRunner()
    const opened = await fetch(first.url, { method: 'POST', headers: json, body: '{}' })
    expect(opened.status).toBe(201)
    const session = (await opened.json()) as OpenedSession
    const id = `m1-${session.sessionId}`
    await push(first.url, session, [
      {
        id,
        type: 'ai.control.requested',
        payload: {
          action: 'message',
          generate: true,
          message: { id, role: 'user', parts: [{ type: 'text', text: 'close ticket T-42' }] },
        },
      },
    ])
    const waiting = await until(async () => {
      const { state } = (await (await stateOf(first.url, session)).json()) as { state: AIState }
      return state.pendingApprovals[0]
      // Waits, not targets: a loaded machine's moto takes its time.
    }, 90_000)
    await first.stop()

    const second = await startRunner()
    const read = await stateOf(second.url, session)
    expect(read.status).toBe(200)
    await push(second.url, session, [
      {
        id: `a1-${session.sessionId}`,
        type: 'ai.control.requested',
        payload: {
          action: 'approval',
          approved: true,
          approvalId: waiting.approvalId,
          toolCallId: waiting.toolCallId,
          messageId: waiting.messageId,
          generationId: waiting.generationId,
        },
      },
    ])
    const answer = await until(async () => {
      const { state } = (await (await stateOf(second.url, session)).json()) as { state: AIState }
      const last = state.messages.at(-1)
      return !state.active && last?.role === 'assistant' && last.parts.length > 0 && last
    }, 90_000)
    expect(JSON.stringify(answer.parts)).toContain('Done. The tool answered')
    // Its owner's only: the key signs every token of the local sessions.
    expect(statSync(join(dir, '.a2-local', 'session-key')).mode & 0o777).toBe(0o600)
    await second.stop()
  }, 180_000)

  it('killed mid-answer, a restarted runner takes the turn over within about 10 s (claims and leases of 10 s), not the 30 s deployed, and the answer completes once', async () => {
    const first = await startRunner(join(root, 'test/support/slow-example-agent.ts'))
    const session = (await (
      await fetch(first.url, { method: 'POST', headers: json, body: '{}' })
    ).json()) as OpenedSession
    const id = `cut-${session.sessionId}`
    await push(first.url, session, [
      {
        id,
        type: 'ai.control.requested',
        payload: {
          action: 'message',
          generate: true,
          message: { id, role: 'user', parts: [{ type: 'text', text: 'Hello' }] },
        },
      },
    ])
    // Some of the answer is in the log (about 7 s of it at 150 ms a word): cut it there.
    await until(async () => {
      const { state } = (await (await stateOf(first.url, session)).json()) as { state: AIState }
      return (
        state.active !== null && JSON.stringify(state.messages[1]?.parts ?? []).includes('You said')
      )
    }, 60_000)
    await first.kill()
    const killedAt = Date.now()

    const second = await startRunner(join(root, 'test/support/slow-example-agent.ts'))
    // The page reconnecting: a reader's recovery wake-up.
    const reader = new AbortController()
    void fetch(`${second.url}?sessionId=${session.sessionId}`, {
      headers: { authorization: `Bearer ${session.token}` },
      signal: reader.signal,
    }).catch(() => undefined)
    const done = await until(async () => {
      const { state } = (await (await stateOf(second.url, session)).json()) as { state: AIState }
      return state.active === null && state.messages.length === 2 && state
    }, 90_000)
    reader.abort()
    const { events } = (await (
      await fetch(`${second.url}?sessionId=${session.sessionId}&events`, {
        headers: { authorization: `Bearer ${session.token}` },
      })
    ).json()) as { events: { type: string; timestamp: number }[] }
    const started = events
      .filter((event) => event.type === 'ai.generation.started')
      .map((event) => event.timestamp)
    expect(started).toHaveLength(2)
    const takeover = (started.at(-1) as number) - killedAt
    expect(takeover).toBeLessThan(20_000)
    expect(JSON.stringify(done.messages[1]?.parts)).toContain(
      '[offline demo model] You said: \\"Hello\\"',
    )
    await second.stop()
  }, 180_000)

  it('prints its table, region and endpoint, and an inspect command that works as printed with no AWS setup', async () => {
    const runner = await startRunner()
    expect(runner.banner).toContain(`table: a2-local-events in us-east-1 on ${endpoint}`)
    const printed = /inspect it: +(.+)\n/.exec(runner.banner)?.[1] as string
    expect(printed).toBe(
      `npx a2-aws inspect "$S" --table a2-local-events --region us-east-1 --endpoint ${endpoint}`,
    )
    const opened = (await (
      await fetch(runner.url, { method: 'POST', headers: json, body: '{}' })
    ).json()) as OpenedSession
    const id = `hi-${opened.sessionId}`
    await push(runner.url, opened, [
      {
        id,
        type: 'ai.control.requested',
        payload: {
          action: 'message',
          generate: true,
          message: { id, role: 'user', parts: [{ type: 'text', text: 'hello' }] },
        },
      },
    ])
    // The source's CLI for the built one (dist/ may predate this checkout).
    const command = printed.replace('npx a2-aws', `node ${join(root, 'functions/cli/cli.ts')}`)
    const inspect = await until(async () => {
      const run = await promisify(execFile)('bash', ['-c', command], {
        cwd: dir,
        env: { ...bareEnv(dir), S: opened.sessionId },
      }).catch((error: { stdout?: string; stderr?: string }) => error)
      return String(run.stdout).includes('status: idle') && run
    }, 30_000)
    expect(inspect.stdout).toContain(`from table a2-local-events`)
    expect(inspect.stdout).toContain('ai.generation.completed')
    // The region was given; the dummy credentials were assumed, and said so.
    expect(inspect.stderr).toContain('no AWS credentials configured: using dummy ones (test)')
    await runner.stop()
  }, 120_000)
})
