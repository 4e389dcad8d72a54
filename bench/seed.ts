// The benchmark's project and key, created through the registry the CLI uses, before the gateway
// starts: in the gateway's LMDB store, or in PostgreSQL when the gateway is given DATABASE_URL.
// Enterprise has no rate limit, and the budget is far beyond what any run can spend, so every
// request is served and metered.
import { withRegistry } from '../cli/registry.ts'

export const BENCH_SECRET = 'bench-secret-of-at-least-thirty-two-characters'
const BUDGET_DOLLARS = 1e9

export interface BenchProject {
  readonly projectId: string
  /** A full `sk_prod_` key. */
  readonly key: string
}

export async function seedBenchProject(dataDir: string, databaseUrl?: string): Promise<BenchProject> {
  return withRegistry({ dataDir, databaseUrl, secret: BENCH_SECRET }, async (registry) => {
    const project = await registry.createProject({ name: 'bench', plan: 'enterprise', budgetDollars: BUDGET_DOLLARS })
    const { key } = await registry.createKey({ projectId: project.id, type: 'sk', env: 'prod', name: 'bench key' })
    return { projectId: project.id, key }
  })
}
