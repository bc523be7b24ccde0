import { Annotations, type Duration, Validations } from 'aws-cdk-lib'
import * as apigateway from 'aws-cdk-lib/aws-apigateway'
import type * as cognito from 'aws-cdk-lib/aws-cognito'
import type * as lambda from 'aws-cdk-lib/aws-lambda'
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager'
import type { Construct } from 'constructs'
import { AUTH_VARIABLES } from '../shared/aws/auth-environment.ts'

/**
 * Who may open a session of the deployed API:
 * - `capability` (the default): `POST {}` opens a session and answers its
 *   token, signed with a key from Secrets Manager (`key`, or a secret the
 *   construct creates); every GET and POST must carry it. For an anonymous
 *   support page: no sign-in, and no one else's session.
 * - `cognito`: a Cognito user pool authorizer verifies the caller; the agent
 *   module's `authorize` decides per session (its `principal` holds the claims).
 * - `iam`: SigV4-signed requests (`execute-api:Invoke`); `authorize` decides
 *   per session (its `principal` is the caller).
 * - `none`: anyone with the URL reads and writes any session the agent
 *   module's `authorize` lets them (an explicit opt-out; synth warns).
 */
export type A2AgentAuth =
  | 'capability'
  | 'iam'
  | 'none'
  | { type: 'capability'; key?: secretsmanager.ISecret; ttl?: Duration }
  | { type: 'cognito'; userPools: readonly cognito.IUserPool[] }
  | { type: 'iam' }
  | { type: 'none' }

export interface ApiAuth {
  /** What every API method gets (an authorizer, or IAM). */
  methodOptions: apigateway.MethodOptions
  /** The secret the session tokens are signed with, under `capability`. */
  sessionKey?: secretsmanager.ISecret
}

/**
 * Sets up `auth` for the functions that serve the API: their `A2_AUTH`, and
 * for `capability` the key secret (read on each of them only) and its name.
 */
export function apiAuth(
  scope: Construct,
  auth: A2AgentAuth | undefined,
  httpFunctions: readonly lambda.Function[],
): ApiAuth {
  const chosen = typeof auth === 'string' ? { type: auth } : (auth ?? { type: 'capability' })
  for (const fn of httpFunctions) fn.addEnvironment(AUTH_VARIABLES.mode, chosen.type)
  switch (chosen.type) {
    case 'capability': {
      const { key, ttl } = chosen as { key?: secretsmanager.ISecret; ttl?: Duration }
      const sessionKey =
        key ??
        new secretsmanager.Secret(scope, 'SessionKey', {
          description: 'a2: signs the session tokens of the agent API (HMAC-SHA256)',
          generateSecretString: { passwordLength: 64, excludePunctuation: true },
        })
      if (!key) {
        Validations.of(sessionKey).acknowledge({
          id: 'AwsSolutions-SMG4',
          reason:
            'Rotating the session key ends every token at once (each open chat loses its session); replace the secret to revoke them all.',
        })
      }
      for (const fn of httpFunctions) {
        sessionKey.grantRead(fn)
        fn.addEnvironment(AUTH_VARIABLES.sessionKeySecret, sessionKey.secretArn)
        if (ttl) fn.addEnvironment(AUTH_VARIABLES.sessionTtlSeconds, String(ttl.toSeconds()))
      }
      return { methodOptions: {}, sessionKey }
    }
    case 'cognito': {
      const { userPools } = chosen as { userPools: readonly cognito.IUserPool[] }
      const authorizer = new apigateway.CognitoUserPoolsAuthorizer(scope, 'Authorizer', {
        cognitoUserPools: [...userPools],
      })
      return {
        methodOptions: { authorizer, authorizationType: apigateway.AuthorizationType.COGNITO },
      }
    }
    case 'iam':
      return { methodOptions: { authorizationType: apigateway.AuthorizationType.IAM } }
    case 'none':
      Annotations.of(scope).addWarningV2(
        'a2-aws:auth-none',
        "auth is 'none': anyone with the API's URL can read and write any session the agent module's authorize allows (all of them without one), and spend model tokens. Use 'capability' (the default), Cognito or IAM.",
      )
      return { methodOptions: {} }
  }
}
