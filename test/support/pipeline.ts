import type { SchedulerClient } from '@aws-sdk/client-scheduler'
import type { SQSClient } from '@aws-sdk/client-sqs'
import { afterAll, beforeAll } from 'vitest'
import {
  type LocalPipeline,
  startLocalPipeline,
} from '../../functions/local/runner/local-pipeline.ts'
import { createLocalResources, type LocalQueues } from '../../functions/local/runner/resources.ts'
import { type Agent, type AgentOptions, agent } from '../../shared/agent/index.ts'
import { awsAgentParts } from '../../shared/aws/agent-environment.ts'
import type { AwsEnvironment } from '../../shared/aws/environment-variables.ts'
import type { HttpAuth } from '../../shared/aws/lambda/http-access.ts'
import type { PipelineAgent } from '../../shared/aws/lambda/pipeline-agent.ts'
import type { VisibilityLease } from '../../shared/aws/pipeline-functions.ts'
import type { EventStore } from '../../shared/log/event-store.ts'
import { awsClientConfig, resetMotoForSuite } from './aws.ts'
import { pipelineClientsOn } from './pipeline-clients.ts'
import { silent } from './pipeline-fixture.ts'

export { silent }

/**
 * Builds one agent on the suite's resources; `wrapStore` sees its store
 * first, `customize` its whole options last (its ports, model and tools).
 */
export type BuildAgent = (
  wrapStore?: (store: EventStore) => EventStore,
  customize?: (options: AgentOptions) => AgentOptions,
) => Agent

export interface TestPipeline {
  pipeline: LocalPipeline
  queues: LocalQueues
  /** What the functions read from their environment (table, queues, timers). */
  environment: AwsEnvironment
  sqs: SQSClient
  scheduler: SchedulerClient
  agent: Agent
}

/** The four clients a pipeline uses, on this file's endpoint. */
export function pipelineClients() {
  return pipelineClientsOn(awsClientConfig())
}

/**
 * Gives a suite the whole pipeline on the test endpoint: fresh resources,
 * an agent on the AWS store, dispatcher and scheduler, and the local runner
 * playing the event source mappings. Read it inside tests and hooks.
 *
 * `serve` picks what the runner's functions run: by default the suite's
 * agent; a suite may build more (Lambda containers) and route between them.
 */
export function pipelineForSuite(
  options: Omit<AgentOptions, 'store' | 'dispatcher' | 'scheduler'>,
  {
    maxReceiveCount = 2,
    serve,
    lease,
    auth = { type: 'none' },
  }: {
    maxReceiveCount?: number
    serve?: (build: BuildAgent) => PipelineAgent
    /** How the queue handlers lease their messages (default: as deployed). */
    lease?: VisibilityLease
    /** How the API checks callers (default none: these suites test the pipeline, not access). */
    auth?: HttpAuth
  } = {},
): () => TestPipeline {
  let suite: TestPipeline | undefined
  beforeAll(async () => {
    await resetMotoForSuite()
    const clients = pipelineClients()
    const prefix = `a2-it-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}`
    const resources = await createLocalResources(clients, { prefix, maxReceiveCount })
    const build: BuildAgent = (wrapStore = (store) => store, customize = (options) => options) => {
      // Each agent has its own parts, as each Lambda container does.
      const aws = awsAgentParts({ environment: resources.environment, clients })
      return agent(
        customize({
          logger: silent,
          ...options,
          store: wrapStore(aws.store),
          dispatcher: aws.dispatcher,
          scheduler: aws.scheduler,
        } as AgentOptions),
      )
    }
    const assistant = build()
    const pipeline = await startLocalPipeline({
      agentModule: { default: serve ? serve(build) : assistant },
      environment: resources.environment,
      queues: resources.queues,
      clients,
      logger: silent,
      auth,
      ...(lease ? { lease } : {}),
    })
    suite = {
      pipeline,
      queues: resources.queues,
      environment: resources.environment,
      sqs: clients.sqs,
      scheduler: clients.scheduler,
      agent: assistant,
    }
  })
  afterAll(async () => {
    await suite?.pipeline.stop()
  })
  return () => {
    if (!suite)
      throw new Error('pipelineForSuite(): the pipeline exists only inside tests and hooks')
    return suite
  }
}
