import type { RunOutcome, WakeUp } from './wake-up.ts'

/**
 * How work pinned to a version of the agent's code reaches a process of
 * that version (`agent({ versions: { routes } })`). `here` is where this
 * process's code is reached: each model step's start records it, and a
 * process of another version that meets the turn's work forwards it there.
 * On AWS a route would name a published Lambda version; in one process
 * (tests, the local runner) it names an agent (`localVersions()`).
 */
export interface VersionRoutes {
  readonly here: string
  /**
   * Runs a wake-up on the code at `route`, where it is not forwarded again:
   * the run's outcome, or undefined when nothing answers there (that
   * version is gone), and the work runs here instead.
   */
  forward(route: string, wakeUp: WakeUp): Promise<RunOutcome | undefined>
}

/** What a route runs a forwarded wake-up on: an agent's runtime. */
export interface RoutedRuntime {
  run(wakeUp: WakeUp, options: { forwarded: true }): Promise<RunOutcome>
}

/**
 * Versions of an agent served side by side in one process, each under a
 * name (its route): what a deploy's old and new code are while the old one
 * drains, without AWS.
 *
 * @example
 * const versions = localVersions()
 * const v1 = agent({ ...options, version: 'v1', versions: { routes: versions.routes('v1') } })
 * versions.serve('v1', v1.runtime)
 */
export function localVersions(): {
  routes(name: string): VersionRoutes
  serve(name: string, runtime: RoutedRuntime): void
  /** Stops serving a version: work pinned to it then moves (its process is gone). */
  retire(name: string): void
} {
  const served = new Map<string, RoutedRuntime>()
  return {
    routes: (here) => ({
      here,
      forward: async (route, wakeUp) => served.get(route)?.run(wakeUp, { forwarded: true }),
    }),
    serve: (name, runtime) => void served.set(name, runtime),
    retire: (name) => void served.delete(name),
  }
}
