import { HttpError } from './http-error.ts'

/** Reads a JSON body, refusing it once it passes `limitBytes` without buffering the rest. */
export async function readJsonBody(request: Request, limitBytes: number): Promise<unknown> {
  const type = request.headers.get('content-type') ?? ''
  if (!/^application\/json\b/i.test(type)) {
    throw new HttpError(415, 'UNSUPPORTED_MEDIA_TYPE', 'Send the events as application/json')
  }
  const declared = Number(request.headers.get('content-length') ?? Number.NaN)
  if (declared > limitBytes) throw tooLarge(limitBytes)
  const chunks: Uint8Array[] = []
  let size = 0
  const reader = request.body?.getReader()
  while (reader) {
    const { done, value } = await reader.read()
    if (done) break
    size += value.byteLength
    if (size > limitBytes) {
      await reader.cancel()
      throw tooLarge(limitBytes)
    }
    chunks.push(value)
  }
  const text = new TextDecoder().decode(concat(chunks, size))
  try {
    return JSON.parse(text)
  } catch (error) {
    throw new HttpError(
      400,
      'MALFORMED_JSON',
      `The body is not valid JSON: ${(error as Error).message}`,
    )
  }
}

function tooLarge(limitBytes: number): HttpError {
  return new HttpError(413, 'BODY_TOO_LARGE', `The body is larger than ${limitBytes} bytes`, {
    limitBytes,
  })
}

function concat(chunks: Uint8Array[], size: number): Uint8Array {
  const all = new Uint8Array(size)
  let offset = 0
  for (const chunk of chunks) {
    all.set(chunk, offset)
    offset += chunk.byteLength
  }
  return all
}
