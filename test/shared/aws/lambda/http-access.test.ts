import { PassThrough } from 'node:stream'
import type { APIGatewayProxyEvent } from 'aws-lambda'
import { describe, expect, it } from 'vitest'
import { agent } from '../../../../shared/agent/index.ts'
import { inputs } from '../../../../shared/ai.ts'
import { readHttpAuth } from '../../../../shared/aws/auth-environment.ts'
import type { HttpAuth } from '../../../../shared/aws/lambda/http-access.ts'
import { pipelineHandlers } from '../../../../shared/aws/lambda/pipeline-handlers.ts'
import { principalOf } from '../../../../shared/aws/lambda/request-principal.ts'
import type { Operation } from '../../../../shared/http/log-endpoint.ts'
import { scriptedModel } from '../../../../shared/testing/scripted-model.ts'
import { environment, silent } from '../../../support/pipeline-fixture.ts'

/** The HTTP function of an agent module with (or without) an `authorize` export. */
function httpFunction(auth: HttpAuth, authorize?: (operation: Operation) => boolean) {
  const assistant = agent({
    name: 'support-agent',
    model: scriptedModel([]).model,
    logger: silent,
    dispatcher: { wake: async () => {} },
  })
  const seen: Operation[] = []
  const module = {
    default: assistant,
    ...(authorize
      ? {
          authorize: (operation: Operation) => {
            seen.push(operation)
            return authorize(operation)
          },
        }
      : {}),
  }
  const call = async (event: Partial<APIGatewayProxyEvent>) => {
    const out = new PassThrough()
    const chunks: Buffer[] = []
    out.on('data', (chunk: Buffer) => chunks.push(chunk))
    let status = 0
    const handler = pipelineHandlers(module, {
      environment,
      logger: silent,
      auth,
      httpResponseStream: {
        from: (stream, metadata) => {
          status = metadata.statusCode
          return stream
        },
      },
    }).http
    await handler(
      {
        httpMethod: 'POST',
        path: '/agent',
        headers: { Host: 'h', 'content-type': 'application/json' },
        multiValueHeaders: {},
        queryStringParameters: { sessionId: 'u-1' },
        multiValueQueryStringParameters: null,
        body: JSON.stringify({
          events: inputs.message({ id: 'm1', role: 'user', parts: [{ type: 'text', text: 'hi' }] }),
        }),
        isBase64Encoded: false,
        ...event,
      } as APIGatewayProxyEvent,
      out,
      { getRemainingTimeInMillis: () => 60_000 } as never,
    )
    const text = Buffer.concat(chunks).toString()
    return { status, body: JSON.parse(text) as { error?: { code: string; message: string } } }
  }
  return { assistant, seen, call }
}

const cognitoContext = (sub: string) =>
  ({
    authorizer: { claims: { sub, email: `${sub}@example.com`, 'cognito:username': sub } },
    identity: { sourceIp: '203.0.113.9' },
  }) as unknown as APIGatewayProxyEvent['requestContext']

const iamContext = {
  identity: {
    userArn: 'arn:aws:sts::123456789012:assumed-role/support-desk/ops',
    accountId: '123456789012',
    caller: 'AROAEXAMPLE:ops',
  },
} as unknown as APIGatewayProxyEvent['requestContext']

