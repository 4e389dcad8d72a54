// The body of OpenAI's POST /v1/chat/completions as the official SDKs send it, validated and
// mapped to the gateway's AiRequest. Unknown fields are ignored (and named in a header), never
// refused; known fields with values the gateway cannot honour are refused with a 400.
import type { IncomingHttpHeaders } from 'node:http'
import { z } from 'zod'
import { governorMetadataSchema, type AiRequest, type ContentPart, type Message, type ToolChoice } from '../../ai-request.ts'
import type { ParsedAiBody } from '../../dialect.ts'
import { validate } from '../../../http/validate.ts'
import { governorMetadataOf, ignoredFieldsHeader, joinTexts, modelChoiceOf, modelOrTierSchema, toolNameSchema } from '../shared.ts'

const MAX_MESSAGES = 1000
/** Above every model's longest answer: each model's own limit is the provider's to enforce. */
const MAX_TOKENS_CEILING = 1_000_000
const MAX_TOOLS = 128

const textPart = z.object({ type: z.literal('text'), text: z.string({ error: 'a text part needs text' }) })
const imagePart = z.object({
  type: z.literal('image_url'),
  image_url: z.object({
    url: z.string().regex(/^(?:https?:\/\/|data:image\/)/, 'image_url.url must be an http(s) URL or a data:image URL'),
    detail: z.enum(['auto', 'low', 'high']).optional(),
  }),
})
const refusalPart = z.object({ type: z.literal('refusal'), refusal: z.string() })

const textContent = z.union([z.string(), z.array(textPart)], { error: 'content must be a string or an array of text parts' })
const userContent = z.union([z.string(), z.array(z.discriminatedUnion('type', [textPart, imagePart], { error: 'a content part must be text or image_url' }))], {
  error: 'content must be a string or an array of text and image_url parts',
})

const toolCallSchema = z.object({
  id: z.string().min(1, 'a tool call needs an id'),
  type: z.literal('function').optional(),
  function: z.object({ name: z.string().min(1), arguments: z.string() }),
})

const messageSchema = z.discriminatedUnion(
  'role',
  [
    z.object({ role: z.enum(['system', 'developer']), content: textContent }),
    z.object({ role: z.literal('user'), content: userContent }),
    z.object({
      role: z.literal('assistant'),
      content: z.union([z.string(), z.array(z.union([textPart, refusalPart])), z.null()]).optional(),
      tool_calls: z.array(toolCallSchema).optional(),
    }),
    z.object({ role: z.literal('tool'), content: textContent, tool_call_id: z.string().min(1, 'tool_call_id must not be empty') }),
  ],
  { error: 'role must be one of system, developer, user, assistant, tool' },
)

const toolSchema = z.object({
  type: z.literal('function', { error: 'only function tools are supported' }),
  function: z.object({
    name: toolNameSchema,
    description: z.string().optional(),
    parameters: z.record(z.string(), z.unknown()).optional(),
    strict: z.boolean().nullish(),
  }),
})

const toolChoiceSchema = z.union([z.enum(['none', 'auto', 'required']), z.object({ type: z.literal('function'), function: z.object({ name: z.string() }) })], {
  error: 'tool_choice must be none, auto, required or {type: "function", function: {name}}',
})

const responseFormatSchema = z.discriminatedUnion(
  'type',
  [
    z.object({ type: z.literal('text') }),
    z.object({ type: z.literal('json_object') }),
    z.object({
      type: z.literal('json_schema'),
      json_schema: z.object({
        name: z.string().min(1),
        description: z.string().optional(),
        schema: z.record(z.string(), z.unknown()).optional(),
        strict: z.boolean().nullish(),
      }),
    }),
  ],
  { error: 'response_format.type must be text, json_object or json_schema' },
)

const tokens = (name: string) =>
  z
    .int({ error: `${name} must be a whole number` })
    .min(1, `${name} must be at least 1`)
    .max(MAX_TOKENS_CEILING, `${name} must be at most ${MAX_TOKENS_CEILING}`)

const fields = {
  model: modelOrTierSchema,
  messages: z
    .array(messageSchema, { error: 'messages must be an array of messages' })
    .min(1, 'messages must hold at least one message')
    .max(MAX_MESSAGES, `messages may hold at most ${MAX_MESSAGES} messages`),
  max_tokens: tokens('max_tokens').nullish(),
  max_completion_tokens: tokens('max_completion_tokens').nullish(),
  temperature: z
    .number({ error: 'temperature must be a number' })
    .min(0, 'temperature must be between 0 and 2')
    .max(2, 'temperature must be between 0 and 2')
    .nullish(),
  top_p: z.number({ error: 'top_p must be a number' }).min(0, 'top_p must be between 0 and 1').max(1, 'top_p must be between 0 and 1').nullish(),
  stop: z
    .union([z.string(), z.array(z.string()).max(4, 'stop takes at most 4 sequences')], { error: 'stop must be a string or an array of strings' })
    .nullish(),
  seed: z.int({ error: 'seed must be a whole number' }).nullish(),
  n: z.literal(1, { error: 'n must be 1: the gateway answers with one choice' }).nullish(),
  response_format: responseFormatSchema.nullish(),
  tools: z.array(toolSchema).max(MAX_TOOLS, `tools may hold at most ${MAX_TOOLS} tools`).nullish(),
  tool_choice: toolChoiceSchema.nullish(),
  user: z.string().max(256, 'user must be at most 256 characters').nullish(),
  stream: z.boolean({ error: 'stream must be true or false' }).nullish(),
  stream_options: z.object({ include_usage: z.boolean().optional() }).nullish(),
  governorMetadata: governorMetadataSchema.optional(),
}

