import { DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb'

/** The region an emulator gets when none is configured (moto's and LocalStack's default). */
const EMULATOR_REGION = 'us-east-1'
/** Emulators take any credentials, but the SDK signs every request and wants some. */
const EMULATOR_CREDENTIALS = { accessKeyId: 'test', secretAccessKey: 'test' }

/**
 * Whether an endpoint is on this machine's loopback, which is an emulator
 * (moto, LocalStack, DynamoDB Local) and never AWS.
 *
 * @example
 * isLoopbackEndpoint('http://127.0.0.1:5000') // true
 * @internal Exported for its test (knip --production).
 */
export function isLoopbackEndpoint(endpoint: string): boolean {
  const { hostname } = new URL(endpoint)
  return (
    hostname === 'localhost' ||
    hostname.endsWith('.localhost') ||
    hostname === '[::1]' ||
    /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname)
  )
}

/**
 * The DynamoDB client for `--table`: the region and endpoint given, and the
 * SDK's own region and credentials (environment, profile, ...). Against a
 * loopback endpoint, and only there, what the SDK finds none of is assumed
 * (`us-east-1`, dummy credentials) and said in `assumed`, one line each, for
 * the command to print: `npm run local`'s moto needs no AWS setup. Anywhere else a missing
 * region or credentials stay the SDK's error, since a guess would send a
 * real request to the wrong place.
 *
 * @example
 * const { client, assumed } = await tableClient({ endpoint: 'http://127.0.0.1:5000' })
 */
export async function tableClient({
  region,
  endpoint,
}: {
  region?: string
  endpoint?: string
}): Promise<{ client: DynamoDBClient; assumed: string[] }> {
  const given: DynamoDBClientConfig = {
    ...(region ? { region } : {}),
    ...(endpoint ? { endpoint } : {}),
  }
  if (!endpoint || !isLoopbackEndpoint(endpoint)) {
    return { client: new DynamoDBClient(given), assumed: [] }
  }
  // Ask the SDK's own chains, as a request would, and fill in what they lack.
  const probe = new DynamoDBClient(given)
  const found = async (provider: () => Promise<unknown>): Promise<boolean> =>
    provider().then(
      () => true,
      () => false,
    )
  const hasRegion = await found(() => probe.config.region())
  const hasCredentials = await found(() => probe.config.credentials())
  probe.destroy()
  const assumed = [
    ...(hasRegion ? [] : [`no AWS region configured: assuming ${EMULATOR_REGION}`]),
    ...(hasCredentials
      ? []
      : [`no AWS credentials configured: using dummy ones (${EMULATOR_CREDENTIALS.accessKeyId})`]),
  ]
  const client = new DynamoDBClient({
    ...given,
    ...(hasRegion ? {} : { region: EMULATOR_REGION }),
    ...(hasCredentials ? {} : { credentials: EMULATOR_CREDENTIALS }),
  })
  return { client, assumed }
}
