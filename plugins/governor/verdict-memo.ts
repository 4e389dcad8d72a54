// Verdicts are pure functions of (content, metadata, project settings version), so repeated
// requests reuse them. Bounded, least recently used first out; in-process only.
import { createHash } from 'node:crypto'
import type { GovernorMetadata } from '../../proxy/pipeline/ai-request.ts'

export class VerdictMemo<V> {
  readonly #entries = new Map<string, V>()
  readonly #capacity: number

  constructor(capacity: number) {
    this.#capacity = capacity
  }

  get(key: string): V | undefined {
    const value = this.#entries.get(key)
    if (value !== undefined) {
      this.#entries.delete(key)
      this.#entries.set(key, value)
    }
    return value
  }

  set(key: string, value: V): void {
    if (this.#capacity === 0) return
    this.#entries.delete(key)
    this.#entries.set(key, value)
    if (this.#entries.size > this.#capacity) this.#entries.delete(this.#entries.keys().next().value!)
  }

  get size(): number {
    return this.#entries.size
  }
}

/** The memo key: a hash, so the memo holds no content. Only the metadata the verdict reads is part of it. */
export function verdictKey(projectId: string, settingsVersion: number, metadata: GovernorMetadata, texts: readonly string[]): string {
  const { actionType, senderRole, department, recipientCountry } = metadata
  return createHash('sha256')
    .update(JSON.stringify([projectId, settingsVersion, actionType, senderRole ?? null, department ?? null, recipientCountry ?? null]))
    .update('\n')
    .update(JSON.stringify(texts))
    .digest('base64url')
}
