// Keys that opened the gateway, with the state they opened it to, so that a key presented again
// is answered without parsing it, hashing it under the secret or reading its records. Valid while
// the registry's generation stays the same: a change of any project or key, by any process,
// empties it, so a deactivation or a project's new budget counts from the next request on.
// Held by a SHA-256 of the key, as KnownKeyHashes does: raw keys are never kept.
import { hash } from 'node:crypto'
import type { AuthState } from '../state.ts'

export class VerifiedKeys {
  readonly #states = new Map<string, AuthState>()
  readonly #maxEntries: number
  #generation = Number.NaN

  constructor(maxEntries: number) {
    this.#maxEntries = maxEntries
  }

  /** The fingerprint the key is held by. */
  static fingerprint(key: string): string {
    return hash('sha256', key, 'base64')
  }

  /** The state `fingerprint` was verified to under `generation`; undefined once anything changed. */
  get(fingerprint: string, generation: number): AuthState | undefined {
    if (generation !== this.#generation) {
      this.#states.clear()
      this.#generation = generation
      return undefined
    }
    return this.#states.get(fingerprint)
  }

  /** Remembers a state verified under `generation`, read before the records were. */
  set(fingerprint: string, generation: number, state: AuthState): void {
    if (generation !== this.#generation) return
    if (this.#states.size >= this.#maxEntries) this.#states.delete(this.#states.keys().next().value!)
    this.#states.set(fingerprint, state)
  }
}
