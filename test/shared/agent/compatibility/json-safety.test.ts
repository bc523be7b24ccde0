import { describe, expect, it } from 'vitest'
import { jsonSafetyIssue } from '../../../../shared/agent/compatibility/json-safety.ts'

describe('jsonSafetyIssue: where a state would not come back the same from JSON', () => {
  it('finds nothing in plain JSON, nor in a property set to undefined (it reads back absent)', () => {
    expect(jsonSafetyIssue({ a: [1, 'x', null, { b: true }], gone: undefined }, 'app')).toBe(
      undefined,
    )
    const shared = { n: 1 }
    // The same object twice is no cycle: JSON writes it twice.
    expect(jsonSafetyIssue({ x: shared, y: shared }, 'app')).toBe(undefined)
  })

  it('names the first path and what is there', () => {
    const cyclic: Record<string, unknown> = {}
    cyclic.self = cyclic
    const cases: [unknown, { path: string; what: string }][] = [
      [{ seen: new Set() }, { path: 'app.seen', what: 'a Set' }],
      [{ at: new Date(0) }, { path: 'app.at', what: 'a Date' }],
      [{ list: [1, Number.NaN] }, { path: 'app.list.1', what: 'NaN' }],
      [{ list: [undefined] }, { path: 'app.list.0', what: 'undefined' }],
      [{ f: () => 1 }, { path: 'app.f', what: 'a function' }],
      [{ big: 1n }, { path: 'app.big', what: 'a bigint' }],
      [cyclic, { path: 'app.self', what: 'a cycle' }],
    ]
    for (const [state, issue] of cases) expect(jsonSafetyIssue(state, 'app')).toEqual(issue)
  })
})
