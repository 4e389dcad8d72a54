// The facts /api/ai/query may tell the model: the caller's projects with their plans, budgets,
// cache and Governor settings, and key counts, all read through the auth registry. Only the
// projects passed in are described, so nothing of another organization can reach the prompt.
import type { Project } from '../../../proxy/pipeline/project.ts'
import type { AuthRegistry } from '../../auth/state.ts'

function describeProject(registry: AuthRegistry, project: Project): string {
  const keys = registry.listKeys(project.id)
  const active = keys.filter((k) => k.status === 'active').length
  const { governor } = project
  const governorText = governor.enabled
    ? `Governor on (${governor.strictMode ? 'strict mode' : 'not strict'}${governor.redactOutput ? ', answers redacted' : ''}, auto-approve up to risk ${governor.autoApproveThreshold}, ${governor.customRules.length} custom rules)`
    : 'Governor off'
  return (
    `- ${project.name} (${project.id}): plan ${project.plan}, monthly budget $${project.budgetDollars}, ` +
    `cache ${project.cacheEnabled ? `on for ${project.cacheTtlSeconds}s` : 'off'}, ${governorText}, ` +
    `API keys: ${active} active, ${keys.length - active} inactive.`
  )
}

export function accountSummary(registry: AuthRegistry, ownerName: string, projects: readonly Project[]): string {
  const lines = projects.map((project) => describeProject(registry, project))
  return [`Account: ${ownerName}. Projects: ${projects.length}.`, ...lines].join('\n')
}
