/**
 * A lane spec that did not hold: its message says what differs, event by
 * event. `expected` and `actual` (with `showDiff`) are the fields test
 * runners (vitest, mocha, jest) read to show a diff of their own beside it.
 */
export class LaneSpecFailure extends Error {
  readonly expected: unknown
  readonly actual: unknown
  readonly showDiff: boolean

  constructor(message: string, sides?: { expected: unknown; actual: unknown }) {
    super(message)
    this.name = 'LaneSpecFailure'
    this.expected = sides?.expected
    this.actual = sides?.actual
    this.showDiff = sides !== undefined
  }
}
