// Checks a json-mode answer. Models often wrap JSON in a Markdown code fence even when told not
// to; the fence is removed rather than failing an otherwise valid answer.
const FENCED = /^```(?:json)?\s*\n([\s\S]*?)\n?```$/i

/** The answer as a JSON text, or undefined when it does not parse. */
export function toJsonText(text: string): string | undefined {
  const trimmed = text.trim()
  const candidate = FENCED.exec(trimmed)?.[1] ?? trimmed
  try {
    JSON.parse(candidate)
    return candidate
  } catch {
    return undefined
  }
}
