import { randomUUID } from 'node:crypto'
import type { LanguageModelV4CallOptions } from '@ai-sdk/provider'
import { tool } from 'ai'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { agent } from '../../shared/agent/index.ts'
import { handlerContext, inputs } from '../../shared/ai.ts'
import type { Claim, ClaimOptions, EventStore } from '../../shared/log/event-store.ts'
import { scriptedModel, text, toolCalls } from '../../shared/testing/scripted-model.ts'
import { textOf, track, until, userMessage } from './agent-log.ts'

// The takeover rule (issue 37, case 2): a takeover decides between ending the
// step it replaces and running it again on the log as it is once it holds
// the claim. Here the attempt it replaces is alive but frozen (a container
// whose renewals stopped reaching the store): its claim ran out, and it
// recorded its tool call between the takeover's read of the state and its
// claim. Deciding on that earlier read, the takeover ran the step again, the
// model asked again under a new call ID, and the card was charged twice while
// the transcript showed one charge.

const quiet = { info() {}, warn() {}, error() {} }
const CLAIM_TTL_MS = 150

/** Has the prompt a result of the charge tool: the step after the charge. */
const charged = (options: LanguageModelV4CallOptions) =>
  JSON.stringify(options.prompt).includes('"tool-result"')

/**
 * The takeover cases on a store (`makeStore`: a fresh one, shared by two
 * servers): the memory store in the unit tests, DynamoDB on the emulator.
 */
export function describeTakeovers(
  name: string,
  makeStore: () => EventStore | Promise<EventStore>,
): void {
  describe(name, () => {
    describe('a takeover of a step whose frozen attempt recorded a tool call meanwhile', () => {
      it('ends that step with the call it recorded: the card is charged once', async () => {
        const store = await makeStore()
        const s = `takeover-${randomUUID()}`
        const charges: string[] = []
        const charge = tool({
          description: 'Charge the card',
          inputSchema: z.object({ cents: z.number() }),
          execute: async ({ cents }) => {
            charges.push(handlerContext().idempotencyKey)
            return { charged: cents }
          },
        })
        // A: its step hangs; its renewals never reach the store (it is frozen).
        let frozenStep = true
        const a = scriptedModel((options) =>
          charged(options)
            ? text('Charged 500.')
            : frozenStep
              ? {
                  hang: true,
                  parts: text('Charging', { chunks: 1 }).slice(0, 3),
                  afterRelease: toolCalls({
                    toolCallId: 'c1',
                    toolName: 'charge',
                    input: { cents: 500 },
                  }).slice(1),
                }
              : toolCalls({ toolCallId: 'c1', toolName: 'charge', input: { cents: 500 } }),
        )
        const frozen: EventStore = {
          ...store,
          renewClaim: async (_sessionId: string, claim: Claim) => claim,
        }
        const serverA = track(
          agent({
            name: 'takeover',
            model: a.model,
            store: frozen,
            tools: { charge },
            claimTtlMs: CLAIM_TTL_MS,
            logger: quiet,
          }),
        )
        // B: the model, asked to run the step again, asks for the charge again under a new call ID.
        const b = scriptedModel((options) =>
          charged(options)
            ? text('Charged 500.')
            : toolCalls({ toolCallId: 'c2', toolName: 'charge', input: { cents: 500 } }),
        )
        let raced = false
        // Between B's read of the state and its claim, A wakes and records its call.
        const racing: EventStore = {
          ...store,
          async claim(sessionId: string, key: string, options: ClaimOptions) {
            if (key.startsWith('gen:') && !raced) {
              raced = true
              frozenStep = false
              a.release()
              await until(async () =>
                (await store.read(sessionId)).some((event) => event.type === 'ai.tool.called'),
              )
            }
            return store.claim(sessionId, key, options)
          },
        }
        const serverB = track(
          agent({
            name: 'takeover',
            model: b.model,
            store: racing,
            tools: { charge },
            claimTtlMs: CLAIM_TTL_MS,
            logger: quiet,
          }),
        )
        await serverA.session(s).append(...inputs.message(userMessage(`m-${s}`, 'Charge 500')))
        await until(async () =>
          (await store.read(s)).some((event) => event.type === 'ai.generation.started'),
        )
        // A's claim runs out while it still lives; B takes the step over.
        await new Promise((resolve) => setTimeout(resolve, CLAIM_TTL_MS * 2))
        await serverB.runtime.run({ sessionId: s, lane: 'generation' })
        const { state } = await until(async () => {
          await Promise.all([serverA.runtime.idle(), serverB.runtime.idle()])
          const current = await serverB.session(s).state()
          return current.state.active === null && current
        }, 10_000)
        expect(raced).toBe(true)
        expect(charges).toHaveLength(1)
        expect(textOf(state.messages.at(-1))).toContain('Charged 500.')
        expect(b.calls.filter((call) => !charged(call))).toHaveLength(0)
      })
    })

    describe('a takeover of a tool call whose frozen attempt recorded its result meanwhile', () => {
      it('finds the call done under its claim, and runs it no second time', async () => {
        const store = await makeStore()
        const s = `takeover-${randomUUID()}`
        const runs: string[] = []
        let releaseA: () => void = () => {}
        const held = new Promise<void>((resolve) => {
          releaseA = resolve
        })
        const send = tool({
          description: 'Send the email',
          inputSchema: z.object({ to: z.string() }),
          execute: async ({ to }) => {
            runs.push(`${to} (attempt ${handlerContext().attempt})`)
            // A's run waits, frozen, until B has read the state.
            if (runs.length === 1) await held
            return { sent: true }
          },
        })
        const model = () =>
          scriptedModel((options) =>
            charged(options)
              ? text('Sent.')
              : toolCalls({ toolCallId: 'c1', toolName: 'send', input: { to: 'ana@example.com' } }),
          ).model
        const frozen: EventStore = {
          ...store,
          renewClaim: async (_sessionId: string, claim: Claim) => claim,
        }
        const serverA = track(
          agent({
            name: 'takeover',
            model: model(),
            store: frozen,
            tools: { send },
            claimTtlMs: CLAIM_TTL_MS,
            logger: quiet,
          }),
        )
        let raced = false
        // Between B's read of the state and its claim, A wakes and records the result.
        const racing: EventStore = {
          ...store,
          async claim(sessionId: string, key: string, options: ClaimOptions) {
            if (key.startsWith('tool:') && !raced) {
              raced = true
              releaseA()
              await until(async () =>
                (await store.read(sessionId)).some((event) => event.type === 'ai.tool.result'),
              )
            }
            return store.claim(sessionId, key, options)
          },
        }
        const serverB = track(
          agent({
            name: 'takeover',
            model: model(),
            store: racing,
            tools: { send },
            claimTtlMs: CLAIM_TTL_MS,
            logger: quiet,
          }),
        )
        await serverA.session(s).append(...inputs.message(userMessage(`m-${s}`, 'Email Ana')))
        await until(() => runs.length === 1)
        // A's claim on the call runs out while its tool still runs; B takes it over.
        await new Promise((resolve) => setTimeout(resolve, CLAIM_TTL_MS * 2))
        await serverB.runtime.run({ sessionId: s, lane: 'tools' })
        await until(async () => {
          await Promise.all([serverA.runtime.idle(), serverB.runtime.idle()])
          return (await serverB.session(s).state()).state.active === null
        }, 10_000)
        expect(raced).toBe(true)
        expect(runs).toEqual(['ana@example.com (attempt 1)'])
        const results = (await store.read(s)).filter((event) => event.type === 'ai.tool.result')
        expect(results).toHaveLength(1)
      })
    })
  })
}
