import { type ChildProcess, spawn } from 'node:child_process'
import { Readable, Writable } from 'node:stream'
import type {
  ClientContext,
  RequestPermissionRequest,
  RequestPermissionResponse,
  SessionUpdate,
} from '@agentclientprotocol/sdk'
import type { FxHarnessOptions } from './fx-harness-options.ts'
import { loadAcp } from './load-acp.ts'

/** Where one prompt turn's `session/update`s and permission requests go. */
interface AcpTurn {
  update(update: SessionUpdate): void
  permission(request: RequestPermissionRequest): Promise<RequestPermissionResponse>
}

/** One ACP agent process and the ACP session A2's session talks to. */
export interface AcpConnection {
  readonly agent: ClientContext
  readonly acpSessionId: string
  /** The A2 messages this ACP session has been sent (its own history). */
  readonly sent: Set<string>
  /** The prompt turn under way, if any. */
  turn: AcpTurn | undefined
  /** Settles when the turn under way (a cancelled one included) has ended. */
  idle: Promise<void>
  readonly closed: Promise<void>
  /** Whether the process keeps Node running: during a turn it does, idle it does not. */
  hold(busy: boolean): void
  close(): void
}

const DEFAULT_COMMAND = ['fx', 'acp'] as const

/**
 * Spawns the agent's command (`fx acp` by default), speaks ACP to it over
 * its stdio (newline-delimited JSON-RPC, as the SDK's `ndJsonStream`), runs
 * `initialize` and `session/new`. The agent's stderr is left to the process's.
 */
export async function openAcpConnection(options: FxHarnessOptions): Promise<AcpConnection> {
  const acp = await loadAcp()
  const [command, ...args] = options.command ?? DEFAULT_COMMAND
  if (command === undefined) throw new TypeError('harness.command needs at least the program')
  const cwd = options.cwd ?? process.cwd()
  const child: ChildProcess = spawn(command, args, {
    cwd,
    env: { ...process.env, ...options.env },
    stdio: ['pipe', 'pipe', 'inherit'],
  })
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => resolve())
    child.once('error', () => resolve())
  })
  const spawned = new Promise<void>((resolve, reject) => {
    child.once('spawn', () => resolve())
    child.once('error', reject)
  })
  await spawned
  const kill = () => child.kill()
  process.once('exit', kill)
  exited.then(() => process.off('exit', kill))
  const stdin = child.stdin as NonNullable<ChildProcess['stdin']>
  const stdout = child.stdout as NonNullable<ChildProcess['stdout']>
  const hold = (busy: boolean) => {
    for (const handle of [child, stdin, stdout] as { ref?(): void; unref?(): void }[]) {
      if (busy) handle.ref?.()
      else handle.unref?.()
    }
  }
  // A closed pipe surfaces as the connection closing, not as an uncaught error.
  stdin.on('error', () => undefined)
  const stream = acp.ndJsonStream(
    Writable.toWeb(stdin) as WritableStream<Uint8Array>,
    Readable.toWeb(stdout) as ReadableStream<Uint8Array>,
  )
  let connection: AcpConnection | undefined
  const app = acp
    .client({ name: 'a2-aws' })
    .onNotification(acp.methods.client.session.update, ({ params }) => {
      connection?.turn?.update(params.update)
    })
    .onRequest(acp.methods.client.session.requestPermission, async ({ params }) => {
      const turn = connection?.turn
      if (turn === undefined) return { outcome: { outcome: 'cancelled' } }
      return turn.permission(params)
    })
  const open = app.connect(stream)
  open.closed.then(kill, kill)
  try {
    await open.agent.request(acp.methods.agent.initialize, {
      protocolVersion: acp.PROTOCOL_VERSION,
      clientCapabilities: {},
      clientInfo: { name: 'a2-aws', version: '0' },
    })
    const session = await open.agent.request(acp.methods.agent.session.new, {
      cwd,
      mcpServers: [],
    })
    connection = {
      agent: open.agent,
      acpSessionId: session.sessionId,
      sent: new Set(),
      turn: undefined,
      idle: Promise.resolve(),
      closed: Promise.race([open.closed.catch(() => undefined), exited]),
      hold,
      close() {
        open.close()
        kill()
      },
    }
    return connection
  } catch (error) {
    open.close()
    kill()
    throw error
  }
}
