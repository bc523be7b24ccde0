import type {} from 'vitest'
import type { TestProject } from 'vitest/node'
import { startMotoServer } from '../../functions/local-runner/moto-server.ts'

declare module 'vitest' {
  export interface ProvidedContext {
    awsEndpoint: string
    /** `moto`: ours to reset between suites. `external`: LocalStack or real AWS, never reset. */
    awsEndpointKind: 'moto' | 'external'
  }
}

/**
 * Starts the moto server for the integration project, unless
 * `A2_TEST_ENDPOINT` points the suite at LocalStack or real AWS
 * (`A2_TEST_ENDPOINT=aws` uses the SDK's default endpoint and credentials).
 */
export default async function setup(project: TestProject): Promise<() => void> {
  const external = process.env.A2_TEST_ENDPOINT
  if (external) {
    project.provide('awsEndpoint', external)
    project.provide('awsEndpointKind', 'external')
    return () => {}
  }
  const moto = await startMotoServer()
  project.provide('awsEndpoint', moto.endpoint)
  project.provide('awsEndpointKind', 'moto')
  return () => moto.stop()
}
