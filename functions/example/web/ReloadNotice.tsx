import type { ReloadReason } from 'a2-aws/ai/client'

/**
 * Shown when the server refused the wire protocol this page was written
 * for (a deploy moved on, or rolled back): says so with the server's
 * reason and offers the one way out, a reload, which loads the page of the
 * server's deploy. The conversation is in the log, so it comes back.
 */
export function ReloadNotice({ reason }: { reason: ReloadReason }) {
  return (
    <div className="refused" role="alert">
      <p className="refused-title">This page is out of date.</p>
      <p className="refused-reason">
        The server runs another deploy of this app, which does not speak this page's protocol (
        {reason.message}). Reload the page to go on: your conversation stays.
      </p>
      <button type="button" className="primary small" onClick={() => window.location.reload()}>
        Reload the page
      </button>
    </div>
  )
}
