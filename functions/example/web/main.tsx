import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import { App } from './App.tsx'

/** The session in the URL (`?session=...`); a fresh one is put there when missing. */
function sessionFromUrl(): string {
  const url = new URL(window.location.href)
  const existing = url.searchParams.get('session')
  if (existing) return existing
  const id = `s-${crypto.randomUUID().slice(0, 8)}`
  url.searchParams.set('session', id)
  window.history.replaceState(null, '', url)
  return id
}

const root = document.getElementById('root')
if (!root) throw new Error('index.html has no #root')
createRoot(root).render(
  <StrictMode>
    <App
      sessionId={sessionFromUrl()}
      inspect={new URL(window.location.href).searchParams.has('inspect')}
    />
  </StrictMode>,
)