export const chatCompletionsRequestSchema = z.object(fields).superRefine((body, ctx) => {
  const choice = body.tool_choice
  const names = new Set(body.tools?.map((tool) => tool.function.name) ?? [])
  if (choice !== undefined && choice !== null && choice !== 'none' && names.size === 0) {
    ctx.addIssue({ code: 'custom', path: ['tool_choice'], message: 'tool_choice needs tools' })
  }
  if (typeof choice === 'object' && choice !== null && !names.has(choice.function.name)) {
    ctx.addIssue({ code: 'custom', path: ['tool_choice'], message: `tool_choice names ${choice.function.name}, which is not among the tools` })
  }
})

export type ChatCompletionsRequest = z.output<typeof chatCompletionsRequestSchema>
type WireMessage = ChatCompletionsRequest['messages'][number]

const KNOWN_FIELDS: ReadonlySet<string> = new Set(Object.keys(fields))

function textOf(content: string | readonly { readonly type: string; readonly text?: string; readonly refusal?: string }[] | null | undefined): string {
  if (typeof content === 'string') return content
  return joinTexts((content ?? []).map((part) => part.text ?? part.refusal ?? ''))
}

function toMessage(message: WireMessage): Message {
  switch (message.role) {
    case 'system':
    case 'developer':
      return { role: 'system', content: textOf(message.content) }
    case 'tool':
      return { role: 'tool', content: textOf(message.content), toolCallId: message.tool_call_id }
    case 'assistant': {
      const content = textOf(message.content)
      const calls = message.tool_calls
      if (calls === undefined || calls.length === 0) return { role: 'assistant', content }
      return { role: 'assistant', content, toolCalls: calls.map((call) => ({ id: call.id, name: call.function.name, arguments: call.function.arguments })) }
    }
    case 'user': {
      if (typeof message.content === 'string') return { role: 'user', content: message.content }
      const parts: ContentPart[] = message.content.map((part) =>
        part.type === 'text' ? { type: 'text', text: part.text } : { type: 'image', url: part.image_url.url, detail: part.image_url.detail },
      )
      const content = joinTexts(parts.flatMap((part) => (part.type === 'text' ? [part.text] : [])))
      return parts.some((part) => part.type === 'image') ? { role: 'user', content, parts } : { role: 'user', content }
    }
  }
}

function toolChoiceOf(choice: ChatCompletionsRequest['tool_choice']): ToolChoice | undefined {
  if (choice === undefined || choice === null) return undefined
  return typeof choice === 'string' ? choice : { name: choice.function.name }
}

export function toAiRequest(body: ChatCompletionsRequest, headers: IncomingHttpHeaders): AiRequest {
  const format = body.response_format
  const schema = format?.type === 'json_schema' ? format.json_schema : undefined
  // An empty list means no tools; OpenAI itself refuses one.
  const tools = body.tools === null || body.tools?.length === 0 ? undefined : body.tools
  const stop = body.stop ?? undefined
  return {
    ...modelChoiceOf(body.model),
    messages: body.messages.map(toMessage),
    // Absent: none is sent, and the provider applies its own default.
    temperature: body.temperature ?? undefined,
    maxTokens: body.max_completion_tokens ?? body.max_tokens ?? undefined,
    mode: format?.type === 'json_object' || format?.type === 'json_schema' ? 'json' : 'text',
    governorMetadata: governorMetadataOf(body.governorMetadata, headers),
    stream: body.stream === true,
    tools: tools?.map((tool) => ({
      name: tool.function.name,
      description: tool.function.description,
      parameters: tool.function.parameters ?? { type: 'object', properties: {} },
    })),
    toolChoice: toolChoiceOf(body.tool_choice),
    topP: body.top_p ?? undefined,
    stop: stop === undefined ? undefined : typeof stop === 'string' ? [stop] : stop,
    seed: body.seed ?? undefined,
    jsonSchema: schema === undefined ? undefined : { name: schema.name, schema: schema.schema ?? { type: 'object' }, strict: schema.strict ?? undefined },
    user: body.user ?? undefined,
  }
}

export function parseChatCompletions(raw: unknown, headers: IncomingHttpHeaders): ParsedAiBody {
  const body = validate(chatCompletionsRequestSchema, raw)
  return { request: toAiRequest(body, headers), body, headers: ignoredFieldsHeader(raw, KNOWN_FIELDS) }
}
