import { DynamoDBClient } from '@aws-sdk/client-dynamodb'
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams'
import { SchedulerClient } from '@aws-sdk/client-scheduler'
import { SQSClient } from '@aws-sdk/client-sqs'
import { startLocalPipeline } from '../../functions/local/runner/local-pipeline.ts'
import { startMotoServer } from '../../functions/local/runner/moto-server.ts'
import { createLocalResources } from '../../functions/local/runner/resources.ts'
import { type Agent, type AgentOptions, agent } from '../../shared/agent/index.ts'
import { awsAgentParts } from '../../shared/aws/agent-environment.ts'
import type { PipelineAgent } from '../../shared/aws/lambda/pipeline-agent.ts'
import type { EventStore } from '../../shared/log/event-store.ts'
import type { WakeUp } from '../../shared/runtime/wake-up.ts'
import { sleep } from '../../shared/timing/sleep.ts'
import { random } from './plan.ts'
import { soakAgentOptions } from './soak-agent.ts'
import type { SoakTarget, TargetContext } from './targets.ts'

// The soak on the AWS pipeline: DynamoDB and SQS FIFO on moto, the local
// runner playing Lambda's event source mappings, each session's work in a
// "container" of its own (its own agent, caches and clients). With kills, a
// container is killed at random while it works, as Lambda kills a process:
// its invocations end unacknowledged, its leases are not renewed, and what
// it would still do hangs forever. SQS redelivers after the lease, and a new
// container takes the work over from the log.

/** Leases on a scaled clock (deployed: 30 s, renewed every 10 s): a killed turn comes back in seconds. */
const LEASE = {
  seconds: 3,
  renewEverySeconds: 1,
  retry: { baseDelayMs: 1_000, maxDelayMs: 2_000 },
}
/** A dead container's claims block its work this long. */
const CLAIM_TTL_MS = 5_000
const silent = { info() {}, warn() {}, error() {} }

export interface PipelineSoakOptions {
  /** Kill a working container about this often (ms); none without. */
  killEveryMs?: number
  /**
   * Kills per session at most (default 1): a session killed faster than it
   * can recover (a lease and a claim TTL each time) never finishes, which
   * tests the kill rate, not the runtime.
   */
  killsPerSession?: number
  /** An AWS-compatible endpoint; default: a moto server of its own. */
  endpoint?: string
  /** The seed the kills are drawn from. */
  seed?: number
}

export function onLocalPipeline(options: PipelineSoakOptions) {
  return async ({ tools, catalogUrl }: TargetContext): Promise<SoakTarget> => {
    const moto = options.endpoint ? undefined : await startMotoServer()
    const endpoint = options.endpoint ?? (moto?.endpoint as string)
    const config = {
      endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    }
    const clients = {
      dynamodb: new DynamoDBClient(config),
      streams: new DynamoDBStreamsClient(config),
      sqs: new SQSClient(config),
      scheduler: new SchedulerClient(config),
    }
    const resources = await createLocalResources(clients, {
      prefix: `a2-soak-${Date.now().toString(36)}`,
    })
    const build = (wrap: (store: EventStore) => EventStore = (store) => store): Agent => {
      const aws = awsAgentParts({ environment: resources.environment, clients })
      return agent({
        ...soakAgentOptions(tools),
        modelCatalog: { url: catalogUrl },
        claimTtlMs: CLAIM_TTL_MS,
        logger: process.env.A2_SOAK_VERBOSE ? console : silent,
        store: wrap(aws.store),
        dispatcher: aws.dispatcher,
        scheduler: aws.scheduler,
      } as AgentOptions) as unknown as Agent
    }
    // The client's side: a page or a service appending and reading.
    const client = build()
    const containers = new Map<string, Agent>()
    const dead = new Set<Agent>()
    const containerOf = (sessionId: string): Agent => {
      let container = containers.get(sessionId)
      if (!container) {
        const self: { agent?: Agent } = {}
        container = build((store) =>
          stalledWhenDead(store, () => self.agent !== undefined && dead.has(self.agent)),
        )
        self.agent = container
        containers.set(sessionId, container)
      }
      return container
    }
    const router: PipelineAgent = {
      ...(client as unknown as PipelineAgent),
      runtime: {
        ...client.runtime,
        run: (wakeUp: WakeUp, runOptions) =>
          containerOf(wakeUp.sessionId).runtime.run(wakeUp, runOptions),
      },
    } as PipelineAgent
    const pipeline = await startLocalPipeline({
      agentModule: { default: router },
      environment: resources.environment,
      queues: resources.queues,
      clients,
      logger: process.env.A2_SOAK_VERBOSE ? console : silent,
      auth: { type: 'none' },
      lease: LEASE,
      // moto serves one request at a time: pollers that wait longer leave it to the work.
      pollMs: Number(process.env.A2_SOAK_POLL_MS ?? 200),
    })

    let kills = 0
    const killed = new Map<string, number>()
    let killing = options.killEveryMs !== undefined
    const next = random(options.seed ?? 1)
    const killer = (async () => {
      while (killing) {
        await sleep((options.killEveryMs ?? 0) * (0.5 + next()))
        const working = [...containers.keys()].filter(
          (sessionId) => (killed.get(sessionId) ?? 0) < (options.killsPerSession ?? 1),
        )
        const sessionId = working[Math.floor(next() * working.length)]
        if (!killing || sessionId === undefined) continue
        const invocations = pipeline.kill((record) =>
          record.body.includes(JSON.stringify(sessionId)),
        )
        if (invocations === 0) continue
        killed.set(sessionId, (killed.get(sessionId) ?? 0) + 1)
        // What the process would still do dies with it; the next
        // invocation for the session starts a new container.
        const container = containers.get(sessionId)
        if (container) {
          dead.add(container)
          // Its model calls and tools end with the process.
          container.runtime.close()
        }
        containers.delete(sessionId)
        kills++
      }
    })()

    return {
      session: (sessionId) => client.session(sessionId) as never,
      read: (sessionId) => client.runtime.log.session(sessionId).read(),
      settle: () => sleep(1_000),
      figures: () => ({
        kills,
        redeliveredInvocations: Object.values(pipeline.stats.kills).reduce((a, b) => a + b, 0),
      }),
      async close() {
        killing = false
        await killer
        await pipeline.stop()
        for (const container of [...containers.values(), ...dead]) container.runtime.close()
        client.runtime.close()
        moto?.stop()
      },
    }
  }
}

/** A container's store: every call hangs forever once the container is dead, as a killed process makes none. */
function stalledWhenDead(store: EventStore, isDead: () => boolean): EventStore {
  const never = new Promise<never>(() => {})
  return new Proxy(store, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver)
      if (typeof value !== 'function' || property === 'tail') return value
      return (...args: unknown[]) => (isDead() ? never : value.apply(target, args))
    },
  })
}
