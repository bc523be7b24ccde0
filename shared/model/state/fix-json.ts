// A port of the AI SDK's `fixJson` (ai/src/util/fix-json.ts): it closes a JSON
// text cut off mid-way so that it parses. `ai` does not export it (only the async
// `parsePartialJson` built on it), and the reducer must fold synchronously. The
// SDK's one big switch is split here into one step per scanner scope; the
// property tests in test/shared/model/state/partial-json.test.ts check it still
// agrees with the SDK's.

type Scope =
  | 'ROOT'
  | 'FINISH'
  | 'INSIDE_STRING'
  | 'INSIDE_STRING_ESCAPE'
  | 'INSIDE_STRING_UNICODE_ESCAPE'
  | 'INSIDE_LITERAL'
  | 'INSIDE_NUMBER'
  | 'INSIDE_OBJECT_START'
  | 'INSIDE_OBJECT_KEY'
  | 'INSIDE_OBJECT_AFTER_KEY'
  | 'INSIDE_OBJECT_BEFORE_VALUE'
  | 'INSIDE_OBJECT_AFTER_VALUE'
  | 'INSIDE_OBJECT_AFTER_COMMA'
  | 'INSIDE_ARRAY_START'
  | 'INSIDE_ARRAY_AFTER_VALUE'
  | 'INSIDE_ARRAY_AFTER_COMMA'

/** The scanner's state while it walks the text once, left to right. */
interface Scan {
  readonly input: string
  readonly stack: Scope[]
  /** The last index up to which the text is a valid prefix to close. */
  lastValidIndex: number
  literalStart: number
  unicodeEscapeDigits: number
}

type Step = (scan: Scan, char: string, i: number) => void

const isHexDigit = (char: string): boolean =>
  (char >= '0' && char <= '9') || (char >= 'A' && char <= 'F') || (char >= 'a' && char <= 'f')

const isDigit = (char: string): boolean => char >= '0' && char <= '9'

const LITERALS = ['true', 'false', 'null'] as const

const top = (scan: Scan): Scope | undefined => scan.stack[scan.stack.length - 1]

function replaceTop(scan: Scan, scope: Scope): void {
  scan.stack.pop()
  scan.stack.push(scope)
}

function processValueStart(scan: Scan, char: string, i: number, swapState: Scope): void {
  const enter = (scope: Scope, valid: boolean): void => {
    if (valid) scan.lastValidIndex = i
    replaceTop(scan, swapState)
    scan.stack.push(scope)
  }
  if (char === '"') enter('INSIDE_STRING', true)
  else if (char === 'f' || char === 't' || char === 'n') {
    scan.literalStart = i
    enter('INSIDE_LITERAL', true)
  } else if (char === '-') enter('INSIDE_NUMBER', false)
  else if (isDigit(char)) enter('INSIDE_NUMBER', true)
  else if (char === '{') enter('INSIDE_OBJECT_START', true)
  else if (char === '[') enter('INSIDE_ARRAY_START', true)
}

function processAfterObjectValue(scan: Scan, char: string, i: number): void {
  if (char === ',') replaceTop(scan, 'INSIDE_OBJECT_AFTER_COMMA')
  else if (char === '}') {
    scan.lastValidIndex = i
    scan.stack.pop()
  }
}

function processAfterArrayValue(scan: Scan, char: string, i: number): void {
  if (char === ',') replaceTop(scan, 'INSIDE_ARRAY_AFTER_COMMA')
  else if (char === ']') {
    scan.lastValidIndex = i
    scan.stack.pop()
  }
}

/** A step that only moves on to `next` when it meets `expected`. */
const moveOnAt =
  (expected: string, next: Scope): Step =>
  (scan, char) => {
    if (char === expected) replaceTop(scan, next)
  }

const stepObjectStart: Step = (scan, char, i) => {
  if (char === '"') replaceTop(scan, 'INSIDE_OBJECT_KEY')
  else if (char === '}') {
    scan.lastValidIndex = i
    scan.stack.pop()
  }
}

const stepString: Step = (scan, char, i) => {
  if (char === '"') {
    scan.stack.pop()
    scan.lastValidIndex = i
  } else if (char === '\\') scan.stack.push('INSIDE_STRING_ESCAPE')
  else scan.lastValidIndex = i
}

const stepArrayStart: Step = (scan, char, i) => {
  if (char === ']') {
    scan.lastValidIndex = i
    scan.stack.pop()
  } else processValueStart(scan, char, i, 'INSIDE_ARRAY_AFTER_VALUE')
}

const stepArrayAfterValue: Step = (scan, char, i) => {
  if (char === ',') replaceTop(scan, 'INSIDE_ARRAY_AFTER_COMMA')
  else if (char === ']') {
    scan.lastValidIndex = i
    scan.stack.pop()
  } else scan.lastValidIndex = i
}

const stepStringEscape: Step = (scan, char, i) => {
  scan.stack.pop()
  if (char === 'u') {
    scan.unicodeEscapeDigits = 0
    scan.stack.push('INSIDE_STRING_UNICODE_ESCAPE')
  } else scan.lastValidIndex = i
}

