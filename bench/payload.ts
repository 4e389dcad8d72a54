// The one conversation every row sends, and the request bodies built from it. Three messages
// of a couple of sentences each (system prompt, the assistant's opening, the user's question), so
// every target parses, forwards and answers bodies of the same realistic size.
import { randomUUID } from 'node:crypto'

export const UPSTREAM_API_KEY = 'sk-bench-upstream'
export const MODEL = 'gpt-4o-mini'
/** The gateway's default temperature and maxTokens, sent explicitly on the direct path so the upstream sees the same request. */
const TEMPERATURE = 0.7
const MAX_TOKENS = 1000

const CONVERSATION = [
  {
    role: 'system',
    content: 'You are the support assistant of an online bookshop. Answer politely and briefly, and never promise refunds that the policy does not allow.',
  },
  {
    role: 'assistant',
    content: 'Hello and welcome to the bookshop. How can I help you with your order today?',
  },
  {
    role: 'user',
    content: 'My order of three paperbacks arrived with one cover torn. Can I get a replacement for that copy, and how long would it take to ship?',
  },
] as const

/** What a client of the OpenAI API would send: the body of the direct and lean-forwarder rows. */
export const OPENAI_BODY = JSON.stringify({
  model: MODEL,
  messages: CONVERSATION,
  temperature: TEMPERATURE,
  max_completion_tokens: MAX_TOKENS,
  stream: false,
})

/** The same request streamed, usage included, as the gateway itself asks the provider. */
export const OPENAI_STREAM_BODY = JSON.stringify({
  model: MODEL,
  messages: CONVERSATION,
  temperature: TEMPERATURE,
  max_completion_tokens: MAX_TOKENS,
  stream: true,
  stream_options: { include_usage: true },
})

export const OPENAI_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'application/json',
  authorization: `Bearer ${UPSTREAM_API_KEY}`,
}

/** The same conversation as the gateway's /api/ai/complete and /api/ai/chat take it. */
export const COMPLETE_BODY = JSON.stringify({ model: MODEL, messages: CONVERSATION })

/** The conversation with one more question no other request asks: a key the cache has never seen. */
export function uniqueCompleteBody(): string {
  return JSON.stringify({ model: MODEL, messages: [...CONVERSATION, { role: 'user', content: `And one more question, number ${randomUUID()}?` }] })
}

/**
 * `no-cache`: a real miss, the cache is looked up, bypassed and written, as for a new question.
 * `no-store`: the cache is skipped altogether. None: a repeated request, a cache hit.
 */
export type CacheControl = 'no-cache' | 'no-store'

export function completeHeaders(apiKey: string, options: { readonly cacheControl?: CacheControl }): Record<string, string> {
  const headers: Record<string, string> = { 'content-type': 'application/json', 'x-api-key': apiKey }
  if (options.cacheControl !== undefined) headers['cache-control'] = options.cacheControl
  return headers
}
