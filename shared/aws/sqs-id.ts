import { idHash } from '../log/id-hash.ts'

// SQS allows 1 to 128 letters, digits and ASCII punctuation in message group
// and deduplication IDs.
const SQS_ID = /^[\x21-\x7e]{1,128}$/

/** `text` as an SQS group ID: itself when SQS takes it, else `#` and its SHA-256 in hex. */
export function sqsGroupId(text: string): string {
  return SQS_ID.test(text) ? text : `#${idHash(text, 'hex')}`
}
