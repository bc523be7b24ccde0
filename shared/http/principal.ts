/**
 * Who the platform verified before the request reached the agent: the
 * claims of a Cognito user pool authorizer, the IAM caller of a SigV4-signed
 * request, or what a Lambda authorizer returned. `authorize` receives it and
 * decides per session and operation; the agent never checks it itself.
 */
export type Principal =
  | {
      type: 'cognito'
      /** The user's `sub` claim. */
      sub: string
      /** Every claim of the ID or access token, as API Gateway passes them (strings). */
      claims: Readonly<Record<string, string>>
    }
  | {
      type: 'iam'
      /** The caller's ARN (an assumed role's session ARN for a role). */
      arn: string
      accountId?: string
      /** The caller's unique ID (`AROA...:session` for a role). */
      caller?: string
    }
  | {
      type: 'authorizer'
      principalId?: string
      /** The Lambda authorizer's `context`. */
      context: Readonly<Record<string, unknown>>
    }
