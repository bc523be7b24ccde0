import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import { App } from './App.tsx'
import { pageSession } from './page-session.ts'

const root = document.getElementById('root')
if (!root) throw new Error('index.html has no #root')
pageSession('/api/agent').then(
  ({ sessionId, token }) =>
    createRoot(root).render(
      <StrictMode>
        <App
          sessionId={sessionId}
          {...(token ? { token } : {})}
          inspect={new URL(window.location.href).searchParams.has('inspect')}
        />
      </StrictMode>,
    ),
  (error: unknown) => {
    root.textContent = `Could not open a session: ${error instanceof Error ? error.message : String(error)}`
  },
)
