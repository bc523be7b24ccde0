// The agent's lanes, as data: every place that lists lanes (routing, the
// queues and their environment, the Lambda handlers, the construct, the
// local runner) derives from this table. What each lane does is its run
// function (shared/agent/lanes/); what wakes it is `wakeUpsFor`.

/** Each lane and the queue its wake-ups travel on when dispatch goes through queues. */
export const LANES = {
  /** The controller: decides commands and what the facts make due. */
  admission: { queue: 'admission' },
  /** One model step at a time. */
  generation: { queue: 'generation' },
  /** Tool calls, each under its own keyed wake-up. */
  tools: { queue: 'tools' },
  /** The app's `handlers`, from a cursor. */
  handlers: { queue: 'handlers' },
  /**
   * Model metadata lookups: rare and short, so they share the handlers queue
   * (and function), keeping their own lane name in the message.
   */
  metadata: { queue: 'handlers' },
} as const satisfies Record<string, { queue: string }>

export type Lane = keyof typeof LANES
export type QueueLane = (typeof LANES)[Lane]['queue']

export const LANE_NAMES = Object.keys(LANES) as Lane[]

/** The lanes that have a queue (and a function) of their own. */
export const QUEUE_LANES: readonly QueueLane[] = [
  ...new Set(LANE_NAMES.map((lane) => LANES[lane].queue)),
]

export function isLane(name: string): name is Lane {
  return Object.hasOwn(LANES, name)
}
