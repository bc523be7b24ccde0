import { memo } from 'react'
import ReactMarkdown, { type Components } from 'react-markdown'
import remarkGfm from 'remark-gfm'
import remend from 'remend'

const remarkPlugins = [remarkGfm]

// Links leave the chat instead of replacing it.
const components: Components = {
  a: ({ node: _node, ...props }) => <a {...props} target="_blank" rel="noreferrer" />,
}

/**
 * Assistant text as GitHub-flavoured markdown. While it streams, `remend`
 * closes what the model has not closed yet (`**bold`, a code fence, a link
 * still being written), so half a reply does not flash raw syntax. Raw HTML
 * is shown as text and unsafe URLs are dropped (react-markdown's defaults).
 * Memoized: only the message that grows is parsed again.
 */
export const Markdown = memo(function Markdown({
  text,
  streaming,
}: {
  text: string
  streaming: boolean
}) {
  return (
    <div className="text markdown">
      <ReactMarkdown remarkPlugins={remarkPlugins} components={components}>
        {streaming ? remend(text, { linkMode: 'text-only' }) : text}
      </ReactMarkdown>
    </div>
  )
})
