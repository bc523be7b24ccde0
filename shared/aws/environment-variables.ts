// No imports: the CDK construct reads these names at synth time.

/** The environment variables the construct sets on every function. */
export const ENVIRONMENT_VARIABLES = {
  tableName: 'A2_TABLE_NAME',
  admissionQueueUrl: 'A2_ADMISSION_QUEUE_URL',
  generationQueueUrl: 'A2_GENERATION_QUEUE_URL',
  toolsQueueUrl: 'A2_TOOLS_QUEUE_URL',
  handlersQueueUrl: 'A2_HANDLERS_QUEUE_URL',
  timerQueueUrl: 'A2_TIMER_QUEUE_URL',
  timerQueueArn: 'A2_TIMER_QUEUE_ARN',
  scheduleGroup: 'A2_SCHEDULE_GROUP',
  schedulerRoleArn: 'A2_SCHEDULER_ROLE_ARN',
  schedulerDeadLetterQueueArn: 'A2_SCHEDULER_DLQ_ARN',
  /** Optional: an AWS-compatible endpoint (the moto server, LocalStack). */
  endpoint: 'A2_AWS_ENDPOINT',
  /** Optional: the agent module's export (default `default`). */
  agentExport: 'A2_AGENT_EXPORT',
} as const
