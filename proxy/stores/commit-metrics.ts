// tollgate_store_commits_total{store}: the write transactions this process committed to each
// store, so that an operator (and the tests) can see whether requests take a write transaction
// each or share one; a cluster's /metrics sums its workers.
import { Counter, type Registry } from 'prom-client'

type CommitSources = Readonly<Record<'lmdb' | 'postgres', (() => number) | undefined>>

export function registerCommitMetrics(registry: Registry, sources: CommitSources): void {
  const reported = new Map<string, number>()
  new Counter({
    name: 'tollgate_store_commits_total',
    help: 'Write transactions committed by this process, by store (lmdb batches the writes of one event-loop turn into one).',
    labelNames: ['store'],
    registers: [registry],
    collect() {
      for (const [store, read] of Object.entries(sources)) {
        if (read === undefined) continue
        const now = read()
        const before = reported.get(store) ?? 0
        if (now > before) this.inc({ store }, now - before)
        reported.set(store, Math.max(before, now))
      }
    },
  })
}
