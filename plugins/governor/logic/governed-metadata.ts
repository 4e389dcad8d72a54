// Which requests the Governor checks, and with what metadata. The spec's rule stays the default:
// a request that carries governorMetadata. A project with `governance: "all"` has every request on
// the AI routes checked, so plain SDK traffic is governed too: a request without governorMetadata
// is governed with the action type of its route and its API key as the sender.
import type { ActionType, AiRequest, GovernorMetadata } from '../../../proxy/pipeline/ai-request.ts'
import type { RouteInfo } from '../../../proxy/pipeline/context.ts'
import type { Project } from '../../../proxy/pipeline/project.ts'
import { governorUnavailable } from './availability.ts'

// The gateway's AI routes are general-purpose, each the spec's `other` (low risk); a route made for
// one kind of action would name it here.
const ROUTE_ACTION_TYPES: Readonly<Record<string, ActionType>> = {
  ai_chat: 'other',
  ai_complete: 'other',
  openai_chat_completions: 'other',
  anthropic_messages: 'other',
}
const DEFAULT_ACTION_TYPE: ActionType = 'other'

/** The metadata a request is governed with, or undefined when it is not governed. */
export function governedMetadata(ai: AiRequest | undefined, route: RouteInfo, project: Project, keyId: string): GovernorMetadata | undefined {
  if (ai === undefined) return undefined
  if (ai.governorMetadata !== undefined) return ai.governorMetadata
  // Governing every request adds no refusal: where the Governor is not available to the project,
  // traffic without governorMetadata goes on ungoverned, as under the default.
  if (project.governor.governance !== 'all' || governorUnavailable(project) !== undefined) return undefined
  return { actionType: ROUTE_ACTION_TYPES[route.name] ?? DEFAULT_ACTION_TYPE, senderId: keyId }
}
