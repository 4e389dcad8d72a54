// First start on an empty store: a demo project and one sk_dev_ key, so a newcomer can send a
// request at once. The key is shown in the notice and nowhere else.
import type { AuthRegistry } from './store/registry.ts'

interface DemoProject {
  readonly projectId: string
  readonly key: string
}

export async function createDemoProject(registry: AuthRegistry): Promise<DemoProject | undefined> {
  if (registry.listProjects().length > 0) return undefined
  const project = await registry.createProject({ name: 'Demo project', plan: 'pro', budgetDollars: 10 })
  const { key } = await registry.createKey({ projectId: project.id, type: 'sk', env: 'dev', name: 'demo key' })
  return { projectId: project.id, key }
}

export function demoNotice(demo: DemoProject, baseUrl: string): string {
  return [
    '',
    'First start: created a demo project and a development key (shown only now).',
    `  project: ${demo.projectId}`,
    `  key:     ${demo.key}`,
    '',
    'Try it:',
    `  curl -s ${baseUrl}/api/ai/complete -H 'X-API-Key: ${demo.key}' -H 'Content-Type: application/json' \\`,
    `    -d '{"messages":[{"role":"user","content":"Say hello"}]}'`,
    '',
  ].join('\n')
}
