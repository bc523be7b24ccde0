/** A logger that writes nothing: the pipeline handlers' tests read results, not lines. */
export const silent = { info: () => {}, warn: () => {}, error: () => {} }

/** The environment the construct would give the functions, with placeholder queues. */
export const environment = {
  tableName: 'events',
  queueUrls: { admission: 'a', generation: 'g', tools: 't', handlers: 'h' },
  ingressQueueUrl: 'i',
  timers: {
    queueUrl: 'tq',
    queueArn: 'arn:tq',
    scheduleGroup: 'group',
    schedulerRoleArn: 'arn:role',
    deadLetterQueueArn: 'arn:dlq',
  },
  agentExport: 'default',
  maxReceiveCount: 3,
}
