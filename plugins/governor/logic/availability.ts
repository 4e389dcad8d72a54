// Whether a project may use the Governor. Compliance is never silently skipped: a request that
// asks for it on a project without it is refused.
import { PermissionError } from '../../../proxy/pipeline/errors.ts'
import type { Project } from '../../../proxy/pipeline/project.ts'

export function governorUnavailable(project: Project): PermissionError | undefined {
  if (project.plan === 'free') {
    return new PermissionError(
      'The Governor needs the Pro or Enterprise plan; this project is on the Free plan. Upgrade the plan or send the request without governorMetadata.',
    )
  }
  if (!project.governor.enabled) {
    return new PermissionError(
      "The Governor is turned off for this project. Turn it on in the project's Governor settings or send the request without governorMetadata.",
    )
  }
  return undefined
}
