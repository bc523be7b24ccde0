import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'
import packageJson from '../../package.json' with { type: 'json' }
import { packagesLoadedBy } from '../support/runtime-imports.ts'

// Each entry point's surface, written out: a new export (or a lost one) is a
// deliberate change to this list. `values` are what `import()` returns,
// `types` what only TypeScript sees.
const ENTRIES: Record<string, { values: string[]; types: string[] }> = {
  'a2-aws': {
    values: [
      'AppendConflictError',
      'AppendContendedError',
      'BatchTooLargeError',
      'ClaimHeldError',
      'CursorConflictError',
      'EraseContendedError',
      'ERASED_ITEM_KINDS',
      'DEFAULT_CAPABILITY_TTL_SECONDS',
      'EventTooLargeError',
      'FencedOutError',
      'HttpError',
      'InvalidEventError',
      'InvalidExportError',
      'InvalidSessionIdError',
      'LifeEndedError',
      'MAX_APPEND_BYTES',
      'MAX_EVENTS_PER_APPEND',
      'MAX_EVENT_BYTES',
      'MAX_PAYLOAD_DEPTH',
      'PartialDuplicateBatchError',
      'ReservedEventIdError',
      'SessionActiveError',
      'SessionNotEmptyError',
      'UpcastError',
      'allOf',
      'claimKeyOfLife',
      'contract',
      'eventLog',
      'exportSession',
      'foldEvents',
      'hasA2Code',
      'importSession',
      'logEndpoint',
      'memoryEventStore',
      'parseSessionExport',
      'sessionCapability',
      'upcastEvent',
      'versionedEvent',
    ],
    types: [
      'A2Code',
      'A2ErrorCode',
      'AppendOptions',
      'AppendResult',
      'Authenticate',
      'Authorize',
      'CapabilityKey',
      'Claim',
      'ClaimOptions',
      'Contract',
      'ContractDefinition',
      'ContractEvent',
      'ContractEventInput',
      'ContractEvents',
      'EraseReceipt',
      'EventInput',
      'EventLog',
      'EventLogOptions',
      'EventStore',
      'ExportOptions',
      'ExportedSnapshot',
      'FetchOptions',
      'HttpErrorCode',
      'ImportOptions',
      'LogEndpointOptions',
      'MemoryEventStoreOptions',
      'NewEvent',
      'OpenedSession',
      'Operation',
      'Principal',
      'ReadOptions',
      'RestingHead',
      'Reducer',
      'SessionAppendOptions',
      'SessionCapability',
      'SessionCapabilityOptions',
      'SessionLog',
      'StateSnapshot',
      'StoredEvent',
      'StoredSnapshot',
      'TailOptions',
      'UpcastContract',
      'Upcaster',
      'Upcasters',
      'VersionedEvent',
      'EventDefinition',
      'EventSchemaOf',
    ],
  },
  'a2-aws/ai': {
    values: [
      'AI_STATE_REDUCER',
      'IndexOutOfRangeError',
      'agentContract',
      'claimKeysToRead',
      'deriveUIMessages',
      'diagnose',
      'diffAt',
      'diffStates',
      'handlerContext',
      'headOf',
      'idempotentId',
      'initialAIState',
      'inputs',
      'isCompactionPart',
      'optimisticAIState',
      'reasoningLevels',
      'reduceAIState',
      'stateAt',
      'statesByIndex',
      'stoppedUnanswered',
      'timeline',
      'turnAwaits',
      'versionedEvent',
    ],
    types: [
      'AIEvent',
      'AIEventInput',
      'AIEventPayload',
      'AIEventType',
      'AIState',
      'ActiveGeneration',
      'ActiveTurn',
      'AgentContract',
      'AgentContractDefinition',
      'AgentState',
      'AwaitedWork',
      'ClaimView',
      'CommandOptions',
      'CommandReceipt',
      'CompactionData',
      'CompactionPart',
      'CompactionState',
      'CompactionStatus',
      'ControlAction',
      'ControlChange',
      'ControlCommand',
      'ControlCommandInput',
      'ControlRequest',
      'DiagnoseOptions',
      'Diagnosis',
      'EventAuthor',
      'HandlerContext',
      'HandlerSession',
      'InboxItem',
      'ModelMetadata',
      'ModelSettings',
      'NoAIStateKeys',
      'PendingApproval',
      'PendingCommand',
      'PendingInput',
      'ReasoningLevel',
      'RejectionReason',
      'RequestedGeneration',
      'SessionStatus',
      'StateChange',
      'TimelineLine',
      'TimerWhen',
      'ToolRecord',
      'ToolStatus',
      'TranscriptMessage',
      'TurnPhase',
      'Wait',
      'EventDefinition',
      'Upcaster',
      'Upcasters',
      'VersionedEvent',
    ],
  },
  'a2-aws/ai/server': {
    values: [
      'AGENT_METRICS',
      'HarnessNotImportedError',
      'HarnessUnavailableError',
      'StepResultTooLargeError',
      'TimerConflictError',
      'UnknownHarnessError',
      'agent',
      'localVersions',
      'runWithHandlerContext',
    ],
    types: [
      'Agent',
      'AgentEraseReceipt',
      'AgentFetchOptions',
      'AgentMetric',
      'AgentMetrics',
      'AgentOptions',
      'AgentRuntime',
      'AiSdkHarnessOptions',
      'AgentSession',
      'SessionOptions',
      'Dispatcher',
      'EraseOptions',
      'GenerateContext',
      'GenerationSettings',
      'Harness',
      'HarnessAdapter',
      'HarnessApprovalDecision',
      'HarnessApprovalRequest',
      'HarnessApprovals',
      'HarnessOptions',
      'HarnessSettings',
      'HarnessStep',
      'HarnessStepContext',
      'Lane',
      'MessageMetadataContext',
      'ModelChoice',
      'ResolvedModel',
      'ResolverContext',
      'RetryPolicy',
      'RoutedRuntime',
      'RunOptions',
      'Scheduler',
      'Timer',
      'Timers',
      'ToolApprovalPolicy',
      'VersionPolicy',
      'VersionRoutes',
      'WakeUp',
    ],
  },
  'a2-aws/ai/client': {
    values: [
      'AgentChatTransport',
      'AgentClientError',
      'DEFAULT_GC_TIME_MS',
      'DEFAULT_IDLE_CHECK_MS',
      'WIRE_PROTOCOL',
      'createAgentClient',
      'hasA2Code',
      'messageChunks',
    ],
    types: [
      'A2Code',
      'AgentActions',
      'AgentChatTransportOptions',
      'AgentClient',
      'AgentClientErrorCode',
      'AgentClientOptions',
      'AgentIndicator',
      'AgentLike',
      'AgentSnapshot',
      'AgentStage',
      'AgentStatus',
      'ApprovalRef',
      'BackoffOptions',
      'ClientSession',
      'ConnectionStatus',
      'ContractLike',
      'HeadersOption',
      'MessageOf',
      'PushResult',
      'ReloadReason',
      'ServerVersions',
      'SessionToken',
    ],
  },
  'a2-aws/ai/react': {
    values: ['useAgent'],
    types: [
      'AgentActions',
      'AgentIndicator',
      'AgentSnapshot',
      'AgentStage',
      'AgentStatus',
      'PushResult',
      'UseAgentResult',
    ],
  },
  // Pi's and FX's loops, each behind its own entry: a2-aws/ai/server loads neither.
  'a2-aws/harness/pi': {
    values: ['piHarness'],
    types: ['PiContent', 'PiHarnessOptions', 'PiMessage', 'PiTool', 'PiToolResult'],
  },
  'a2-aws/harness/fx': { values: ['fxHarness'], types: ['FxHarnessOptions'] },
  'a2-aws/aws': {
    values: [
      'awsAgentParts',
      'createEventLogTable',
      'dynamoDBEventStore',
      'eventBridgeScheduler',
      'sendInputs',
      'sqsDispatcher',
    ],
    types: [
      'AwsAgentParts',
      'AwsClients',
      'AwsEnvironment',
      'DynamoDBEventStoreOptions',
      'EventBridgeSchedulerOptions',
      'IngressMessage',
      'LaneQueueUrls',
      'PipelineErrorCode',
      'SqsDispatcherOptions',
    ],
  },
  'a2-aws/cdk': {
    values: ['A2Agent', 'A2ChatPage', 'INFERENCE_PROFILE_REGIONS'],
    types: [
      'A2AgentAlarmsProps',
      'A2AgentAuth',
      'A2AgentProps',
      'A2ChatPageProps',
      'AgentFunctionName',
      'AgentSecret',
      'BedrockModel',
      'LaneName',
      'SecretSource',
      'TimedFunction',
    ],
  },
  'a2-aws/node': {
    values: [
      'HostUnavailableError',
      'InvalidPortError',
      'PortInUseError',
      'serveAgent',
      'serveFetch',
    ],
    types: [
      'LocalServer',
      'ServableAgent',
      'ServeAgentOptions',
      'ServeErrorCode',
      'ServeFetchOptions',
    ],
  },
  // Loaded for its check alone (`node --import a2-aws/check-node src/server.ts`).
  'a2-aws/check-node': { values: [], types: [] },
  'a2-aws/test': {
    values: [
      'CrashError',
      'FAULT_KINDS',
      'FakeSession',
      'LaneSpecFailure',
      'TURN_KINDS',
      'USER_AGENT_TURN_KINDS',
      'bedrockDouble',
      'checkSessionCompatibility',
      'checkSessions',
      'crashPoints',
      'describeEventStoreConformance',
      'describeHarnessConformance',
      'describeFailure',
      'effectLedger',
      'expectCrashSafe',
      'formatCompatibilityReport',
      'gatewayDouble',
      'gatewaySubject',
      'laneSpec',
      'lastUserText',
      'reasoning',
      'replayCommand',
      'scriptedModel',
      'scriptedSubject',
      'sessionFromExport',
      'shrink',
      'simulate',
      'storeSessions',
      'text',
      'toolCalls',
      'unversionedProvider',
      'v2Model',
    ],
    types: [
      'BedrockCall',
      'BedrockDouble',
      'BedrockDoubleCredentials',
      'BedrockDoubleOptions',
      'CatalogModel',
      'CheckSessionsOptions',
      'CheckedAgent',
      'CheckedContract',
      'CheckedSession',
      'CompatibilityFinding',
      'CompatibilityFindingKind',
      'CompatibilityReport',
      'ConformanceTestApi',
      'ConversationAction',
      'ConverseContentBlock',
      'ConverseRequest',
      'CrashFailure',
      'CrashPointsOptions',
      'CrashPointsReport',
      'CrashTestAgent',
      'DeepPartial',
      'EffectLedger',
      'EventStoreConformanceOptions',
      'EventStoreFeature',
      'EventStoreHarness',
      'ExpectedAppend',
      'FakeSessionOptions',
      'FaultKind',
      'GatewayDouble',
      'GatewayDoubleOptions',
      'GivenEvent',
      'HarnessConformanceOptions',
      'HarnessSetUp',
      'HarnessSubject',
      'HarnessUnderTest',
      'LaneRun',
      'LaneSpec',
      'LaneSpecOptions',
      'LaneSpecThen',
      'LaneSpecWhen',
      'NamedSnapshot',
      'PushOutcome',
      'ModelCall',
      'ScriptedModel',
      'Script',
      'SessionCompatibility',
      'SessionFailure',
      'SimModelCall',
      'SimulatedAgent',
      'SimulatedAgentOptions',
      'SimulatedStore',
      'SimulationOptions',
      'SimulationReport',
      'SpecWakeUp',
      'Step',
      'TraceLine',
      'TurnKind',
      'UnversionedProvider',
      'V2Model',
    ],
  },
}

