import { App, Stack } from 'aws-cdk-lib'
import { describe, expect, it } from 'vitest'
import { A2Agent } from '../../infra/index.ts'
import { templateOf } from '../support/template.ts'

// CloudFormation replaces a resource whose logical ID changes: for the
// table that is a new, empty event log, for a queue the messages it held.
// A2Agent builds its parts in several modules (agent-table.ts,
// agent-queues.ts, ...), all in the agent's own scope with the IDs they
// always had; these are the IDs a deployed agent must keep across upgrades.
const STATEFUL = [
  'AWS::DynamoDB::Table',
  'AWS::SQS::Queue',
  'AWS::SecretsManager::Secret',
  'AWS::Scheduler::ScheduleGroup',
]

describe("an A2Agent's stateful resources", () => {
  it('keep their logical IDs, so an upgrade never replaces the event log, a queue or the session key', () => {
    const stack = new Stack(new App({ context: { 'aws:cdk:bundling-stacks': [] } }), 'S')
    new A2Agent(stack, 'Agent', { entry: 'functions/example-agent.ts' })
    const resources = templateOf(stack).template.toJSON().Resources as Record<
      string,
      { Type: string }
    >
    const stateful = Object.entries(resources)
      .filter(([, resource]) => STATEFUL.includes(resource.Type))
      .map(([logicalId]) => logicalId)
      .sort()
    expect(stateful).toEqual([
      'AgentAdmissionDeadLetterQueue79419627',
      'AgentAdmissionQueue08A414EF',
      'AgentGenerationDeadLetterQueueA3E2A8C1',
      'AgentGenerationQueue5CF61734',
      'AgentHandlersDeadLetterQueueF58358E8',
      'AgentHandlersQueue5B35F9A6',
      'AgentIngressDeadLetterQueue1BEB3715',
      'AgentIngressQueue8B8C1577',
      'AgentRouterFailureQueue4BD70A90',
      'AgentScheduleGroupB6AFB45C',
      'AgentSchedulerDeadLetterQueue05DF781C',
      'AgentSessionKey476C6169',
      'AgentTable90D3FA00',
      'AgentTimersDeadLetterQueueFE917E93',
      'AgentTimersQueue279E1C9F',
      'AgentToolsDeadLetterQueue8CEBA578',
      'AgentToolsQueue4F87A5F6',
    ])
  }, 60_000)
})
