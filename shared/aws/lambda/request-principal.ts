import type { APIGatewayProxyEvent } from 'aws-lambda'
import type { Principal } from '../../http/principal.ts'

/**
 * Who API Gateway verified, from the REST proxy event's request context: a
 * Cognito user pool authorizer's claims, the IAM caller of a signed request,
 * or a Lambda authorizer's principal. API Gateway sets the context; a client
 * cannot.
 */
export function principalOf(event: APIGatewayProxyEvent): Principal | undefined {
  const context = event.requestContext as
    | Partial<APIGatewayProxyEvent['requestContext']>
    | undefined
  const authorizer = context?.authorizer as Record<string, unknown> | null | undefined
  const claims = authorizer?.claims as Record<string, string> | undefined
  if (claims && typeof claims === 'object' && typeof claims.sub === 'string') {
    return { type: 'cognito', sub: claims.sub, claims }
  }
  const identity = context?.identity
  if (identity?.userArn) {
    return {
      type: 'iam',
      arn: identity.userArn,
      ...(identity.accountId ? { accountId: identity.accountId } : {}),
      ...(identity.caller ? { caller: identity.caller } : {}),
    }
  }
  if (authorizer && typeof authorizer.principalId === 'string') {
    const { principalId, integrationLatency: _latency, ...rest } = authorizer
    return { type: 'authorizer', principalId, context: rest }
  }
  return undefined
}
