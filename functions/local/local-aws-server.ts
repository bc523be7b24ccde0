// `npm run local`: the AWS pipeline on an AWS-compatible endpoint, with the
// same handlers the Lambda functions run, served like `npm start`: the agent
// at /api/agent, its folded state at /api/state, the example chat page at /.
// By default it starts a moto server; set A2_AWS_ENDPOINT for LocalStack (or
// any endpoint), A2_AGENT_MODULE for your own agent module (default: the
// example agent), PORT and HOST for where it listens.
// Sessions need their token, as deployed (`POST {}` opens one), signed with
// a key kept in .a2-local/session-key, so that a restart against an endpoint
// that still holds the sessions keeps their tokens (session-key.ts says why),
// and the stream's position in .a2-local/stream-position.json, so that such a
// restart reads the table's stream on from where it left off.

import { existsSync } from 'node:fs'
import { resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { DynamoDBClient } from '@aws-sdk/client-dynamodb'
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams'
import { SchedulerClient } from '@aws-sdk/client-scheduler'
import { SQSClient } from '@aws-sdk/client-sqs'
import { environmentVariables } from '../../shared/aws/agent-environment.ts'
import { agentFromModule } from '../../shared/aws/lambda/pipeline-agent.ts'
import { sessionCapability } from '../../shared/http/session-capability.ts'
import { staticFiles } from '../../shared/node/static-files.ts'
import { ClearError, exitClearly } from '../exit-clearly.ts'
import { listenAddress } from './listen-address.ts'
import { WEB_ROOT } from './local-server.ts'
import { type LocalPipeline, startLocalPipeline } from './runner/local-pipeline.ts'
import { type MotoServer, startMotoServer } from './runner/moto-server.ts'
import { createLocalResources } from './runner/resources.ts'
import { LOCAL_STATE_DIR, localSessionKey } from './runner/session-key.ts'
import { fileStreamPositions } from './runner/stream-position.ts'
import { LOCAL_CLAIM_TTL_MS, LOCAL_LEASE } from './runner/takeover.ts'
import { stateRoute } from './state-route.ts'
import { formatCommands, tourCommands } from './tour-commands.ts'

let moto: MotoServer | undefined
let pipeline: LocalPipeline | undefined

async function main(): Promise<void> {
  // Before the moto server: a bad PORT or HOST should not cost a start.
  const listen = await listenAddress(process.env)
  moto = process.env.A2_AWS_ENDPOINT ? undefined : await startMotoServer()
  const endpoint = process.env.A2_AWS_ENDPOINT || (moto?.endpoint as string)
  // Emulators take any credentials; the SDK still wants some.
  process.env.AWS_REGION ??= 'us-east-1'
  process.env.AWS_ACCESS_KEY_ID ??= 'test'
  process.env.AWS_SECRET_ACCESS_KEY ??= 'test'

  const config = { endpoint }
  const clients = {
    dynamodb: new DynamoDBClient(config),
    streams: new DynamoDBStreamsClient(config),
    sqs: new SQSClient(config),
    scheduler: new SchedulerClient(config),
  }
  const { environment, queues } = await createLocalResources(clients)
  environment.endpoint = endpoint
  // The agent module reads its configuration from the environment, as on Lambda.
  Object.assign(process.env, environmentVariables(environment))
  // The example agent's claims lapse sooner here (takeover.ts says why).
  process.env.A2_CLAIM_TTL_MS ||= String(LOCAL_CLAIM_TTL_MS)
  const modulePath = resolve(process.env.A2_AGENT_MODULE ?? 'functions/example-agent.ts')
  if (!existsSync(modulePath)) {
    throw new ClearError(`A2_AGENT_MODULE: no file at ${modulePath}`)
  }
  const agentModule = (await import(pathToFileURL(modulePath).href)) as Record<string, unknown>
  // The same reads as `npm start`: the folded state for curl, the chat page.
  const { key: sessionKey, path: keyPath } = localSessionKey(resolve(LOCAL_STATE_DIR))
  const state = stateRoute(
    agentFromModule(agentModule, environment.agentExport) as unknown as Parameters<
      typeof stateRoute
    >[0],
    sessionCapability({ key: sessionKey }).verify,
  )
  const page = staticFiles(WEB_ROOT)

  pipeline = await startLocalPipeline({
    agentModule,
    environment,
    queues,
    clients,
    auth: { type: 'capability', key: sessionKey },
    // Restarted on an endpoint that keeps its data, the stream is read on
    // from where this run's router left off, not again from its start.
    streamPositions: fileStreamPositions(resolve(LOCAL_STATE_DIR, 'stream-position.json')),
    lease: LOCAL_LEASE,
    ...listen,
    routes: (request) => {
      const { pathname } = new URL(request.url)
      if (pathname === '/api/state') return state(request)
      if (pathname.startsWith('/api/') || pathname === '/agent') return undefined
      return page(pathname)
    },
  })
  const url = pipeline.url
  const origin = new URL(url).origin
  const region = process.env.AWS_REGION
  const { tableName } = environment

  console.log(`a2-aws local pipeline on ${endpoint}${moto ? ' (moto)' : ''}: ${url}
agent module: ${modulePath}
table: ${tableName} in ${region} on ${endpoint}
session key: ${keyPath} (kept, so tokens outlive a restart against the same endpoint)
${formatCommands([
  { label: 'chat in a browser', command: `${origin}/` },
  ...tourCommands(url, `${origin}/api/state`),
  {
    label: 'inspect it',
    command: `npx a2-aws inspect "$S" --table ${tableName} --region ${region} --endpoint ${endpoint}`,
  },
  {
    label: 'ingress queue',
    command: `aws --endpoint-url ${endpoint} sqs send-message --queue-url ${queues.ingress.url} \\
  --message-group-id demo --message-body '{"sessionId":"demo","events":[...]}'`,
  },
])}`)

  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      void stopAll().then(() => process.exit(0))
    })
  }
}

async function stopAll(): Promise<void> {
  await pipeline?.stop()
  moto?.stop()
}

// Any failure to start stops the moto server it started (it would outlive us).
await exitClearly('npm run local', main, stopAll)
