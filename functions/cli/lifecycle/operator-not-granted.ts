import { A2Error } from '../../../shared/log/error-brand.ts'

declare module '../../../shared/log/error-brand.ts' {
  interface A2Codes {
    /** `a2-aws erase` or `import` with credentials that lack one of its actions: refused before its first write. */
    OPERATOR_NOT_GRANTED: undefined
  }
}

/**
 * The caller's credentials lack actions the command needs, found before it
 * wrote anything: names them, and where the policy is.
 */
export class OperatorNotGrantedError extends A2Error<'OPERATOR_NOT_GRANTED'> {
  readonly denied: readonly string[]

  constructor(
    command: 'erase' | 'import',
    denied: readonly string[],
    table: string,
    scheduleGroup?: string,
  ) {
    const on = scheduleGroup
      ? `table ${table} and schedule group ${scheduleGroup}`
      : `table ${table}`
    const grant = command === 'erase' ? 'grantErase' : 'grantImport'
    super(
      'OPERATOR_NOT_GRANTED',
      `your AWS credentials may not ${denied.join(', ')} (on ${on}), which ${command} needs: nothing was written. Give them the ${command} policy (docs/operations.md, "What the commands need"; in CDK, agent.${grant}(principal)) and run it again`,
    )
    this.name = 'OperatorNotGrantedError'
    this.denied = denied
  }
}
