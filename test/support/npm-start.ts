import { spawn } from 'node:child_process'
import { repoRoot } from './repo-root.ts'

export interface StartedCommand {
  /** The server's origin, from the first line it prints. */
  url: string
  /** Everything it printed on stdout so far. */
  stdout(): string
  /** Ends it with SIGTERM (it closes its server and exits) and waits for the exit. */
  stop(): Promise<void>
}

/**
 * Runs `npm start`'s server (functions/local/local-server.ts) in its own process,
 * as its npm script does, with `env` over this process's environment (a
 * value `undefined` removes the variable), on a free port (PORT=0), and
 * waits until it says where it listens.
 */
export async function startNpmStart(
  env: Record<string, string | undefined>,
): Promise<StartedCommand> {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, PORT: '0', HOST: '127.0.0.1' }
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) delete childEnv[name]
    else childEnv[name] = value
  }
  const child = spawn(process.execPath, ['functions/local/local-server.ts'], {
    cwd: repoRoot,
    env: childEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  child.stderr.on('data', (chunk) => {
    stderr += chunk
  })
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (chunk) => {
      stdout += chunk
      // The banner is one console.log: once its last line is in, all of it is.
      const listening = /on (http:\/\/\S+)\/api\/agent/.exec(stdout)
      if (listening?.[1] && stdout.includes('send a message:')) resolve(listening[1])
    })
    child.once('exit', (code) =>
      reject(new Error(`npm start exited (${code}) before listening: ${stderr}`)),
    )
  })
  return {
    url,
    stdout: () => stdout,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
      await exited
    },
  }
}
