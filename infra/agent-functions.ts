import { existsSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Duration, RemovalPolicy } from 'aws-cdk-lib'
import * as lambda from 'aws-cdk-lib/aws-lambda'
import * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs'
import * as logs from 'aws-cdk-lib/aws-logs'
import type { Construct } from 'constructs'
import {
  QUEUE_FUNCTION_NAMES,
  QUEUE_FUNCTIONS,
  type QueueFunction,
} from '../shared/aws/pipeline-functions.ts'
import type { A2AgentProps } from './a2-agent-props.ts'
import { functionRole } from './function-role.ts'
import { pascal } from './pascal.ts'

/** POST appends and wakes lanes; API Gateway gives it 29 s anyway. */
const HTTP_TIMEOUT = Duration.seconds(30)
/**
 * A GET stream ends when its session has been quiet for 10 s, and the HTTP
 * handler ends it 10 s before the deadline anyway (so at most 20 s, then the
 * client resumes): an invocation whose client left ends within 30 s even
 * when Lambda never signals the disconnect. The GET integration matches it.
 */
export const STREAM_TIMEOUT = Duration.seconds(30)
/**
 * The stream function waits on the log, it does not compute: the functions'
 * bundle is about 100 MB resident once loaded and a turn's GET stream adds
 * 2 MB and 26 ms of CPU (test/bench/aws-requests.bench.ts times the bundle,
 * test/bench/lane-memory.bench.ts the stream), so 192 MB leaves it half
 * free; an open stream pays its memory by the second (issue 34: 256 MB
 * before).
 */
const DEFAULT_STREAM_MEMORY_MB = 192
/**
 * The generation function waits on the model: a step of a 200-chunk answer
 * peaked at 150 to 165 MB resident with the sources loaded (the bundle loads
 * in about 30 MB less), 37 to 41 ms of CPU (test/bench/lane-memory.bench.ts),
 * so 256 MB leaves a third of it free, and its CPU share (Lambda's scales
 * with memory) does a turn's work in about 250 to 280 ms, most of it while
 * the model streams. Every second the model streams is billed at this size (issue 34:
 * 512 MB before, which did the work in about 120 ms and took half as long
 * to start cold); a long conversation held in memory, or a harness with
 * more code (Pi), may want `generationMemorySize` higher.
 */
const DEFAULT_GENERATION_MEMORY_MB = 256

export type AgentFunctions = Record<
  'http' | 'stream' | 'router' | QueueFunction,
  nodejs.NodejsFunction
>

/**
 * The agent's functions, one bundle of the agent module with a handler per
 * function: `http` (POST), `stream` (GET), the router, and one per queue
 * function of the lane table. Created in the agent's scope with the IDs they
 * always had.
 */
export function agentFunctions(
  scope: Construct,
  props: A2AgentProps,
  options: {
    environment: Record<string, string>
    tracing: boolean
    timeoutOf: (name: QueueFunction | 'router') => Duration
  },
): AgentFunctions {
  const projectRoot = resolve(props.projectRoot ?? process.cwd())
  const agentEntry = resolve(projectRoot, props.entry)
  const aliasTarget = `./${relative(projectRoot, agentEntry).split('\\').join('/')}`
  const nodeModules = harnessModules(props.harness, projectRoot)
  const fn = (
    name: string,
    handler: string,
    timeout: Duration,
    memorySize = props.memorySize ?? 1024,
  ): nodejs.NodejsFunction => {
    const logGroup = new logs.LogGroup(scope, `${name}Logs`, {
      retention: logs.RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.DESTROY,
    })
    return new nodejs.NodejsFunction(scope, name, {
      entry: lambdaEntry(),
      handler,
      projectRoot,
      depsLockFilePath: lockFile(projectRoot),
      runtime: lambda.Runtime.NODEJS_22_X,
      architecture: lambda.Architecture.ARM_64,
      memorySize,
      timeout,
      environment: options.environment,
      tracing: options.tracing ? lambda.Tracing.ACTIVE : lambda.Tracing.DISABLED,
      loggingFormat: lambda.LoggingFormat.JSON,
      logGroup,
      // Its own log group only, not the managed basic execution role's `*`.
      role: functionRole(scope, `${name}Role`, logGroup),
      bundling: {
        format: nodejs.OutputFormat.ESM,
        target: 'node22',
        minify: true,
        // Stack traces name our files and lines; the sources themselves
        // stay out of the map, which would make every cold start (INIT is
        // billed) parse megabytes of them.
        sourceMap: true,
        sourcesContent: false,
        bundleAwsSDK: true,
        mainFields: ['module', 'main'],
        // Some bundled dependencies still `require()` Node built-ins.
        banner:
          "import { createRequire as __a2CreateRequire } from 'node:module'; const require = __a2CreateRequire(import.meta.url);",
        esbuildArgs: { '--alias:a2-aws-agent-module': aliasTarget },
        // Installed beside the bundle (and external to it), from the lock file.
        ...(nodeModules.length > 0 ? { nodeModules: [...nodeModules] } : {}),
      },
    })
  }

  const queueFunctions = Object.fromEntries(
    QUEUE_FUNCTION_NAMES.map((name) => [
      name,
      fn(
        `${pascal(name)}Function`,
        QUEUE_FUNCTIONS[name].handler,
        options.timeoutOf(name),
        name === 'generation'
          ? (props.generationMemorySize ?? props.memorySize ?? DEFAULT_GENERATION_MEMORY_MB)
          : undefined,
      ),
    ]),
  ) as Record<QueueFunction, nodejs.NodejsFunction>
  return {
    http: fn('HttpFunction', 'http', HTTP_TIMEOUT),
    stream: fn(
      'StreamFunction',
      'http',
      STREAM_TIMEOUT,
      props.streamMemorySize ?? DEFAULT_STREAM_MEMORY_MB,
    ),
    router: fn('RouterFunction', 'router', options.timeoutOf('router')),
    ...queueFunctions,
  }
}

