import type { VerifyConfig } from '../../../shared/aws/verify-output.ts'
import { type CheckOutcome, pass, skip, warn } from './check-result.ts'

/** CloudWatch's list price of a standard-resolution alarm: $0.10 per metric a month (us-east-1). */
const USD_PER_ALARM_METRIC_MONTH = 0.1

/**
 * Whether the stack's alarms tell anyone: an alarm without actions goes
 * off in the console only, and still costs its metrics. By default the
 * construct creates its 21 alarms without actions ($2.20 of an idle stack's
 * $3.90 a month, docs/deploy.md), so a first deploy warns until a team
 * gives them a topic (`alarms: { topic }`).
 */
export function judgeAlarms(alarms: VerifyConfig['alarms']): CheckOutcome {
  if (!alarms) {
    return skip(
      "the stack's verify output says nothing of its alarms (deployed before it): redeploy to check them",
    )
  }
  const { count, metrics, notifying } = alarms
  if (count === 0) {
    return skip('alarms: false: the stack has no alarms, so nothing tells anyone of dead letters')
  }
  const figures = { alarms: count, metrics, notifying }
  const cost = `$${(metrics * USD_PER_ALARM_METRIC_MONTH).toFixed(2)} a month`
  if (notifying === 0) {
    return warn(
      `the stack's ${count} alarms have no actions: they go off and notify no one, and cost ${cost} (${metrics} metrics at $0.10); give them a topic (alarms: { topic }), or drop them (alarms: false)`,
      figures,
    )
  }
  if (notifying < count) {
    return warn(
      `${count - notifying} of the stack's ${count} alarms have no actions: they go off and notify no one; give every alarm an action (alarms: { topic } does)`,
      figures,
    )
  }
  return pass(
    `every one of the stack's ${count} alarms notifies (${cost} for ${metrics} metrics)`,
    figures,
  )
}
