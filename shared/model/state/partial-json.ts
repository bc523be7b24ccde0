import { secureJsonParse } from '@ai-sdk/provider-utils'

// `ai` exports `parsePartialJson` only as an async function, and the reducer
// must fold synchronously. This is a port of the SDK's `fixJson`
// (ai/src/util/fix-json.ts) plus the same parse-then-repair order, checked
// against the SDK's own `parsePartialJson` by a property test
// (test/shared/model/state/partial-json.test.ts), so an input-streaming tool part carries the
// same best-effort `input` that `useChat` shows.

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

const isHexDigit = (char: string): boolean =>
  (char >= '0' && char <= '9') || (char >= 'A' && char <= 'F') || (char >= 'a' && char <= 'f')

const isDigit = (char: string): boolean => char >= '0' && char <= '9'

function fixJson(input: string): string {
  const stack: Scope[] = ['ROOT']
  let lastValidIndex = -1
  let literalStart = 0
  let unicodeEscapeDigits = 0
  const top = (): Scope | undefined => stack[stack.length - 1]

  function processValueStart(char: string, i: number, swapState: Scope): void {
    const enter = (scope: Scope, valid: boolean): void => {
      if (valid) lastValidIndex = i
      stack.pop()
      stack.push(swapState)
      stack.push(scope)
    }
    if (char === '"') enter('INSIDE_STRING', true)
    else if (char === 'f' || char === 't' || char === 'n') {
      literalStart = i
      enter('INSIDE_LITERAL', true)
    } else if (char === '-') enter('INSIDE_NUMBER', false)
    else if (isDigit(char)) enter('INSIDE_NUMBER', true)
    else if (char === '{') enter('INSIDE_OBJECT_START', true)
    else if (char === '[') enter('INSIDE_ARRAY_START', true)
  }

  function processAfterObjectValue(char: string, i: number): void {
    if (char === ',') {
      stack.pop()
      stack.push('INSIDE_OBJECT_AFTER_COMMA')
    } else if (char === '}') {
      lastValidIndex = i
      stack.pop()
    }
  }

  function processAfterArrayValue(char: string, i: number): void {
    if (char === ',') {
      stack.pop()
      stack.push('INSIDE_ARRAY_AFTER_COMMA')
    } else if (char === ']') {
      lastValidIndex = i
      stack.pop()
    }
  }

  for (let i = 0; i < input.length; i++) {
    const char = input[i] as string
    switch (top()) {
      case 'ROOT':
        processValueStart(char, i, 'FINISH')
        break
      case 'INSIDE_OBJECT_START':
        if (char === '"') {
          stack.pop()
          stack.push('INSIDE_OBJECT_KEY')
        } else if (char === '}') {
          lastValidIndex = i
          stack.pop()
        }
        break
      case 'INSIDE_OBJECT_AFTER_COMMA':
        if (char === '"') {
          stack.pop()
          stack.push('INSIDE_OBJECT_KEY')
        }
        break
      case 'INSIDE_OBJECT_KEY':
        if (char === '"') {
          stack.pop()
          stack.push('INSIDE_OBJECT_AFTER_KEY')
        }
        break
      case 'INSIDE_OBJECT_AFTER_KEY':
        if (char === ':') {
          stack.pop()
          stack.push('INSIDE_OBJECT_BEFORE_VALUE')
        }
        break
      case 'INSIDE_OBJECT_BEFORE_VALUE':
        processValueStart(char, i, 'INSIDE_OBJECT_AFTER_VALUE')
        break
      case 'INSIDE_OBJECT_AFTER_VALUE':
        processAfterObjectValue(char, i)
        break
      case 'INSIDE_STRING':
        if (char === '"') {
          stack.pop()
          lastValidIndex = i
        } else if (char === '\\') stack.push('INSIDE_STRING_ESCAPE')
        else lastValidIndex = i
        break
      case 'INSIDE_ARRAY_START':
        if (char === ']') {
          lastValidIndex = i
          stack.pop()
        } else processValueStart(char, i, 'INSIDE_ARRAY_AFTER_VALUE')
        break
      case 'INSIDE_ARRAY_AFTER_VALUE':
        if (char === ',') {
          stack.pop()
          stack.push('INSIDE_ARRAY_AFTER_COMMA')
        } else if (char === ']') {
          lastValidIndex = i
          stack.pop()
        } else lastValidIndex = i
        break
      case 'INSIDE_ARRAY_AFTER_COMMA':
        processValueStart(char, i, 'INSIDE_ARRAY_AFTER_VALUE')
        break
      case 'INSIDE_STRING_ESCAPE':
        stack.pop()
        if (char === 'u') {
          unicodeEscapeDigits = 0
          stack.push('INSIDE_STRING_UNICODE_ESCAPE')
        } else lastValidIndex = i
        break
      case 'INSIDE_STRING_UNICODE_ESCAPE':
        if (isHexDigit(char)) {
          unicodeEscapeDigits++
          if (unicodeEscapeDigits === 4) {
            stack.pop()
            lastValidIndex = i
          }
        }
        break
      case 'INSIDE_NUMBER':
        if (isDigit(char)) lastValidIndex = i
        else if (char === 'e' || char === 'E' || char === '-' || char === '.') {
          // still inside the number, but not yet a valid end
        } else if (char === ',') {
          stack.pop()
          if (top() === 'INSIDE_ARRAY_AFTER_VALUE') processAfterArrayValue(char, i)
          if (top() === 'INSIDE_OBJECT_AFTER_VALUE') processAfterObjectValue(char, i)
        } else if (char === '}') {
          stack.pop()
          if (top() === 'INSIDE_OBJECT_AFTER_VALUE') processAfterObjectValue(char, i)
        } else if (char === ']') {
          stack.pop()
          if (top() === 'INSIDE_ARRAY_AFTER_VALUE') processAfterArrayValue(char, i)
        } else stack.pop()
        break
      case 'INSIDE_LITERAL': {
        const partialLiteral = input.substring(literalStart, i + 1)
        if (
          !'false'.startsWith(partialLiteral) &&
          !'true'.startsWith(partialLiteral) &&
          !'null'.startsWith(partialLiteral)
        ) {
          stack.pop()
          if (top() === 'INSIDE_OBJECT_AFTER_VALUE') processAfterObjectValue(char, i)
          else if (top() === 'INSIDE_ARRAY_AFTER_VALUE') processAfterArrayValue(char, i)
        } else lastValidIndex = i
        break
      }
    }
  }

  let result = input.slice(0, lastValidIndex + 1)
  for (let i = stack.length - 1; i >= 0; i--) {
    switch (stack[i]) {
      case 'INSIDE_STRING':
        result += '"'
        break
      case 'INSIDE_OBJECT_KEY':
      case 'INSIDE_OBJECT_AFTER_KEY':
      case 'INSIDE_OBJECT_AFTER_COMMA':
      case 'INSIDE_OBJECT_START':
      case 'INSIDE_OBJECT_BEFORE_VALUE':
      case 'INSIDE_OBJECT_AFTER_VALUE':
        result += '}'
        break
      case 'INSIDE_ARRAY_START':
      case 'INSIDE_ARRAY_AFTER_COMMA':
      case 'INSIDE_ARRAY_AFTER_VALUE':
        result += ']'
        break
      case 'INSIDE_LITERAL': {
        const partialLiteral = input.substring(literalStart, input.length)
        if ('true'.startsWith(partialLiteral)) result += 'true'.slice(partialLiteral.length)
        else if ('false'.startsWith(partialLiteral)) result += 'false'.slice(partialLiteral.length)
        else if ('null'.startsWith(partialLiteral)) result += 'null'.slice(partialLiteral.length)
      }
    }
  }
  return result
}

function tryParse(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: secureJsonParse(text) }
  } catch {
    return { ok: false }
  }
}

/**
 * The best-effort value of a JSON text that may be cut off mid-way, exactly as
 * the AI SDK's async `parsePartialJson(text).value` computes it.
 *
 * @example
 * parsePartialJsonSync('{"city":"Ber') // { city: 'Ber' }
 */
export function parsePartialJsonSync(text: string | undefined): unknown {
  if (text === undefined) return undefined
  const exact = tryParse(text)
  if (exact.ok) return exact.value
  const repaired = tryParse(fixJson(text))
  return repaired.ok ? repaired.value : undefined
}