describe('the verified caller reaches authorize', () => {
  it("cognito: the user pool authorizer's claims are the principal, and authorize decides per session", async () => {
    const ownSessions = (operation: Operation) =>
      operation.principal?.type === 'cognito' &&
      operation.sessionId.startsWith(`${operation.principal.sub}-`)
    const { call, seen, assistant } = httpFunction({ type: 'cognito' }, ownSessions)
    expect((await call({ requestContext: cognitoContext('u') })).status).toBe(200)
    expect(seen[0]).toMatchObject({
      type: 'push',
      sessionId: 'u-1',
      principal: { type: 'cognito', sub: 'u', claims: { email: 'u@example.com' } },
    })
    const head = await assistant.runtime.log.session('u-1').head()
    expect(head).toBeGreaterThan(0)
    const stranger = await call({ requestContext: cognitoContext('v') })
    expect(stranger.status).toBe(403)
    expect(stranger.body.error?.code).toBe('FORBIDDEN')
    expect(await assistant.runtime.log.session('u-1').head()).toBe(head)
  })

  it('iam: the signed caller is the principal', async () => {
    const { call, seen } = httpFunction({ type: 'iam' }, () => true)
    expect((await call({ requestContext: iamContext })).status).toBe(200)
    expect(seen[0]?.principal).toEqual({
      type: 'iam',
      arn: 'arn:aws:sts::123456789012:assumed-role/support-desk/ops',
      accountId: '123456789012',
      caller: 'AROAEXAMPLE:ops',
    })
  })

  it('cognito or iam without an authorize export refuses everything (403), and writes nothing', async () => {
    for (const auth of [{ type: 'cognito' }, { type: 'iam' }] as const) {
      const { call, assistant } = httpFunction(auth)
      const refused = await call({
        requestContext: auth.type === 'iam' ? iamContext : cognitoContext('u'),
      })
      expect(refused.status).toBe(403)
      expect(refused.body.error?.message).toContain('exports no authorize')
      expect(await assistant.runtime.log.session('u-1').head()).toBe(0)
    }
  })

  it('cognito without a verified caller in the request context is a 401', async () => {
    const { call } = httpFunction({ type: 'cognito' }, () => true)
    const refused = await call({})
    expect(refused.status).toBe(401)
  })

  it('a malformed request without a verified caller is a 401, not a 400 (cognito, iam and capability)', async () => {
    for (const auth of [
      { type: 'cognito' },
      { type: 'iam' },
      { type: 'capability', key: 'k'.repeat(32) },
    ] as const) {
      const { call, seen } = httpFunction(auth, () => true)
      for (const body of ['{', '{"events": []}', '{"events": 1}']) {
        const refused = await call({ body })
        expect(refused.status, `${auth.type} ${body}`).toBe(401)
        expect(refused.body.error?.code).toBe('TOKEN_MISSING')
      }
      expect(seen).toEqual([])
    }
    // A verified caller is told what is wrong with the body.
    const { call } = httpFunction({ type: 'iam' }, () => true)
    expect((await call({ requestContext: iamContext, body: '{"events": []}' })).status).toBe(400)
  })

  it('capability on Lambda: POST {} opens a session; a push without its token is a 401 and writes nothing', async () => {
    const { call, assistant } = httpFunction(
      { type: 'capability', key: 'k'.repeat(32) },
      () => true,
    )
    const opened = await call({ queryStringParameters: null, body: '{}' })
    expect(opened.status).toBe(201)
    const { sessionId, token } = opened.body as unknown as { sessionId: string; token: string }
    const stranger = await call({ queryStringParameters: { sessionId } })
    expect(stranger.status).toBe(401)
    expect(stranger.body.error?.code).toBe('TOKEN_MISSING')
    expect(await assistant.runtime.log.session(sessionId).head()).toBe(0)
    const holder = await call({
      queryStringParameters: { sessionId },
      headers: { Host: 'h', 'content-type': 'application/json', Authorization: `Bearer ${token}` },
    })
    expect(holder.status).toBe(200)
  })

  it("capability composes with the module's authorize: both must allow", async () => {
    const { call } = httpFunction({ type: 'capability', key: 'k'.repeat(32) }, () => false)
    const opened = await call({ queryStringParameters: null, body: '{}' })
    const { sessionId, token } = opened.body as unknown as { sessionId: string; token: string }
    const refused = await call({
      queryStringParameters: { sessionId },
      headers: { Host: 'h', 'content-type': 'application/json', Authorization: `Bearer ${token}` },
    })
    expect(refused.status).toBe(403)
  })

  it('none: no check but the module authorize, if any', async () => {
    expect((await httpFunction({ type: 'none' }).call({})).status).toBe(200)
  })
})

describe('principalOf', () => {
  it('reads a Lambda authorizer principal, and nothing from an unauthenticated request', () => {
    expect(
      principalOf({
        requestContext: { authorizer: { principalId: 'p1', tenant: 't1', integrationLatency: 3 } },
      } as unknown as APIGatewayProxyEvent),
    ).toEqual({ type: 'authorizer', principalId: 'p1', context: { tenant: 't1' } })
    expect(
      principalOf({
        requestContext: { identity: { sourceIp: '1.2.3.4', userArn: null } },
      } as never),
    ).toBeUndefined()
  })
})

describe('readHttpAuth', () => {
  const read = async (id: string) => `key-of:${id}`
  it('is capability when unset, and needs the key secret then', async () => {
    expect(() => readHttpAuth({}, read)).toThrow(/A2_SESSION_KEY_SECRET is not set/)
    const auth = readHttpAuth(
      { A2_SESSION_KEY_SECRET: 'arn:secret', A2_SESSION_TTL_SECONDS: '60' },
      read,
    )
    expect(auth).toMatchObject({ type: 'capability', ttlSeconds: 60 })
    expect(auth.type === 'capability' && typeof auth.key === 'function' && (await auth.key())).toBe(
      'key-of:arn:secret',
    )
  })

  it('reads cognito, iam and none, and refuses anything else', () => {
    for (const mode of ['cognito', 'iam', 'none']) {
      expect(readHttpAuth({ A2_AUTH: mode }, read)).toEqual({ type: mode })
    }
    expect(() => readHttpAuth({ A2_AUTH: 'open' }, read)).toThrow(/expected one of/)
  })
})
