// Fits a conversation into a model's context window by dropping its oldest turns. Pure: the token
// counts come in, so this file never tokenizes.
import type { Message } from '../../proxy/ai-request.ts'

/**
 * Tokens each message costs beyond its content: the role and the separators of the chat format
 * (OpenAI documents 3 to 4 per message; Anthropic's framing is similar).
 */
export const MESSAGE_OVERHEAD_TOKENS = 4

export type ContextFit =
  | {
    readonly fits: true
    /** The input array itself when nothing was dropped. */
    readonly messages: readonly Message[]
    readonly dropped: number
    readonly promptTokens: number
  }
  | {
    readonly fits: false
    /** The whole conversation as sent. */
    readonly promptTokens: number
    /** What remains after dropping every message that may be dropped. */
    readonly minimumPromptTokens: number
  }

/** The prompt's size: its contents plus the framing of each message. */
export function promptTokensOf(contentTokens: readonly number[]): number {
  let total = 0
  for (let i = 0; i < contentTokens.length; i++) total += (contentTokens[i] as number) + MESSAGE_OVERHEAD_TOKENS
  return total
}

/**
 * Keeps prompt + maxTokens within the window by dropping the oldest messages first. System
 * messages carry the instructions and the last message is the question, so neither is dropped.
 */
export function fitContextWindow(
  messages: readonly Message[],
  contentTokens: readonly number[],
  maxTokens: number,
  contextWindow: number,
): ContextFit {
  const budget = contextWindow - maxTokens
  const promptTokens = promptTokensOf(contentTokens)
  if (promptTokens <= budget) return { fits: true, messages, dropped: 0, promptTokens }

  const isDropped = new Array<boolean>(messages.length).fill(false)
  let remaining = promptTokens
  let dropped = 0
  for (let i = 0; i < messages.length - 1 && remaining > budget; i++) {
    if ((messages[i] as Message).role === 'system') continue
    isDropped[i] = true
    remaining -= (contentTokens[i] as number) + MESSAGE_OVERHEAD_TOKENS
    dropped++
  }
  if (remaining > budget) return { fits: false, promptTokens, minimumPromptTokens: remaining }
  return { fits: true, messages: messages.filter((_, i) => !isDropped[i]), dropped, promptTokens: remaining }
}
