import { App, Stack } from 'aws-cdk-lib'
import { describe, expect, it } from 'vitest'
import { A2Agent, type A2AgentProps } from '../../infra/index.ts'
import { DEFAULTS_BEFORE_ISSUE_26, idleMonthlyCost } from '../support/idle-stack-cost.ts'
import { templateOf } from '../support/template.ts'

/** The idle monthly cost of an agent's stack (not bundled: only the template matters). */
function idle(props: Partial<A2AgentProps> = {}) {
  const stack = new Stack(new App({ context: { 'aws:cdk:bundling-stacks': [] } }), 'Idle')
  new A2Agent(stack, 'Agent', { entry: 'functions/example-agent.ts', ...props })
  return idleMonthlyCost(templateOf(stack).template.toJSON())
}

const cents = (usd: number) => Math.round(usd * 100) / 100

describe('what an idle stack costs a month (list prices, free tiers ignored)', () => {
  it('is at most $4 by default: 22 alarm metrics, the session key, and the pollers of six queues', () => {
    const { usd, lines } = idle()
    expect(cents(usd)).toBe(3.9)
    expect(usd).toBeLessThanOrEqual(4)
    expect(lines.map(({ item, count, usd }) => [item, count, cents(usd)])).toEqual([
      ['CloudWatch alarm metrics', 22, 2.2],
      ['Secrets Manager secrets', 1, 0.4],
      ['SQS empty receives, FIFO queue uncapped (2 pollers)', 3, 0.39],
      ['SQS empty receives, FIFO queue with a MaximumConcurrency (5 pollers)', 2, 0.65],
      ['SQS empty receives, standard queue with a MaximumConcurrency (5 pollers)', 1, 0.26],
    ])
  }, 60_000)

  it('was about $8.2 with the defaults before: a dashboard, every throttle alarm, every queue capped', () => {
    const { usd, lines } = idle(DEFAULTS_BEFORE_ISSUE_26)
    expect(cents(usd)).toBe(8.18)
    expect(lines.find((line) => line.item === 'CloudWatch dashboards')?.usd).toBe(3)
    expect(cents(lines.find((line) => line.item === 'CloudWatch alarm metrics')?.usd ?? 0)).toBe(
      2.9,
    )
  }, 60_000)

  it('states what each option adds: the dashboard $3.00, every throttle alarm $0.70, a FIFO queue cap $0.19', () => {
    const base = idle().usd
    expect(cents(idle({ dashboard: true }).usd - base)).toBe(3)
    expect(cents(idle({ alarms: { throttles: 'all' } }).usd - base)).toBe(0.7)
    expect(cents(idle({ maxConcurrency: { admission: 20 } }).usd - base)).toBe(0.19)
    expect(cents(idle({ maxConcurrency: { generation: false } }).usd - base)).toBe(-0.19)
    expect(cents(idle({ alarms: false }).usd - base)).toBe(-2.2)
  }, 60_000)
})