/** The packages each harness loads by name at run time, which a bundle cannot hold. */
const HARNESS_MODULES = {
  'ai-sdk': [],
  pi: ['@mariozechner/pi-agent-core', '@mariozechner/pi-ai'],
} as const

/**
 * What every function installs beside its bundle for the agent's harness
 * (every function loads the agent module, whose own imports of Pi's
 * packages become external with them). The packages must be installed in
 * `projectRoot`, where the lock file gives their versions; the FX harness
 * cannot run in Lambda at all.
 * @internal Exported for its test (knip --production).
 */
export function harnessModules(
  harness: A2AgentProps['harness'],
  projectRoot: string,
): readonly string[] {
  if (harness === 'fx') {
    throw new Error(
      "a2: A2Agent cannot deploy harness 'fx': the FX harness runs an ACP agent process (`fx acp`) beside the agent and holds a step open while it waits for the user's permission, and a Lambda function has neither that command nor the time. Run an FX agent in a Node server or container (see docs/harnesses.md), or deploy an 'ai-sdk' or 'pi' agent.",
    )
  }
  const modules = HARNESS_MODULES[harness ?? 'ai-sdk']
  if (modules === undefined) {
    throw new Error(
      `a2: A2Agent's harness is ${JSON.stringify(harness)}: use 'ai-sdk' (the default) or 'pi'`,
    )
  }
  const missing = modules.filter((name) => !installedFrom(projectRoot, name))
  if (missing.length > 0) {
    throw new Error(
      `a2: harness '${harness}' needs ${missing.join(' and ')} installed in ${projectRoot}, whose lock file gives the version each function installs: npm install ${modules.join(' ')}`,
    )
  }
  return modules
}

/** Whether Node would find the package from `projectRoot` (its `node_modules` or a parent's). */
function installedFrom(projectRoot: string, name: string): boolean {
  for (let dir = projectRoot; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'node_modules', name, 'package.json'))) return true
    if (dirname(dir) === dir) return false
  }
}

/** The functions' entry point, as source in the repo or compiled in the package. */
function lambdaEntry(): string {
  const here = dirname(fileURLToPath(import.meta.url))
  const candidates = ['lambda.ts', 'lambda.js'].map((file) => join(here, '..', 'functions', file))
  const found = candidates.find((candidate) => existsSync(candidate))
  if (!found)
    throw new Error(`a2: the Lambda entry point is missing (looked for ${candidates.join(', ')})`)
  return found
}

function lockFile(projectRoot: string): string {
  for (const name of ['package-lock.json', 'pnpm-lock.yaml', 'yarn.lock', 'bun.lockb']) {
    const candidate = join(projectRoot, name)
    if (existsSync(candidate)) return candidate
  }
  throw new Error(`a2: no lock file in ${projectRoot}; set projectRoot to your package's directory`)
}
