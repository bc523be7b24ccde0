import type { CheckResult } from './check-result.ts'
import type { VerifyReport } from './run-verify.ts'

/** `PASS answer    answered: ...`: one line per check. */
export function resultLine(result: CheckResult): string {
  return `${result.status} ${result.check.padEnd(9)} ${result.detail}`
}

/** The closing line: the verdict and the counts. */
export function summaryLine(report: VerifyReport): string {
  const counts = `${report.passed} passed, ${report.failed} failed, ${report.skipped} skipped${report.warned > 0 ? `, ${report.warned} warned` : ''}`
  return `${report.ok ? 'OK' : 'FAILED'}: ${counts} (session ${report.sessionId} at ${report.url})`
}