const stepUnicodeEscape: Step = (scan, char, i) => {
  if (!isHexDigit(char)) return
  scan.unicodeEscapeDigits++
  if (scan.unicodeEscapeDigits === 4) {
    scan.stack.pop()
    scan.lastValidIndex = i
  }
}

const stepNumber: Step = (scan, char, i) => {
  if (isDigit(char)) scan.lastValidIndex = i
  else if (char === 'e' || char === 'E' || char === '-' || char === '.') {
    // still inside the number, but not yet a valid end
  } else if (char === ',') {
    scan.stack.pop()
    if (top(scan) === 'INSIDE_ARRAY_AFTER_VALUE') processAfterArrayValue(scan, char, i)
    if (top(scan) === 'INSIDE_OBJECT_AFTER_VALUE') processAfterObjectValue(scan, char, i)
  } else if (char === '}') {
    scan.stack.pop()
    if (top(scan) === 'INSIDE_OBJECT_AFTER_VALUE') processAfterObjectValue(scan, char, i)
  } else if (char === ']') {
    scan.stack.pop()
    if (top(scan) === 'INSIDE_ARRAY_AFTER_VALUE') processAfterArrayValue(scan, char, i)
  } else scan.stack.pop()
}

const stepLiteral: Step = (scan, char, i) => {
  const partialLiteral = scan.input.substring(scan.literalStart, i + 1)
  if (LITERALS.some((literal) => literal.startsWith(partialLiteral))) {
    scan.lastValidIndex = i
    return
  }
  scan.stack.pop()
  if (top(scan) === 'INSIDE_OBJECT_AFTER_VALUE') processAfterObjectValue(scan, char, i)
  else if (top(scan) === 'INSIDE_ARRAY_AFTER_VALUE') processAfterArrayValue(scan, char, i)
}

const STEPS: Record<Scope, Step> = {
  ROOT: (scan, char, i) => processValueStart(scan, char, i, 'FINISH'),
  FINISH: () => {},
  INSIDE_OBJECT_START: stepObjectStart,
  INSIDE_OBJECT_AFTER_COMMA: moveOnAt('"', 'INSIDE_OBJECT_KEY'),
  INSIDE_OBJECT_KEY: moveOnAt('"', 'INSIDE_OBJECT_AFTER_KEY'),
  INSIDE_OBJECT_AFTER_KEY: moveOnAt(':', 'INSIDE_OBJECT_BEFORE_VALUE'),
  INSIDE_OBJECT_BEFORE_VALUE: (scan, char, i) =>
    processValueStart(scan, char, i, 'INSIDE_OBJECT_AFTER_VALUE'),
  INSIDE_OBJECT_AFTER_VALUE: processAfterObjectValue,
  INSIDE_STRING: stepString,
  INSIDE_ARRAY_START: stepArrayStart,
  INSIDE_ARRAY_AFTER_VALUE: stepArrayAfterValue,
  INSIDE_ARRAY_AFTER_COMMA: (scan, char, i) =>
    processValueStart(scan, char, i, 'INSIDE_ARRAY_AFTER_VALUE'),
  INSIDE_STRING_ESCAPE: stepStringEscape,
  INSIDE_STRING_UNICODE_ESCAPE: stepUnicodeEscape,
  INSIDE_NUMBER: stepNumber,
  INSIDE_LITERAL: stepLiteral,
}

/** What closes a scope still open when the text ends. */
function closing(scope: Scope, scan: Scan): string {
  switch (scope) {
    case 'INSIDE_STRING':
      return '"'
    case 'INSIDE_OBJECT_KEY':
    case 'INSIDE_OBJECT_AFTER_KEY':
    case 'INSIDE_OBJECT_AFTER_COMMA':
    case 'INSIDE_OBJECT_START':
    case 'INSIDE_OBJECT_BEFORE_VALUE':
    case 'INSIDE_OBJECT_AFTER_VALUE':
      return '}'
    case 'INSIDE_ARRAY_START':
    case 'INSIDE_ARRAY_AFTER_COMMA':
    case 'INSIDE_ARRAY_AFTER_VALUE':
      return ']'
    case 'INSIDE_LITERAL': {
      const partialLiteral = scan.input.substring(scan.literalStart, scan.input.length)
      const literal = LITERALS.find((candidate) => candidate.startsWith(partialLiteral))
      return literal === undefined ? '' : literal.slice(partialLiteral.length)
    }
    default:
      return ''
  }
}

/**
 * Closes a JSON text cut off mid-way: keeps its longest valid prefix and
 * appends what closes every scope still open.
 *
 * @example
 * fixJson('{"city":"Ber') // '{"city":"Ber"}'
 */
export function fixJson(input: string): string {
  const scan: Scan = {
    input,
    stack: ['ROOT'],
    lastValidIndex: -1,
    literalStart: 0,
    unicodeEscapeDigits: 0,
  }
  for (let i = 0; i < input.length; i++) {
    const scope = top(scan)
    if (scope !== undefined) STEPS[scope](scan, input[i] as string, i)
  }
  const closings = [...scan.stack].reverse().map((scope) => closing(scope, scan))
  return input.slice(0, scan.lastValidIndex + 1) + closings.join('')
}
