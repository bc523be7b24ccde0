import type { CompatibilityReport } from './compatibility-report.ts'

/**
 * The report as a CI log reads it: one line per finding under its session
 * (and where it came from), then the count.
 *
 * @example
 * if (!report.ok) throw new Error(formatCompatibilityReport(report))
 */
export function formatCompatibilityReport(report: CompatibilityReport): string {
  const lines: string[] = []
  for (const session of report.broken) {
    lines.push(`session ${session.sessionId}${session.source ? ` (${session.source})` : ''}:`)
    for (const finding of session.findings) lines.push(`  ${finding.kind}: ${finding.message}`)
  }
  const checked = `${report.sessions} sessions (${report.events} events)`
  lines.push(
    report.ok
      ? `${checked} checked: none would break`
      : `${checked} checked: ${report.broken.length} would break`,
  )
  return `${lines.join('\n')}\n`
}
