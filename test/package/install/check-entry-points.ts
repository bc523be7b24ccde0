// Run inside the scratch project that installed the packed tarball (by
// page-app.ts, in the app that has React): imports every entry point from the installed
// package, renders useAgent() with the project's React, runs an agent on a
// scripted model over HTTP and one on a `bedrock:` model ID through the
// Bedrock double, and synthesizes a stack with A2Agent. Prints one JSON line
// of what it saw.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { inputs } from 'a2-aws/ai'
import { useAgent } from 'a2-aws/ai/react'
import { agent } from 'a2-aws/ai/server'
import { A2Agent } from 'a2-aws/cdk'
import { serveAgent } from 'a2-aws/node'
import { bedrockDouble, scriptedModel, text } from 'a2-aws/test'
import { App, Stack } from 'aws-cdk-lib'
import { createElement } from 'react'
import { renderToString } from 'react-dom/server'

const ENTRY_POINTS = [
  'a2-aws',
  'a2-aws/ai',
  'a2-aws/ai/server',
  'a2-aws/ai/client',
  'a2-aws/ai/react',
  'a2-aws/harness/pi',
  'a2-aws/harness/fx',
  'a2-aws/aws',
  'a2-aws/cdk',
  'a2-aws/node',
  'a2-aws/test',
]

const exportsOf: Record<string, string[]> = {}
for (const entry of ENTRY_POINTS) {
  exportsOf[entry] = Object.keys(await import(entry)).sort()
}

// useAgent() rendered by the project's react-dom: with a second React
// under node_modules/a2-aws, the hook would throw "Invalid hook call".
function Page() {
  const { messages, status } = useAgent({ api: 'http://127.0.0.1:9/api/agent', id: 'page' })
  return createElement('p', null, `${status}: ${messages.length} messages`)
}
const rendered = renderToString(createElement(Page))

// An agent on a scripted model, served and asked over HTTP.
const assistant = agent({
  name: 'packaged',
  model: scriptedModel([text('Hello from the tarball')]).model,
})
const server = await serveAgent(assistant)
const posted = await fetch(`${server.url}/api/agent?sessionId=s1`, {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({
    events: inputs.message({ id: 'm1', role: 'user', parts: [{ type: 'text', text: 'Hi' }] }),
  }),
})
let answer = ''
for (let tries = 0; tries < 200 && !answer; tries++) {
  const { state } = await assistant.session('s1').state()
  const reply = state.messages.find((message) => message.role === 'assistant')
  answer = (reply?.parts ?? []).map((part) => (part.type === 'text' ? part.text : '')).join('')
  if (!answer) await new Promise((resolve) => setTimeout(resolve, 50))
}
assistant.runtime.close()
await server.close()

// An agent on a `bedrock:` model ID, through the Bedrock double: the real
// provider's event-stream parsing of the double's framing, as installed.
const bedrock = await bedrockDouble({ script: [text('Hello from Bedrock')] })
for (const [name, value] of Object.entries(bedrock.env())) {
  if (value === undefined) delete process.env[name]
  else process.env[name] = value
}
const onBedrock = agent({ name: 'packaged-bedrock', model: 'bedrock:anthropic.claude-x-v1:0' })
await onBedrock
  .session('s1')
  .append(...inputs.message({ id: 'm1', role: 'user', parts: [{ type: 'text', text: 'Hi' }] }))
await onBedrock.runtime.idle()
const { state: bedrockState } = await onBedrock.session('s1').state()
const bedrockAnswer = (bedrockState.messages.at(-1)?.parts ?? [])
  .map((part) => (part.type === 'text' ? part.text : ''))
  .join('')
onBedrock.runtime.close()
await bedrock.close()

// A stack with A2Agent, bundling an agent module that imports the package.
const project = mkdtempSync(join(process.cwd(), 'synth-'))
const entry = join(project, 'agent.ts')
writeFileSync(
  entry,
  [
    "import { agent } from 'a2-aws/ai/server'",
    "import { awsAgentParts } from 'a2-aws/aws'",
    'const aws = awsAgentParts()',
    "export default agent({ name: 'packaged', model: 'openai/gpt-5.6-terra', store: aws.store, dispatcher: aws.dispatcher, scheduler: aws.scheduler })",
  ].join('\n'),
)
const outdir = mkdtempSync(join(tmpdir(), 'a2-cdk-out-'))
const app = new App({ outdir })
new A2Agent(new Stack(app, 'Packaged'), 'Agent', { entry })
const assembly = app.synth()
const template = JSON.parse(
  readFileSync(join(outdir, assembly.getStackByName('Packaged').templateFile), 'utf8'),
) as { Resources: Record<string, { Type: string }> }
const types = Object.values(template.Resources).map((resource) => resource.Type)

console.log(
  JSON.stringify({
    exportsOf,
    rendered,
    posted: posted.status,
    answer,
    bedrockAnswer,
    tables: types.filter((type) => type === 'AWS::DynamoDB::Table').length,
    functions: types.filter((type) => type === 'AWS::Lambda::Function').length,
  }),
)
