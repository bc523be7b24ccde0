import { type ChildProcess, spawn } from 'node:child_process'
import { createServer } from 'node:net'
import { fileURLToPath } from 'node:url'
import { sleep } from '../../../shared/timing/sleep.ts'
import { ClearError } from '../../exit-clearly.ts'

const MOTO_INSTALL_HINT =
  "The integration tests and `npm run local` need the moto server (Python). Install it with: pip install 'moto[server]' (or point `npm run local` at another endpoint with A2_AWS_ENDPOINT)"

// How moto runs here (single-threaded, exiting with its parent, without two
// of moto 5's costs that grow with the table): see moto_main.py.
const MOTO_MAIN = fileURLToPath(new URL('./moto_main.py', import.meta.url))

export interface MotoServer {
  endpoint: string
  /** SDK client settings for this server: moto takes any credentials, the SDK wants some. */
  clientConfig: {
    endpoint: string
    region: string
    credentials: { accessKeyId: string; secretAccessKey: string }
  }
  pid: number
  stop(): void
}

async function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() =>
        typeof address === 'object' && address
          ? resolve(address.port)
          : reject(new Error('no port')),
      )
    })
  })
}

/** @internal Exported for the tests' moto servers (knip --production). */
export async function resetMoto(endpoint: string): Promise<void> {
  const response = await fetch(`${endpoint}/moto-api/reset`, { method: 'POST' })
  if (!response.ok) throw new Error(`moto reset answered ${response.status}`)
}

/** Starts moto on a free loopback port and waits until it answers. */
export async function startMotoServer({ timeoutMs = 30_000 } = {}): Promise<MotoServer> {
  const port = await freeLoopbackPort()
  const endpoint = `http://127.0.0.1:${port}`
  let output = ''
  let exited: string | undefined
  const child: ChildProcess = spawn(process.env.A2_PYTHON ?? 'python3', [MOTO_MAIN, String(port)], {
    // Its stdin is its lifeline: it exits when the pipe closes with us.
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  child.stdout?.on('data', (chunk) => {
    output = (output + chunk).slice(-4000)
  })
  child.stderr?.on('data', (chunk) => {
    output = (output + chunk).slice(-4000)
  })
  child.on('error', (error) => {
    exited = error.message
  })
  child.on('exit', (code, signal) => {
    exited ??= `exited with ${code ?? signal}`
  })
  const stop = (): void => {
    // moto ignores SIGTERM.
    if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return
    try {
      process.kill(child.pid, 'SIGKILL')
    } catch {
      // Already gone (a second stop before the exit event): nothing to do.
    }
  }
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (exited !== undefined) {
      const python = process.env.A2_PYTHON ?? 'python3'
      if (/ENOENT/.test(exited)) {
        throw new ClearError(
          `${python} was not found, and the moto server runs on it. ${MOTO_INSTALL_HINT}`,
        )
      }
      if (/No module named '?(moto|werkzeug)/.test(output)) {
        throw new ClearError(`moto is not installed for ${python}. ${MOTO_INSTALL_HINT}`)
      }
      throw new Error(
        `The moto server did not start (${exited}).\n${output.trim()}\n\n${MOTO_INSTALL_HINT}`,
      )
    }
    try {
      await resetMoto(endpoint)
      const clientConfig = {
        endpoint,
        region: 'us-east-1',
        credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
      }
      return { endpoint, clientConfig, pid: child.pid as number, stop }
    } catch {
      await sleep(100)
    }
  }
  stop()
  throw new Error(
    `The moto server did not answer within ${timeoutMs} ms.\n${output.trim()}\n\n${MOTO_INSTALL_HINT}`,
  )
}
