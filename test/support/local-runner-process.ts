import { type ChildProcess, spawn } from 'node:child_process'
import { join } from 'node:path'
import { repoRoot as root } from './repo-root.ts'

/** The environment of a developer without AWS setup or a model key, at home in `dir`. */
export function bareEnv(dir: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env }
  for (const name of Object.keys(env)) {
    if (name.startsWith('AWS_') || name.startsWith('A2_') || name === 'AI_GATEWAY_API_KEY') {
      delete env[name]
    }
  }
  return { ...env, HOME: dir, AWS_EC2_METADATA_DISABLED: 'true' }
}

export interface RunnerProcess {
  /** The agent's endpoint, from the banner. */
  url: string
  banner: string
  child: ChildProcess
  /** Calls `listener` with each line the runner prints on stdout from now on. */
  onLine(listener: (line: string) => void): void
  /** SIGTERM, as Ctrl-C would, and waits for the exit. */
  stop(): Promise<void>
  /** SIGKILL: the process ends where it is, and nothing of it runs on. */
  kill(): Promise<void>
}

/**
 * Starts `npm run local`'s runner (functions/local/local-aws-server.ts) on
 * `endpoint`, as its npm script does, in its own process, from `dir` (where
 * it keeps .a2-local/), and answers once its banner is out.
 */
export async function startRunnerProcess({
  dir,
  endpoint,
  agentModule = join(root, 'functions/example-agent.ts'),
  env = {},
}: {
  dir: string
  endpoint: string
  agentModule?: string
  env?: NodeJS.ProcessEnv
}): Promise<RunnerProcess> {
  const child = spawn(process.execPath, [join(root, 'functions/local/local-aws-server.ts')], {
    cwd: dir,
    env: {
      ...bareEnv(dir),
      A2_AWS_ENDPOINT: endpoint,
      A2_AGENT_MODULE: agentModule,
      PORT: '0',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  let partial = ''
  const listeners: ((line: string) => void)[] = []
  child.stderr.on('data', (chunk) => {
    stderr = (stderr + chunk).slice(-8000)
  })
  child.stdout.on('data', (chunk) => {
    stdout += chunk
    const lines = (partial + chunk).split('\n')
    partial = lines.pop() ?? ''
    for (const line of lines) for (const listener of listeners) listener(line)
  })
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const banner = await new Promise<string>((resolve, reject) => {
    const ready = () => {
      if (stdout.includes('ingress queue:')) resolve(stdout)
    }
    child.stdout.on('data', ready)
    child.once('exit', (code) => reject(new Error(`npm run local exited (${code}): ${stderr}`)))
  })
  const url = /: (http:\/\/\S+\/api\/agent)\n/.exec(banner)?.[1] as string
  const ended = async (signal: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal)
    await exited
  }
  return {
    url,
    banner,
    child,
    onLine: (listener) => listeners.push(listener),
    stop: () => ended('SIGTERM'),
    kill: () => ended('SIGKILL'),
  }
}
