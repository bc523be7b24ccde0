import type {} from 'vitest'
import type { TestProject } from 'vitest/node'
import { startMotoServer } from '../../functions/local/runner/moto-server.ts'

declare module 'vitest' {
  export interface ProvidedContext {
    /** One endpoint per vitest worker (moto), or the one external endpoint. */
    awsEndpoints: string[]
    /** `moto`: ours to reset between suites. `external`: LocalStack or real AWS, never reset. */
    awsEndpointKind: 'moto' | 'external'
  }
}

/**
 * Starts one moto server per worker of the integration project, unless
 * `A2_TEST_ENDPOINT` points the suite at LocalStack or real AWS
 * (`A2_TEST_ENDPOINT=aws` uses the SDK's default endpoint and credentials).
 */
export default async function setup(project: TestProject): Promise<() => void> {
  const external = process.env.A2_TEST_ENDPOINT
  if (external) {
    project.provide('awsEndpoints', [external])
    project.provide('awsEndpointKind', 'external')
    return () => {}
  }
  const count = Math.max(1, project.config.maxWorkers)
  const servers = await Promise.all(Array.from({ length: count }, () => startMotoServer()))
  project.provide(
    'awsEndpoints',
    servers.map((server) => server.endpoint),
  )
  project.provide('awsEndpointKind', 'moto')
  return () => {
    for (const server of servers) server.stop()
  }
}
