// One chat call through each official SDK, pointed at a dialect gateway, and the SDK's typed errors
// the provider-error tests expect.
import Anthropic from '@anthropic-ai/sdk'
import OpenAI from 'openai'
import type { DialectGateway } from './fixtures.ts'

const question = 'What is the weather in Paris?'
export type ErrorClass = abstract new (...args: never[]) => { readonly status: number | undefined; readonly headers: Headers | undefined }

export interface Sdk {
  readonly name: string
  /** One chat call, streamed or not; a stream is read to its end. */
  create(gw: DialectGateway, fetcher: typeof fetch, stream: boolean, maxRetries?: number): Promise<unknown>
  readonly errors: Record<'badRequest' | 'notFound' | 'unprocessable' | 'rateLimit' | 'server', ErrorClass>
}

export const openAiSdk: Sdk = {
  name: 'openai',
  async create(gw, fetcher, stream, maxRetries) {
    const client = new OpenAI({ apiKey: gw.keys.sk, baseURL: `${gw.url}/v1`, fetch: fetcher, ...(maxRetries !== undefined && { maxRetries }) })
    const messages = [{ role: 'user' as const, content: question }]
    if (!stream) return client.chat.completions.create({ model: 'gpt-4o-mini', messages })
    for await (const _chunk of await client.chat.completions.create({ model: 'gpt-4o-mini', messages, stream: true }));
    return undefined
  },
  errors: {
    badRequest: OpenAI.BadRequestError,
    notFound: OpenAI.NotFoundError,
    unprocessable: OpenAI.UnprocessableEntityError,
    rateLimit: OpenAI.RateLimitError,
    server: OpenAI.InternalServerError,
  },
}

export const anthropicSdk: Sdk = {
  name: '@anthropic-ai/sdk',
  async create(gw, fetcher, stream, maxRetries) {
    const client = new Anthropic({ apiKey: gw.keys.sk, baseURL: gw.url, fetch: fetcher, ...(maxRetries !== undefined && { maxRetries }) })
    const body = { model: 'claude-3-haiku-20240307', max_tokens: 100, messages: [{ role: 'user' as const, content: question }] }
    if (!stream) return client.messages.create(body)
    for await (const _event of await client.messages.create({ ...body, stream: true }));
    return undefined
  },
  errors: {
    badRequest: Anthropic.BadRequestError,
    notFound: Anthropic.NotFoundError,
    unprocessable: Anthropic.UnprocessableEntityError,
    rateLimit: Anthropic.RateLimitError,
    server: Anthropic.InternalServerError,
  },
}
