import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { inspectCommand } from '../../../../functions/cli/inspect/inspect-command.ts'
import { isLoopbackEndpoint } from '../../../../functions/cli/inspect/table-client.ts'

// `a2-aws inspect --table T --endpoint <loopback>` with no AWS setup at all,
// as against `npm run local`'s moto: the SDK alone fails ("Region is
// missing", then no credentials). The endpoint here is a stand-in for
// DynamoDB that records each request's signature and answers an empty
// session; what it shows is what the command sent.

let endpoint: Server
let url = ''
const seen: IncomingHttpHeaders[] = []

beforeAll(async () => {
  endpoint = createServer((request, response) => {
    seen.push(request.headers)
    request.resume()
    request.once('end', () => {
      response.writeHead(200, { 'content-type': 'application/x-amz-json-1.0' })
      response.end(JSON.stringify({ Items: [], Count: 0, ScannedCount: 0 }))
    })
  })
  await new Promise<void>((done) => endpoint.listen(0, '127.0.0.1', done))
  url = `http://127.0.0.1:${(endpoint.address() as { port: number }).port}`
})
afterAll(async () => {
  await new Promise((done) => endpoint.close(done))
})

/** No region and no credentials anywhere the SDK looks (the unit project unstubs after each test). */
beforeEach(() => {
  seen.length = 0
  const nowhere = join(tmpdir(), 'a2-no-aws-config')
  for (const name of [
    'AWS_REGION',
    'AWS_DEFAULT_REGION',
    'AWS_ACCESS_KEY_ID',
    'AWS_SECRET_ACCESS_KEY',
    'AWS_SESSION_TOKEN',
    'AWS_PROFILE',
    'AWS_WEB_IDENTITY_TOKEN_FILE',
    'AWS_CONTAINER_CREDENTIALS_RELATIVE_URI',
    'AWS_CONTAINER_CREDENTIALS_FULL_URI',
  ]) {
    vi.stubEnv(name, undefined)
  }
  vi.stubEnv('AWS_CONFIG_FILE', join(nowhere, 'config'))
  vi.stubEnv('AWS_SHARED_CREDENTIALS_FILE', join(nowhere, 'credentials'))
  vi.stubEnv('AWS_EC2_METADATA_DISABLED', 'true')
})

async function inspect(...argv: string[]) {
  const stdout: string[] = []
  const stderr: string[] = []
  const code = await inspectCommand(argv, {
    stdout: (line) => stdout.push(line),
    stderr: (line) => stderr.push(line),
  })
  return { code, stdout, stderr }
}

/** The region and access key a request was signed with (SigV4's credential scope). */
const signedWith = (headers: IncomingHttpHeaders | undefined) => {
  const match = /Credential=([^/]+)\/\d+\/([^/]+)\/dynamodb\//.exec(
    String(headers?.authorization ?? ''),
  )
  return { accessKeyId: match?.[1], region: match?.[2] }
}

describe('a2-aws inspect --table on a loopback endpoint: an emulator needs no AWS setup', () => {
  it('assumes us-east-1 and dummy credentials when none are configured, and says so on stderr', async () => {
    const run = await inspect('s1', '--table', 'a2-local-events', '--endpoint', url)
    // It reached the table: an empty session is exit 1, "no events".
    expect(run.code).toBe(1)
    expect(signedWith(seen[0])).toEqual({ accessKeyId: 'test', region: 'us-east-1' })
    expect(run.stderr).toEqual([
      `a2-aws inspect: no AWS region configured: assuming us-east-1 for ${url} (on this machine: an emulator)`,
      `a2-aws inspect: no AWS credentials configured: using dummy ones (test) for ${url} (on this machine: an emulator)`,
      'a2-aws inspect: session s1 has no events in table a2-local-events',
    ])
  })

  it('uses the region and credentials that are configured, and assumes nothing', async () => {
    vi.stubEnv('AWS_REGION', 'eu-west-1')
    vi.stubEnv('AWS_ACCESS_KEY_ID', 'AKIDLOCAL')
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'secret')
    const run = await inspect('s1', '--table', 'a2-local-events', '--endpoint', url)
    expect(run.code).toBe(1)
    expect(signedWith(seen[0])).toEqual({ accessKeyId: 'AKIDLOCAL', region: 'eu-west-1' })
    expect(run.stderr.join('\n')).not.toContain('assuming')
    // --region wins over the environment, as in the SDK.
    await inspect('s1', '--table', 't', '--endpoint', url, '--region', 'ap-south-1')
    expect(signedWith(seen.at(-1)).region).toBe('ap-south-1')
  })

  it('assumes nothing for an endpoint that is not this machine: the SDK says what is missing', async () => {
    const run = await inspect(
      's1',
      '--table',
      't',
      '--endpoint',
      'https://dynamodb.example.invalid',
    )
    expect(run.code).toBe(2)
    expect(run.stderr.join('\n')).toContain('Region is missing')
    expect(run.stderr.join('\n')).not.toContain('assuming')
    expect(seen).toEqual([])
  })

  it('counts localhost, 127.0.0.0/8 and [::1] as loopback, and nothing else', () => {
    for (const loopback of [
      'http://127.0.0.1:5000',
      'http://127.1.2.3:4566',
      'http://localhost:8000',
      'http://dynamo.localhost',
      'http://[::1]:5000',
    ]) {
      expect(isLoopbackEndpoint(loopback), loopback).toBe(true)
    }
    for (const remote of [
      'https://dynamodb.us-east-1.amazonaws.com',
      'http://10.0.0.5:8000',
      'http://127.0.0.1.example.com',
      'http://localhost.example.com',
      'http://0.0.0.0:5000',
    ]) {
      expect(isLoopbackEndpoint(remote), remote).toBe(false)
    }
  })
})
