// The benchmark's project and key, created through the auth registry (the code path the CLI uses)
// before the gateway opens the store. Enterprise has no rate limit, and the budget is far beyond
// what any run can spend, so every request is served and metered.
import { createRegistry, loadSecret } from '../plugins/auth/registry.ts'
import { systemClock } from '../proxy/clock.ts'
import { openStore } from '../proxy/store.ts'

export const BENCH_SECRET = 'bench-secret-of-at-least-thirty-two-characters'
const BUDGET_DOLLARS = 1e9

export interface BenchProject {
  readonly projectId: string
  /** A full `sk_prod_` key. */
  readonly key: string
}

export async function seedBenchProject(dataDir: string): Promise<BenchProject> {
  const store = openStore(dataDir)
  try {
    const auth = store.forPlugin('auth')
    const registry = createRegistry(auth, await loadSecret(auth, BENCH_SECRET), systemClock)
    const project = await registry.createProject({ name: 'bench', plan: 'enterprise', budgetDollars: BUDGET_DOLLARS })
    const { key } = await registry.createKey({ projectId: project.id, type: 'sk', env: 'prod', name: 'bench key' })
    return { projectId: project.id, key }
  } finally {
    await store.close()
  }
}
