// Conversations: "In the browser, pass the contract to useAgent()"
'use client'
import { useAgent } from 'a2-aws/ai/react'
import { supportDesk } from './support-desk.ts'

export function Desk({ id }: { id: string }) {
  const { state, push, sendMessage } = useAgent({
    api: '/api/support',
    id,
    contract: supportDesk,
  })

  return (
    <section>
      <p>
        {state.plan} plan, {state.flagged.length} flagged tickets
      </p>
      <button onClick={() => void push({ type: 'ticket.flagged', payload: { ticketId: 'T-1' } })}>
        Flag T-1
      </button>
      <button onClick={() => void sendMessage('Summarize the flagged tickets.')}>Ask</button>
    </section>
  )
}
