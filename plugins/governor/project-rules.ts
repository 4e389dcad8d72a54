// A project's custom rules, compiled once per settings version and shared by the assessments and
// the checks of streamed answers.
import type { Logger } from 'pino'
import type { Project } from '../../proxy/pipeline/project.ts'
import { compileRules, type CompiledRule } from './logic/verdict/custom-rules.ts'

export type ProjectRules = (project: Project) => readonly CompiledRule[]

export function createProjectRules(log: Logger): ProjectRules {
  const rulesByProject = new Map<string, { readonly version: number; readonly compiled: readonly CompiledRule[] }>()
  return (project) => {
    const cached = rulesByProject.get(project.id)
    if (cached !== undefined && cached.version === project.governor.version) return cached.compiled
    const { compiled, skipped } = compileRules(project.governor.customRules)
    // Rules are checked when saved; one that fails here was stored by other means. It is left out
    // rather than failing requests, and reported by id only.
    if (skipped.length > 0) log.warn({ projectId: project.id, ruleIds: skipped }, 'custom rules left out: they do not pass the safety check')
    rulesByProject.set(project.id, { version: project.governor.version, compiled })
    return compiled
  }
}
