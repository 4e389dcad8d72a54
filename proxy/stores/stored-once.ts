// A value made once per store and kept, such as a server secret or a signing key: the first
// process to write it wins, and every process, however many start together on an empty store,
// reads that one.
import type { PluginStore } from './store.ts'

export async function storedOnce<V>(store: PluginStore, entry: string, make: () => V | Promise<V>): Promise<V> {
  const meta = store.open<V>('meta')
  const existing = meta.get(entry)
  if (existing !== undefined) return existing
  // Made outside the transaction, which must not wait for a promise.
  const made = await make()
  return store.transaction(() => {
    const raced = meta.get(entry)
    if (raced !== undefined) return raced
    meta.put(entry, made)
    return made
  })
}