import { repoRoot as root } from '../support/repo-root.ts'

const exportsMap = packageJson.exports as Record<string, string | { 'a2-source'?: string }>
const sourceOf = (entry: string): string => {
  const target = exportsMap[`.${entry.slice('a2-aws'.length)}`]
  if (typeof target !== 'object' || !target['a2-source']) throw new Error(`no source for ${entry}`)
  return join(root, target['a2-source'])
}

/** An entry's exported names as written: each `export { ... } from` clause, types marked. */
function declaredExports(file: string): { values: string[]; types: string[]; star: boolean } {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest)
  const found = { values: [] as string[], types: [] as string[], star: false }
  for (const statement of source.statements) {
    if (!ts.isExportDeclaration(statement)) continue
    const clause = statement.exportClause
    if (!clause || !ts.isNamedExports(clause)) {
      found.star = true
      continue
    }
    for (const element of clause.elements) {
      const type = statement.isTypeOnly || element.isTypeOnly
      ;(type ? found.types : found.values).push(element.name.text)
    }
  }
  return found
}

const sorted = (names: string[]): string[] => [...names].sort()

describe('the entry points', () => {
  it('are the ones package.json exports, each with its source built from its a2-source', () => {
    expect(
      Object.keys(exportsMap)
        .filter((key) => key !== './package.json')
        .map((key) => `a2-aws${key.slice(1)}`)
        .sort(),
    ).toEqual(Object.keys(ENTRIES).sort())
  })

  for (const [entry, expected] of Object.entries(ENTRIES)) {
    it(`${entry} exports exactly its written list of values`, async () => {
      const module = (await import(/* @vite-ignore */ entry)) as Record<string, unknown>
      expect(Object.keys(module).sort()).toEqual(sorted(expected.values))
    })

    it(`${entry} declares exactly its written list of values and types, with no export *`, () => {
      const declared = declaredExports(sourceOf(entry))
      expect(declared.star).toBe(false)
      expect(sorted(declared.values)).toEqual(sorted(expected.values))
      expect(sorted(declared.types)).toEqual(sorted(expected.types))
    })
  }

  it('a2-aws/ai/server, a2-aws, a2-aws/ai, the clients and a2-aws/test load no AWS SDK when imported', () => {
    for (const entry of [
      'a2-aws/ai/server',
      'a2-aws',
      'a2-aws/ai',
      'a2-aws/ai/client',
      'a2-aws/ai/react',
      'a2-aws/node',
      'a2-aws/test',
    ]) {
      const sdk = [...packagesLoadedBy(sourceOf(entry))].filter((name) =>
        name.startsWith('@aws-sdk/'),
      )
      expect(sdk, entry).toEqual([])
    }
    // Six module graphs walked: seconds on a busy machine.
  }, 30_000)

  it("only a2-aws/harness/fx loads node:child_process, and no entry loads Pi's or the ACP packages when imported: the harnesses are behind their own entries", () => {
    const loaded = Object.fromEntries(
      Object.keys(ENTRIES).map((entry) => [
        entry,
        [...packagesLoadedBy(sourceOf(entry))].filter(
          (name) =>
            name === 'node:child_process' ||
            name.startsWith('@mariozechner/') ||
            name.startsWith('@agentclientprotocol/'),
        ),
      ]),
    )
    expect(loaded).toEqual(
      Object.fromEntries(
        Object.keys(ENTRIES).map((entry) => [
          entry,
          entry === 'a2-aws/harness/fx' ? ['node:child_process'] : [],
        ]),
      ),
    )
    // Every entry's module graph walked: seconds on a busy machine.
  }, 30_000)

  it('a2-aws/test loads no test runner when imported: vitest is an optional peer', () => {
    const runners = [...packagesLoadedBy(sourceOf('a2-aws/test'))].filter((name) =>
      ['vitest', '@vitest/expect', 'jest', 'mocha'].includes(name),
    )
    expect(runners).toEqual([])
  })

  it('a2-aws/cdk loads no AWS SDK client at synth: the construct imports constants, not adapters', () => {
    const sdk = [...packagesLoadedBy(sourceOf('a2-aws/cdk'))].filter((name) =>
      name.startsWith('@aws-sdk/'),
    )
    expect(sdk).toEqual([])
  })

  it('a2-aws/check-node loads nothing, so a Node too old for the rest of the package runs it', () => {
    expect([...packagesLoadedBy(sourceOf('a2-aws/check-node'))]).toEqual([])
  })

  it('the browser entries (a2-aws/ai, a2-aws/ai/client, a2-aws/ai/react) load no Node module', () => {
    for (const entry of ['a2-aws/ai', 'a2-aws/ai/client', 'a2-aws/ai/react']) {
      const node = [...packagesLoadedBy(sourceOf(entry))].filter((name) => name.startsWith('node:'))
      expect(node, entry).toEqual([])
    }
  })
})
