// Fits a conversation into a model's context window by dropping its oldest turns. Pure: the token
// counts come in, so this file never tokenizes.
import type { Message } from '../../../proxy/pipeline/ai-request.ts'

/**
 * Tokens each message costs beyond its content: the role and the separators of the chat format
 * (OpenAI documents 3 to 4 per message; Anthropic's framing is similar).
 */
export const MESSAGE_OVERHEAD_TOKENS = 4

type ContextFit =
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
 * How many messages from `start` form one turn that is dropped whole: an assistant message that
 * called tools together with the tool results that follow it (a result without its call is
 * refused by providers); any other message alone.
 */
function turnLength(messages: readonly Message[], start: number): number {
  if ((messages[start] as Message).toolCalls === undefined) return 1
  let end = start + 1
  while (end < messages.length && (messages[end] as Message).role === 'tool') end++
  return end - start
}

/**
 * Keeps prompt + maxTokens within the window by dropping the oldest turns first. System messages
 * carry the instructions and the last message is the question, so neither is dropped, nor a turn
 * that holds the last message. `fixedTokens` (tool definitions) count against the window but are
 * never dropped.
 */
export function fitContextWindow(
  messages: readonly Message[],
  contentTokens: readonly number[],
  maxTokens: number,
  contextWindow: number,
  fixedTokens = 0,
): ContextFit {
  const budget = contextWindow - maxTokens - fixedTokens
  const promptTokens = promptTokensOf(contentTokens)
  if (promptTokens <= budget) return { fits: true, messages, dropped: 0, promptTokens: promptTokens + fixedTokens }

  const isDropped = new Array<boolean>(messages.length).fill(false)
  let remaining = promptTokens
  let dropped = 0
  for (let i = 0; i < messages.length - 1 && remaining > budget; ) {
    const message = messages[i] as Message
    const length = turnLength(messages, i)
    // A tool result is dropped only with its call.
    if (message.role === 'system' || message.role === 'tool' || i + length > messages.length - 1) {
      i += length
      continue
    }
    for (let j = i; j < i + length; j++) {
      isDropped[j] = true
      remaining -= (contentTokens[j] as number) + MESSAGE_OVERHEAD_TOKENS
      dropped++
    }
    i += length
  }
  if (remaining > budget) return { fits: false, promptTokens: promptTokens + fixedTokens, minimumPromptTokens: remaining + fixedTokens }
  return { fits: true, messages: messages.filter((_, i) => !isDropped[i]), dropped, promptTokens: remaining + fixedTokens }
}
