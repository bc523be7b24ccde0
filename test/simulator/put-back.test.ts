import { describe, expect, it } from 'vitest'
import { findPutBackBug } from './put-back-bugs.ts'

// Issue 27's "done when": the simulator finds this turn's two bugs from a
// seed when they are put back (in a copy of shared/, never in the product),
// and passes once they are fixed (the seeds tests). `npm run
// simulate:put-back` runs the same from the command line.
//
// Each search starts one seed before the first seed that found its bug when
// these were last measured (2026-12-04, `npm run simulate:put-back -- all`),
// so a test tries two seeds, each on the broken and the fixed code: the
// searches from seed 1 took a ninth of npm test. A change of behaviour can
// move the first finding seed; the window leaves room, and when a search
// misses, `npm run simulate:put-back -- <bug>` finds the new first seed.
describe('the simulator finds the bugs of its turn when they are put back', () => {
  it("a deploy's rule undone (issue 38): an approved call made under the old version runs on input the new schema refuses", async () => {
    // Seed 2 is the first of 1-200 with a deploy to find it (4 of 200: a
    // closeTicket call of sim-v1 approved after sim-v2 went live).
    const found = await findPutBackBug('deploy-skips-schema-check', { from: 1, seeds: 10 })
    expect(found?.broken.join('\n')).toMatch(/closeTicket call .* ran on input its schema refuses/)
  }, 60_000)

  it("a takeover that decides on a state read before its claim (issue 37): a frozen attempt's recorded tool call is asked for again", async () => {
    // 10 of seeds 1-200 find it (seed 31 first; 4 before the workload
    // combined): a process frozen as it records a tool call thaws as the
    // takeover reads, and the takeover runs the step again on that read.
    // The search starts short of it, with room (npm test's time: each seed
    // tried runs on the broken and the fixed code).
    const found = await findPutBackBug('takeover-decides-before-claim', { from: 30, seeds: 20 })
    expect(found?.broken.join('\n')).toMatch(/recorded tool calls in \d+ attempts/)
  }, 120_000)

  it("a model's metadata ID global to the store (29d24e4): the second session hangs", async () => {
    // A session that never settles: its lookup request was taken for the
    // first session's (one ID in the store). Its answer's ID no longer
    // matters: it goes at its index, without an ID guard. Seed 10 is the
    // first to find it since the workload combined (issue 33);
    // seeds move with the runtime's behaviour, so the search has room
    // (`npm run simulate:put-back` searches from 1).
    const found = await findPutBackBug('store-global-metadata-id', { from: 9, seeds: 30 })
    expect(found?.broken.join('\n')).toMatch(/never ended|still starting|stuck|did not quiesce/)
  }, 120_000)

  it('output the log refuses ends the attempt, not the step (376805a): the step runs again and again', async () => {
    // Seed 4 is the first to find it since the workload combined (issue 33).
    const found = await findPutBackBug('unstorable-output-reruns', { from: 3, seeds: 20 })
    expect(found?.broken.join('\n')).toMatch(/was attempted \d+ times|ran \d+ times/)
  }, 60_000)

  it('a command decided where it is written although its decision ends running work (issue 34): the work it ended runs on', async () => {
    // Seed 8 is the first to find it: a Stop or an interruption appended
    // by the user's request without the claims only admission revokes.
    const found = await findPutBackBug('decided-push-skips-revoke', { from: 7, seeds: 20 })
    expect(found?.broken.join('\n')).toMatch(/never ended|did not quiesce|never finished/)
  }, 60_000)

  it("a server append that wakes the lanes of what it returns, not of what it stored (issue 33's lost wake-ups): found behind the stream router's backstop", async () => {
    // Seed 1 finds it (a later fast-path send came seconds after the
    // commit; without the lateness bound, seed 2: never sent); without the
    // wake-up ledger no seed of 1-200 did, since the router's copy of each
    // wake-up always came.
    const found = await findPutBackBug('decided-push-wakes-what-it-returns', { seeds: 20 })
    expect(found?.broken.join('\n')).toMatch(
      /generation wake-up .* (was never sent by a fast path|came \d+ ms after its commit)/,
    )
  }, 60_000)

  it("a step that failed after recording a tool call, so Retry asked the model again (issue 33's intent oracle): one turn's effect done twice", async () => {
    // Seeds 119, 151, 169 and 267 of 1-300 find it (2026-12-06; seed 9 was
    // the first before issue 38's first changes): a stream that errors
    // after its tool call, the turn failed, the user retries, and the
    // charge (or the email) is done twice. Without effects counted per
    // intent, no seed of 1-200 did: each call ran once, under its key.
    const found = await findPutBackBug('failed-step-retries-recorded-calls', {
      from: 118,
      seeds: 8,
    })
    expect(found?.broken.join('\n')).toMatch(
      /(email|payments) performed 2 times .* for the one the model asked for/,
    )
  }, 60_000)

  it("an idempotency key without its model step (issue 33's intent oracle): a later turn's charge deduplicated away", async () => {
    // 14 of seeds 1-200 find it, the first 7; without the oracle none did
    // (an effect existed under the call's key: the first turn's).
    const found = await findPutBackBug('key-of-provider-call-id', { from: 6, seeds: 10 })
    expect(found?.broken.join('\n')).toMatch(/its effect was never performed: its key was/)
  }, 60_000)

  it("streamed progress dropped when it lost the race for its index (issue 33's content oracle): the transcript lost words", async () => {
    // 37 of seeds 1-200 find it, the first 1; without the oracle none did.
    const found = await findPutBackBug('progress-conflict-dropped', { from: 1, seeds: 10 })
    expect(found?.broken.join('\n')).toMatch(/which no model call produced/)
  }, 60_000)

  it("the browsers read through the real client: one that does not rewind when its session's log was erased never catches up", async () => {
    const found = await findPutBackBug('sse-no-rewind', { from: 2, seeds: 20 })
    // The log at #0 (erased), or at another life's head (erased and started over).
    expect(found?.broken.join('\n')).toMatch(/the browser did not catch up .* the log at #\d+/)
  }, 60_000)
})
