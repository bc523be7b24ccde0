// `npm run local`: the AWS pipeline on an AWS-compatible endpoint, with the
// same handlers the Lambda functions run. By default it starts a moto server;
// set A2_AWS_ENDPOINT for LocalStack (or any endpoint) and A2_AGENT_MODULE
// for your own agent module (default: the example agent). Sessions need
// their token, as deployed (a key made per process; `POST {}` opens one).

import { resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { DynamoDBClient } from '@aws-sdk/client-dynamodb'
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams'
import { SchedulerClient } from '@aws-sdk/client-scheduler'
import { SQSClient } from '@aws-sdk/client-sqs'
import { environmentVariables } from '../shared/aws/agent-environment.ts'
import { startLocalPipeline } from './local-runner/local-pipeline.ts'
import { startMotoServer } from './local-runner/moto-server.ts'
import { createLocalResources } from './local-runner/resources.ts'

const moto = process.env.A2_AWS_ENDPOINT ? undefined : await startMotoServer()
const endpoint = process.env.A2_AWS_ENDPOINT ?? (moto?.endpoint as string)
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
const modulePath = resolve(process.env.A2_AGENT_MODULE ?? 'functions/example-agent.ts')
const agentModule = (await import(pathToFileURL(modulePath).href)) as Record<string, unknown>

const pipeline = await startLocalPipeline({
  agentModule,
  environment,
  queues,
  clients,
  port: Number(process.env.PORT ?? 3000),
})

console.log(`a2-aws local pipeline on ${endpoint}${moto ? ' (moto)' : ''}: ${pipeline.url}
agent module: ${modulePath}
  open a session:    curl -s -X POST '${pipeline.url}' -H 'content-type: application/json' -d '{}' > session.json
                     export S=$(jq -r .sessionId session.json) T=$(jq -r .token session.json)
  stream it:         curl -N "${pipeline.url}?sessionId=$S" -H "authorization: Bearer $T"
  send a message:    curl -X POST "${pipeline.url}?sessionId=$S" -H "authorization: Bearer $T" -H 'content-type: application/json' \\
                       -d '{"events":[{"id":"m1","type":"ai.control.requested","payload":{"action":"message","generate":true,"message":{"id":"m1","role":"user","parts":[{"type":"text","text":"close ticket T-42"}]}}}]}'
  ingress queue:     aws --endpoint-url ${endpoint} sqs send-message --queue-url ${queues.ingress.url} \\
                       --message-group-id demo --message-body '{"sessionId":"demo","events":[...]}'`)

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void pipeline.stop().then(async () => {
      await moto?.stop()
      process.exit(0)
    })
  })
}
