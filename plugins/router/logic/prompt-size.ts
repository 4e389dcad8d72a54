// The size of a request's prompt for the model that will read it: each message's text and images,
// and the tool definitions. Pure once the texts are counted; images are priced per model.
import type { AiRequest } from '../../../proxy/pipeline/ai-request.ts'
import { InvalidRequestError } from '../../../proxy/pipeline/errors.ts'
import type { Candidate } from '../call-with-retry.ts'
import { tokenTextOf, toolsTextOf } from '../count-content-tokens.ts'
import type { RoutePlan } from './route-table.ts'

// The system prompt a provider adds when tools are offered: Anthropic documents up to 530 tokens
// for the Claude 3 models; OpenAI's is smaller.
const TOOLS_OVERHEAD_TOKENS = 530

export interface PromptSize {
  /** Per message: its text's tokens, plus its images' at the most any candidate charges. */
  readonly messageTokens: number[]
  /** Tool definitions and the provider's tool prompt: counted, never dropped. */
  readonly fixedTokens: number
  /** The plan's candidates that can take the request (those that take images, when it has any). */
  readonly candidates: readonly Candidate[]
}

/** The texts to count: each message, then the tool definitions when there are any. */
export function promptTexts(ai: AiRequest): string[] {
  const texts = ai.messages.map(tokenTextOf)
  if (ai.tools !== undefined && ai.tools.length > 0) texts.push(toolsTextOf(ai.tools))
  return texts
}

function imagesOf(ai: AiRequest, index: number): number {
  let images = 0
  for (const part of ai.messages[index]!.parts ?? []) if (part.type === 'image') images++
  return images
}

/** `counts` are the token counts of promptTexts(ai), in order; the array is reused. */
export function sizePrompt(ai: AiRequest, plan: RoutePlan, counts: number[]): PromptSize | InvalidRequestError {
  const messageCount = ai.messages.length
  const fixedTokens = counts.length > messageCount ? counts[messageCount]! + TOOLS_OVERHEAD_TOKENS : 0
  const messageTokens = counts.length > messageCount ? counts.slice(0, messageCount) : counts
  if (!ai.messages.some((message) => message.parts !== undefined)) return { messageTokens, fixedTokens, candidates: plan.candidates }
  // A fallback that takes no images is left out rather than sent a request it would refuse.
  const candidates = plan.candidates.filter((candidate) => candidate.info.imageTokens !== null)
  if (candidates[0] !== plan.primary) {
    return new InvalidRequestError(
      'Images not supported',
      `${plan.primary.model} does not support images (vision). Send text only, or choose a model that supports them.`,
    )
  }
  const imageTokens = Math.max(...candidates.map((candidate) => candidate.info.imageTokens ?? 0))
  for (let i = 0; i < messageCount; i++) messageTokens[i]! += imagesOf(ai, i) * imageTokens
  return { messageTokens, fixedTokens, candidates }
}
