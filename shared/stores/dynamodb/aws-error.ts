/**
 * Whether `error` is the AWS SDK's exception of this name. By name, not
 * class: the store runs on the app's DynamoDB client, whose SDK copy may not
 * be this package's, and `instanceof` fails across copies.
 */
export function isAwsError<E extends Error = Error>(error: unknown, name: string): error is E {
  return error instanceof Error && error.name === name
}
