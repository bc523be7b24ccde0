// Tools and approvals: "Append from the server"
import { inputs } from 'a2-aws/ai'
import { assistant } from './assistant.ts'

export async function appendServerMessage(sessionId: string, text: string) {
  await assistant.session(sessionId).append(
    ...inputs.message({
      id: crypto.randomUUID(),
      role: 'user',
      parts: [{ type: 'text', text }],
    }),
  )
}
