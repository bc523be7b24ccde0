import type { UseAgentResult } from 'a2-aws/ai/react'
import { useEffect, useState } from 'react'

/** How long a turn that came back from a dropped stream may stay silent before the page says Recovering. */
const RECOVERING_AFTER_MS = 3_000

/**
 * Whether the page is on a turn whose worker may have died: the stream
 * dropped while a model step ran (the server restarted, say), and since it
 * reopened nothing has been written to the session for a few seconds. A
 * live worker streams on, which clears it; a dead one's step waits until
 * its claim lapses and another worker takes it over (about 10 s on
 * `npm run local`, 30 s deployed), and meanwhile the page says so rather
 * than "Responding" over a frozen answer. Only after a drop: a quiet model
 * (a long thought, a slow tool) on a stream that never broke is just slow.
 */
export function useRecovering(agent: UseAgentResult, quietMs = RECOVERING_AFTER_MS): boolean {
  const index = agent.confirmed.index
  const streaming = agent.status === 'streaming'
  const open = agent.connection === 'open'
  const [dropped, setDropped] = useState(false)
  const [quiet, setQuiet] = useState(false)
  useEffect(() => {
    if (agent.connection === 'reconnecting' && streaming) setDropped(true)
    else if (!streaming) setDropped(false)
  }, [agent.connection, streaming])
  // biome-ignore lint/correctness/useExhaustiveDependencies: every new event restarts the wait
  useEffect(() => {
    setQuiet(false)
    if (!dropped || !streaming || !open) return
    const timer = setTimeout(() => setQuiet(true), quietMs)
    return () => clearTimeout(timer)
  }, [dropped, streaming, open, index, quietMs])
  return dropped && quiet
}
