/**
 * What to do when an AWS SDK call failed for want of the caller's AWS setup,
 * or `undefined` for any other error. The SDK's own words ("Region is
 * missing", "Could not load credentials from any providers") name neither
 * the command's `--region` nor the variables and profiles it reads; the
 * commands that call AWS with the caller's setup (verify, inspect, erase,
 * export, import) print this line instead, the SDK's words kept at its end.
 *
 * @example
 * io.stderr(`a2-aws verify: ${awsSetupProblem(error) ?? messageOf(error)}`)
 */
export function awsSetupProblem(error: unknown): string | undefined {
  const { name, message } =
    error instanceof Error ? error : { name: undefined, message: String(error) }
  if (message === 'Region is missing') {
    return `no AWS region: pass --region <region> (us-east-1, say), set AWS_REGION, or use a profile that has one (AWS_PROFILE=<name>, its region in ~/.aws/config). The AWS SDK said: ${message}`
  }
  if (name === 'CredentialsProviderError' || message.startsWith('Could not load credentials')) {
    return `no AWS credentials: use a profile (AWS_PROFILE=<name>; aws configure or aws sso login makes one) or set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY. The AWS SDK said: ${message}`
  }
  return undefined
}
