import { parsePartialJson } from 'ai'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { parsePartialJsonSync } from '../../../../shared/model/state/partial-json.ts'

describe('parsePartialJsonSync', () => {
  it("Given a JSON text cut off anywhere, Then it returns what the AI SDK's async parsePartialJson() returns (1,000 runs)", async () => {
    await fc.assert(
      fc.asyncProperty(fc.jsonValue(), fc.nat(), async (value, cut) => {
        const text = JSON.stringify(value)
        const prefix = text.slice(0, cut % (text.length + 1))
        expect(parsePartialJsonSync(prefix)).toEqual((await parsePartialJson(prefix)).value)
      }),
      { numRuns: 1000 },
    )
  })

  it('Given garbage, Then it agrees with the SDK too', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string({
          unit: fc.constantFrom(
            '{',
            '}',
            '[',
            ']',
            '"',
            ':',
            ',',
            't',
            'r',
            'u',
            'e',
            '1',
            '-',
            '.',
            '\\',
            'n',
          ),
        }),
        async (text) => {
          expect(parsePartialJsonSync(text)).toEqual((await parsePartialJson(text)).value)
        },
      ),
      { numRuns: 1000 },
    )
  })

  it('Given a streaming tool input, Then it shows the best-effort partial value', () => {
    expect(parsePartialJsonSync('{"city":"Ber')).toEqual({ city: 'Ber' })
  })
})
