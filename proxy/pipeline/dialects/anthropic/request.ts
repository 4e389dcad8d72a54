// The body of Anthropic's POST /v1/messages (and of /v1/messages/count_tokens) as the official
// SDK sends it, validated and mapped to the gateway's AiRequest: system text becomes a system
// message, tool_use blocks become tool calls and tool_result blocks tool messages.
import type { IncomingHttpHeaders } from 'node:http'
import { z } from 'zod'
import { governorMetadataSchema, type AiRequest, type ContentPart, type Message, type ToolChoice } from '../../ai-request.ts'
import type { ParsedAiBody } from '../../dialect.ts'
import { InvalidRequestError } from '../../errors.ts'
import { validate } from '../../../http/validate.ts'
import { governorMetadataOf, ignoredFieldsHeader, joinTexts, modelChoiceOf, modelOrTierSchema, toolNameSchema } from '../shared.ts'

const MAX_MESSAGES = 1000
/** Above every model's longest answer: each model's own limit is the provider's to enforce. */
const MAX_TOKENS_CEILING = 1_000_000
const MAX_TOOLS = 128

const textBlock = z.object({ type: z.literal('text'), text: z.string({ error: 'a text block needs text' }) })
const imageBlock = z.object({
  type: z.literal('image'),
  source: z.discriminatedUnion(
    'type',
    [
      z.object({
        type: z.literal('base64'),
        media_type: z.enum(['image/jpeg', 'image/png', 'image/gif', 'image/webp'], {
          error: 'media_type must be image/jpeg, image/png, image/gif or image/webp',
        }),
        data: z.string().min(1, 'an image needs data'),
      }),
      z.object({ type: z.literal('url'), url: z.string().regex(/^https?:\/\//, 'an image url must be http(s)') }),
    ],
    { error: 'an image source must be base64 or url' },
  ),
})
const toolUseBlock = z.object({
  type: z.literal('tool_use'),
  id: z.string().min(1, 'a tool_use block needs an id'),
  name: z.string().min(1, 'a tool_use block needs a name'),
  input: z.record(z.string(), z.unknown()),
})
const toolResultBlock = z.object({
  type: z.literal('tool_result'),
  tool_use_id: z.string().min(1, 'a tool_result block needs tool_use_id'),
  content: z.union([z.string(), z.array(textBlock, { error: 'a tool_result holds text blocks only' })]).optional(),
  is_error: z.boolean().optional(),
})

const blockSchema = z.discriminatedUnion('type', [textBlock, imageBlock, toolUseBlock, toolResultBlock], {
  error: 'a content block must be text, image, tool_use or tool_result',
})

const messageSchema = z.object({
  role: z.enum(['user', 'assistant'], { error: 'role must be user or assistant' }),
  content: z.union([z.string(), z.array(blockSchema)], { error: 'content must be a string or an array of content blocks' }),
})

const toolSchema = z.object({
  // Anthropic's server tools (web search, code execution, …) run on its side; only client tools translate.
  type: z.literal('custom', { error: 'only client tools ({name, description, input_schema}) are supported' }).optional(),
  name: toolNameSchema,
  description: z.string().optional(),
  input_schema: z.record(z.string(), z.unknown(), { error: 'a tool needs input_schema, a JSON Schema object' }),
})

const toolChoiceSchema = z.discriminatedUnion(
  'type',
  [
    z.object({ type: z.literal('auto'), disable_parallel_tool_use: z.boolean().optional() }),
    z.object({ type: z.literal('any'), disable_parallel_tool_use: z.boolean().optional() }),
    z.object({ type: z.literal('tool'), name: z.string(), disable_parallel_tool_use: z.boolean().optional() }),
    z.object({ type: z.literal('none') }),
  ],
  { error: 'tool_choice.type must be auto, any, tool or none' },
)

const fields = {
  model: modelOrTierSchema,
  messages: z
    .array(messageSchema, { error: 'messages must be an array of messages' })
    .min(1, 'messages must hold at least one message')
    .max(MAX_MESSAGES, `messages may hold at most ${MAX_MESSAGES} messages`),
  system: z.union([z.string(), z.array(textBlock)], { error: 'system must be a string or an array of text blocks' }).optional(),
  max_tokens: z
    .int({ error: 'max_tokens must be a whole number' })
    .min(1, 'max_tokens must be at least 1')
    .max(MAX_TOKENS_CEILING, `max_tokens must be at most ${MAX_TOKENS_CEILING}`),
  temperature: z
    .number({ error: 'temperature must be a number' })
    .min(0, 'temperature must be between 0 and 1')
    .max(1, 'temperature must be between 0 and 1')
    .optional(),
  top_p: z.number({ error: 'top_p must be a number' }).min(0, 'top_p must be between 0 and 1').max(1, 'top_p must be between 0 and 1').optional(),
  stop_sequences: z.array(z.string(), { error: 'stop_sequences must be an array of strings' }).optional(),
  stream: z.boolean({ error: 'stream must be true or false' }).optional(),
  tools: z.array(toolSchema).max(MAX_TOOLS, `tools may hold at most ${MAX_TOOLS} tools`).optional(),
  tool_choice: toolChoiceSchema.optional(),
  metadata: z.object({ user_id: z.string().max(256, 'metadata.user_id must be at most 256 characters').nullish() }).optional(),
  governorMetadata: governorMetadataSchema.optional(),
}

function checkToolChoice(
  body: { tools?: readonly { name: string }[] | undefined; tool_choice?: { type: string; name?: string } | undefined },
  ctx: z.RefinementCtx,
): void {
  const choice = body.tool_choice
  if (choice === undefined || choice.type === 'none') return
  const names = new Set(body.tools?.map((tool) => tool.name) ?? [])
  if (names.size === 0) ctx.addIssue({ code: 'custom', path: ['tool_choice'], message: 'tool_choice needs tools' })
  else if (choice.name !== undefined && !names.has(choice.name)) {
    ctx.addIssue({ code: 'custom', path: ['tool_choice'], message: `tool_choice names ${choice.name}, which is not among the tools` })
  }
}

const messagesObject = z.object(fields)
export const messagesRequestSchema = messagesObject.superRefine(checkToolChoice)
/** count_tokens takes the same body without max_tokens and stream. */
export const countTokensRequestSchema = messagesObject.omit({ max_tokens: true, stream: true }).superRefine(checkToolChoice)

type MessagesRequest = z.output<typeof messagesRequestSchema>
export type CountTokensRequest = z.output<typeof countTokensRequestSchema>
type WireMessage = MessagesRequest['messages'][number]
type WireBlock = z.output<typeof blockSchema>

const KNOWN_FIELDS: ReadonlySet<string> = new Set(Object.keys(fields))

function partOf(block: z.output<typeof imageBlock>): ContentPart {
  const { source } = block
  return { type: 'image', url: source.type === 'url' ? source.url : `data:${source.media_type};base64,${source.data}` }
}

const textsOf = (blocks: readonly { readonly text: string }[]): string => joinTexts(blocks.map((block) => block.text))

/** A user turn: its tool results first (each a tool message), then its text and images as one user message. */
function userMessages(blocks: readonly WireBlock[], index: number): Message[] {
  const messages: Message[] = []
  const parts: ContentPart[] = []
  for (const block of blocks) {
    switch (block.type) {
      case 'tool_result':
        messages.push({
          role: 'tool',
          toolCallId: block.tool_use_id,
          content: typeof block.content === 'string' ? block.content : textsOf(block.content ?? []),
        })
        break
      case 'text':
        parts.push({ type: 'text', text: block.text })
        break
      case 'image':
        parts.push(partOf(block))
        break
      case 'tool_use':
        throw new InvalidRequestError(
          'Invalid request: tool_use blocks belong in assistant messages',
          `messages.${index} is a user message with a tool_use block.`,
          [{ path: `messages.${index}.content`, message: 'tool_use blocks belong in assistant messages' }],
        )
    }
  }
  if (parts.length > 0) {
    const content = joinTexts(parts.flatMap((part) => (part.type === 'text' ? [part.text] : [])))
    messages.push(parts.some((part) => part.type === 'image') ? { role: 'user', content, parts } : { role: 'user', content })
  }
  return messages
}

function assistantMessage(blocks: readonly WireBlock[], index: number): Message {
  const texts: string[] = []
  const toolCalls: { id: string; name: string; arguments: string }[] = []
  for (const block of blocks) {
    if (block.type === 'text') texts.push(block.text)
    else if (block.type === 'tool_use') toolCalls.push({ id: block.id, name: block.name, arguments: JSON.stringify(block.input) })
    else {
      throw new InvalidRequestError(
        `Invalid request: assistant messages hold text and tool_use blocks only`,
        `messages.${index} is an assistant message with a ${block.type} block.`,
        [{ path: `messages.${index}.content`, message: 'assistant messages hold text and tool_use blocks only' }],
      )
    }
  }
  const content = joinTexts(texts)
  return toolCalls.length === 0 ? { role: 'assistant', content } : { role: 'assistant', content, toolCalls }
}

function toMessages(message: WireMessage, index: number): Message[] {
  if (typeof message.content === 'string') return [{ role: message.role, content: message.content }]
  return message.role === 'user' ? userMessages(message.content, index) : [assistantMessage(message.content, index)]
}

function toolChoiceOf(choice: MessagesRequest['tool_choice']): ToolChoice | undefined {
  if (choice === undefined) return undefined
  switch (choice.type) {
    case 'any':
      return 'required'
    case 'tool':
      return { name: choice.name }
    default:
      return choice.type
  }
}

export function toAiRequest(body: CountTokensRequest & { max_tokens?: number; stream?: boolean | undefined }, headers: IncomingHttpHeaders): AiRequest {
  const system =
    body.system === undefined ? [] : [{ role: 'system', content: typeof body.system === 'string' ? body.system : textsOf(body.system) } satisfies Message]
  const tools = body.tools === undefined || body.tools.length === 0 ? undefined : body.tools
  return {
    ...modelChoiceOf(body.model),
    messages: [...system, ...body.messages.flatMap(toMessages)],
    // Absent: none is sent, and the provider applies its own default.
    temperature: body.temperature,
    maxTokens: body.max_tokens,
    mode: 'text',
    governorMetadata: governorMetadataOf(body.governorMetadata, headers),
    stream: body.stream === true,
    tools: tools?.map((tool) => ({ name: tool.name, description: tool.description, parameters: tool.input_schema })),
    toolChoice: toolChoiceOf(body.tool_choice),
    topP: body.top_p,
    stop: body.stop_sequences,
    user: body.metadata?.user_id ?? undefined,
  }
}

export function parseMessages(raw: unknown, headers: IncomingHttpHeaders): ParsedAiBody {
  const body = validate(messagesRequestSchema, raw)
  const request = toAiRequest(body, headers)
  if (request.messages.length === 0 || request.messages.every((message) => message.role === 'system')) {
    throw new InvalidRequestError(
      'Invalid request: messages must hold at least one message',
      'The request body is invalid: messages must hold a user or assistant message.',
    )
  }
  return { request, body, headers: ignoredFieldsHeader(raw, KNOWN_FIELDS) }
}
