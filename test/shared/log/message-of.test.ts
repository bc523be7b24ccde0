import { describe, expect, it } from 'vitest'
import { messageOf } from '../../../shared/log/message-of.ts'

describe('messageOf(error): what a caught value says', () => {
  it("is an error's message, and anything else thrown as text", () => {
    expect(messageOf(new TypeError('bad input'))).toBe('bad input')
    expect(messageOf('plain string')).toBe('plain string')
    expect(messageOf(undefined)).toBe('undefined')
    expect(messageOf(42)).toBe('42')
  })
})
