import { mkdtempSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { hasA2Code } from 'a2-aws'
import { inputs } from 'a2-aws/ai'
import { agent } from 'a2-aws/ai/server'
import {
  HostUnavailableError,
  InvalidPortError,
  type LocalServer,
  PortInUseError,
  serveAgent,
  serveFetch,
} from 'a2-aws/node'
import { scriptedModel, text } from 'a2-aws/test'
import { afterEach, describe, expect, it } from 'vitest'

let server: LocalServer | undefined
let blocker: Server | undefined
afterEach(async () => {
  await server?.close()
  server = undefined
  await new Promise<void>((done) => (blocker ? blocker.close(() => done()) : done()))
  blocker = undefined
})

/** Holds a loopback port, as another program would. */
async function busyPort(): Promise<number> {
  blocker = createServer()
  await new Promise<void>((done) => blocker?.listen(0, '127.0.0.1', done))
  return (blocker.address() as { port: number }).port
}

describe('serveAgent() (a2-aws/node): a standalone Node server for an agent', () => {
  it('serves the agent at /api/agent, a built page at other GET paths, and JSON 404s under /api/', async () => {
    const webRoot = mkdtempSync(join(tmpdir(), 'a2-web-'))
    writeFileSync(join(webRoot, 'index.html'), '<p>chat</p>')
    const assistant = agent({ name: 'helper', model: scriptedModel([text('Hello!')]).model })
    server = await serveAgent(assistant, { webRoot })

    const message = inputs.message({
      id: 'm1',
      role: 'user',
      parts: [{ type: 'text', text: 'Hi' }],
    })
    const posted = await fetch(`${server.url}/api/agent?sessionId=s1`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ events: message }),
    })
    expect(posted.status).toBe(200)
    await expect
      .poll(async () => (await assistant.session('s1').state()).state.messages.length)
      .toBe(2)

    const page = await fetch(`${server.url}/some/page?session=s1`)
    expect(page.headers.get('content-type')).toContain('text/html')
    expect(await page.text()).toBe('<p>chat</p>')

    const missing = await fetch(`${server.url}/api/nothing`)
    expect(missing.status).toBe(404)
    expect(await missing.json()).toMatchObject({ error: { code: 'NOT_FOUND' } })
    assistant.runtime.close()
  })

  it('answers a busy port with PortInUseError (PORT_IN_USE) saying how to pick another, not EADDRINUSE', async () => {
    const port = await busyPort()
    const assistant = agent({ name: 'helper', model: scriptedModel([]).model })
    const refused = await serveAgent(assistant, { port }).then(
      () => undefined,
      (error: unknown) => error,
    )
    expect(refused).toBeInstanceOf(PortInUseError)
    expect(hasA2Code(refused, 'PORT_IN_USE')).toBe(true)
    expect((refused as Error).message).toBe(
      `Port ${port} on 127.0.0.1 is in use: stop what is listening there, or pick another port with PORT=<port> (PORT=0 picks a free one).`,
    )
    assistant.runtime.close()
  })

  it('answers a port that is not one with InvalidPortError (INVALID_PORT), not ERR_SOCKET_BAD_PORT', async () => {
    for (const port of [99_999, -1, 3.5, Number.NaN]) {
      const refused = await serveFetch(() => new Response('hi'), { port }).then(
        () => undefined,
        (error: unknown) => error,
      )
      expect(refused).toBeInstanceOf(InvalidPortError)
      expect(hasA2Code(refused, 'INVALID_PORT')).toBe(true)
      expect((refused as Error).message).toBe(
        `Port ${port} is not a port: pick an integer from 0 to 65535 with PORT=<port> (PORT=0 picks a free one).`,
      )
    }
  })

  it('takes the port as a string (process.env.PORT): its digits listen, anything else, empty included, is an InvalidPortError naming it, not NaN or a random port', async () => {
    const server = await serveFetch(() => new Response('hi'), { port: '0' })
    expect(await (await fetch(server.url)).text()).toBe('hi')
    await server.close()
    for (const port of ['abc', '', ' ', '1e3', '0x10', '99999']) {
      const refused = await serveFetch(() => new Response('hi'), { port }).then(
        () => undefined,
        (error: unknown) => error,
      )
      expect(hasA2Code(refused, 'INVALID_PORT'), port).toBe(true)
      expect((refused as Error).message).toBe(
        `Port ${JSON.stringify(port)} is not a port: pick an integer from 0 to 65535 with PORT=<port> (PORT=0 picks a free one).`,
      )
    }
  })

  it('answers a host it cannot listen on with HostUnavailableError (HOST_UNAVAILABLE), not ENOTFOUND', async () => {
    const refusal = (hostname: string) =>
      serveFetch(() => new Response('hi'), { hostname }).then(
        () => undefined,
        (error: unknown) => error,
      )
    const notHere = await refusal('192.0.2.1')
    expect(notHere).toBeInstanceOf(HostUnavailableError)
    expect(hasA2Code(notHere, 'HOST_UNAVAILABLE')).toBe(true)
    expect((notHere as Error).message).toContain('192.0.2.1 (not an address of this machine)')
    const unknown = await refusal('no-such-host.invalid')
    expect(hasA2Code(unknown, 'HOST_UNAVAILABLE')).toBe(true)
    expect((unknown as Error).message).toContain('no-such-host.invalid (the name does not resolve)')
  })
})
