/** A tool's input or output: a plain object as labelled rows, anything else as indented JSON. */
export function ToolValue({ value }: { value: unknown }) {
  if (typeof value === 'string') return <p className="tool-value">{value}</p>
  if (isFlatRecord(value) && Object.keys(value).length > 0)
    return (
      <dl className="tool-value">
        {Object.entries(value).map(([key, field]) => (
          <div key={key} className="tool-field">
            <dt>{key}</dt>
            <dd>{String(field)}</dd>
          </div>
        ))}
      </dl>
    )
  return <pre className="tool-value tool-json">{JSON.stringify(value, null, 2)}</pre>
}

type Scalar = string | number | boolean | null

function isFlatRecord(value: unknown): value is Record<string, Scalar> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false
  return Object.values(value).every((field) => field === null || typeof field !== 'object')
}
