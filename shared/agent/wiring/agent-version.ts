import { asSchema, type Tool, type ToolSet } from 'ai'
import { z } from 'zod'
import { canonicalJson } from '../../log/canonical-json.ts'
import type { Contract } from '../../log/contract.ts'
import { idHash } from '../../log/id-hash.ts'
import { A2_PACKAGE_VERSION } from '../../log/package-version.ts'
import { type EventDefinition, schemaOf, versionOf } from '../../log/versioned-event.ts'
import { AI_STATE_REDUCER } from '../../model/state/ai-state-reducer.ts'

/** What an agent's derived version is a digest of: everything that changes how stored sessions are read and run. */
export interface VersionParts {
  tools: ToolSet
  contract?: Pick<Contract, 'name' | 'events' | 'reducer'>
  handledTypes: Iterable<string>
  toolRecovery: (toolName: string) => 'rerun' | 'report'
  serialTools: boolean
  /** Which tools wait for a user's approval (`harness.generation.toolApproval`). */
  toolApproval: Readonly<Record<string, unknown>>
  harness: string
}

/**
 * An agent's version: the one it is given (`agent({ version })`: a release
 * tag, a commit), or a digest of what decides how its stored sessions are
 * read and run: its tools (names, input schemas, whether they execute or
 * ask for approval, their recovery), its contract (events and their
 * schemas, the reducer's name), the event types its handlers handle, its
 * harness, the AI state reducer and this package's version. The model and
 * the instructions are left out on purpose: a new prompt changes answers,
 * not what a stored session means. Two processes with the same code get
 * the same version, so the log can say which code ran each step.
 */
export function agentVersion(given: string | undefined, parts: VersionParts): string {
  if (given !== undefined) return checkedVersion(given)
  const manifest = {
    a2: A2_PACKAGE_VERSION,
    reducer: AI_STATE_REDUCER.name,
    harness: parts.harness,
    serialTools: parts.serialTools,
    tools: Object.keys(parts.tools)
      .sort()
      .map((name) => [
        name,
        toolShape(parts.tools[name] as Tool, parts.toolRecovery(name)),
        policyShape(parts.toolApproval[name]),
      ]),
    contract: parts.contract && {
      name: parts.contract.name,
      reducer: parts.contract.reducer?.name ?? null,
      events: Object.keys(parts.contract.events)
        .sort()
        .map((type) => [type, eventShape(parts.contract?.events[type] as EventDefinition)]),
    },
    handlers: [...parts.handledTypes].sort(),
  }
  return idHash(canonicalJson(manifest), 'hex', 6)
}

/** A version goes into every step's start event and into metric dimensions: short and plain. */
const MAX_VERSION_LENGTH = 64
const printable = /^[\x21-\x7e]+$/

function checkedVersion(version: string): string {
  if (version.length === 0 || version.length > MAX_VERSION_LENGTH || !printable.test(version)) {
    throw new TypeError(
      `agent({ version: ${JSON.stringify(version).slice(0, 80)} }): a version is 1 to ${MAX_VERSION_LENGTH} printable ASCII characters without spaces (a release tag, a commit)`,
    )
  }
  return version
}

function toolShape(tool: Tool, recovery: 'rerun' | 'report'): unknown {
  const { type = 'function' } = tool as { type?: string }
  return {
    type,
    ...(type === 'provider' ? { id: (tool as { id?: string }).id ?? null } : {}),
    input: tool.inputSchema === undefined ? null : jsonSchemaOf(tool.inputSchema),
    execute: typeof tool.execute === 'function',
    approval: typeof tool.needsApproval === 'function' ? 'decided' : (tool.needsApproval ?? false),
    recovery,
  }
}

/**
 * A tool's input schema as JSON Schema. A lazy schema (a promise) cannot be
 * read while the agent is made: it counts by its presence only, so a change
 * to it needs a given `version`.
 */
function jsonSchemaOf(schema: NonNullable<Tool['inputSchema']>): unknown {
  try {
    const json = asSchema(schema).jsonSchema
    return typeof (json as PromiseLike<unknown>).then === 'function' ? 'lazy' : json
  } catch {
    return 'unreadable'
  }
}

const policyShape = (policy: unknown): unknown =>
  typeof policy === 'function' ? 'decided' : (policy ?? null)

/**
 * An event type's current schema, and its version when above 1 (a plain
 * schema's shape is what it was before versions, so its digest stays).
 */
function eventShape(definition: EventDefinition): unknown {
  const version = versionOf(definition)
  const schema = schemaShape(schemaOf(definition))
  return version === 1 ? schema : { version, schema }
}

function schemaShape(schema: unknown): unknown {
  try {
    return z.toJSONSchema(schema as z.ZodType, { unrepresentable: 'any' })
  } catch {
    return 'unreadable'
  }
}
