import { randomBytes } from 'node:crypto'
import { CreateSecretCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager'
import { beforeAll, describe, expect, it } from 'vitest'
import { inputs } from '../../../shared/ai.ts'
import { readHttpAuth } from '../../../shared/aws/auth-environment.ts'
import { readSessionKeySecret } from '../../../shared/aws/session-key-secret.ts'
import type { OpenedSession } from '../../../shared/http/log-endpoint.ts'
import { sessionCapability } from '../../../shared/http/session-capability.ts'
import { scriptedModel, text } from '../../../shared/testing/scripted-model.ts'
import { awsClientConfig } from '../../support/aws.ts'
import { pipelineForSuite } from '../../support/pipeline.ts'

// The deployed default through the pipeline: the HTTP function reads the
// session key from Secrets Manager (Powertools Parameters, on the emulator)
// as the construct configures it, and every GET and POST needs the token.
const secretName = `a2-it-session-key-${Date.now().toString(36)}`
const key = randomBytes(48).toString('base64url')
const suite = pipelineForSuite(
  { name: 'support-agent', model: scriptedModel([text('Hello, token holder.')]).model },
  {
    auth: readHttpAuth({ A2_AUTH: 'capability', A2_SESSION_KEY_SECRET: secretName }, (secretId) =>
      readSessionKeySecret(secretId, awsClientConfig()),
    ),
  },
)
beforeAll(async () => {
  // After the suite's reset of the emulator; the key is read on the first request.
  const secrets = new SecretsManagerClient(awsClientConfig())
  await secrets.send(new CreateSecretCommand({ Name: secretName, SecretString: key }))
  secrets.destroy()
})

const url = () => suite().pipeline.url
const bearer = (token: string) => ({ authorization: `Bearer ${token}` })
const push = (sessionId: string, headers: Record<string, string> = {}) =>
  fetch(`${url()}?sessionId=${sessionId}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({
      events: inputs.message({
        id: crypto.randomUUID(),
        role: 'user',
        parts: [{ type: 'text', text: 'Hi' }],
      }),
    }),
  })

async function open(): Promise<OpenedSession> {
  const response = await fetch(url(), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{}',
  })
  expect(response.status).toBe(201)
  return (await response.json()) as OpenedSession
}

async function expectRefused(response: Response, status: number, code: string): Promise<void> {
  expect(response.status).toBe(status)
  expect(((await response.json()) as { error: { code: string } }).error.code).toBe(code)
}

describe('the pipeline refuses strangers (session capability, key in Secrets Manager)', () => {
  it('opens a session with POST {}; its token pushes (200) and streams (200)', async () => {
    const { sessionId, token } = await open()
    expect((await push(sessionId, bearer(token))).status).toBe(200)
    const stream = await fetch(`${url()}?sessionId=${sessionId}&token=${token}`)
    expect(stream.status).toBe(200)
    expect(stream.headers.get('content-type')).toContain('text/event-stream')
    await stream.body?.cancel()
  })

  it("no token (401), another session's token (403), an expired token (401): the log is unchanged", async () => {
    const mine = await open()
    const theirs = await open()
    const log = suite().agent.runtime.log.session(theirs.sessionId)
    const head = await log.head()
    await expectRefused(await push(theirs.sessionId), 401, 'TOKEN_MISSING')
    await expectRefused(await fetch(`${url()}?sessionId=${theirs.sessionId}`), 401, 'TOKEN_MISSING')
    await expectRefused(await push(theirs.sessionId, bearer(mine.token)), 403, 'FORBIDDEN')
    await expectRefused(
      await fetch(`${url()}?sessionId=${theirs.sessionId}`, { headers: bearer(mine.token) }),
      403,
      'FORBIDDEN',
    )
    const lastWeek = sessionCapability({ key, now: () => Date.now() - 7 * 86_400_000 })
    const expired = (await lastWeek.mint(theirs.sessionId)).token
    await expectRefused(await push(theirs.sessionId, bearer(expired)), 401, 'TOKEN_EXPIRED')
    expect(await log.head()).toBe(head)
    expect(head).toBe(0)
  })
})
