// The official SDKs with today's model names: answered by the local provider and by a provider
// (the mock upstream, which refuses what OpenAI's reasoning models refuse), sent only the
// sampling settings the client sent, and under the name an alias stands for.
import Anthropic from '@anthropic-ai/sdk'
import OpenAI from 'openai'
import t from 'tap'
import { seedProject, startTestGateway } from '../../../helpers/start-gateway.ts'
import { startDialectGateway } from './fixtures.ts'

const question = { role: 'user' as const, content: 'What is the weather in Paris?' }

async function localGateway(t: Parameters<typeof startTestGateway>[0]) {
  const { url, dataDir } = await startTestGateway(t)
  const { keys } = await seedProject(dataDir)
  return { url, key: keys[0]!.key }
}

t.test("the local provider answers today's OpenAI and Anthropic models through both SDKs", async (t) => {
  const gw = await localGateway(t)
  const openai = new OpenAI({ apiKey: gw.key, baseURL: `${gw.url}/v1`, maxRetries: 0 })
  for (const model of ['gpt-4.1-mini', 'gpt-5', 'o4-mini', 'claude-3-5-sonnet-20241022']) {
    const { data, response } = await openai.chat.completions.create({ model, messages: [question] }).withResponse()
    t.equal(data.model, model, `${model} answered`)
    t.ok((data.choices[0]?.message.content ?? '').length > 0, model)
    t.equal(response.headers.get('x-gateway-model'), `local/${model}`)
  }
  const anthropic = new Anthropic({ apiKey: gw.key, baseURL: gw.url, maxRetries: 0 })
  for (const model of ['claude-3-5-sonnet-20241022', 'claude-sonnet-4-20250514', 'claude-opus-4-20250514']) {
    const message = await anthropic.messages.create({ model, max_tokens: 200, messages: [question] })
    t.match(message, { model, stop_reason: 'end_turn' }, `${model} answered`)
  }
  const aliased = await anthropic.messages.create({ model: 'claude-3-5-sonnet-latest', max_tokens: 200, messages: [question] })
  t.equal(aliased.model, 'claude-3-5-sonnet-20241022', 'an alias is answered as the model it stands for')

  const listed = new Set<string>()
  for await (const model of openai.models.list()) listed.add(model.id)
  for (const id of ['gpt-5', 'gpt-4.1-nano', 'o3', 'claude-opus-4-20250514', 'claude-3-7-sonnet-latest', 'codestral-latest'])
    t.ok(listed.has(id), `${id} is listed`)
})

t.test('OpenAI is sent no temperature and no bound the client did not send, and max_completion_tokens for one it did', async (t) => {
  const gw = await startDialectGateway(t)
  const openai = new OpenAI({ apiKey: gw.keys.sk, baseURL: `${gw.url}/v1`, maxRetries: 0 })
  const sent = () => gw.mock.requests.at(-1)!.body as Record<string, unknown>

  const reasoning = await openai.chat.completions.create({ model: 'gpt-5', messages: [question] })
  t.equal(reasoning.choices[0]?.message.content, 'Echo: What is the weather in Paris?', 'gpt-5 answers')
  t.equal(sent().model, 'gpt-5')
  for (const field of ['temperature', 'max_tokens', 'max_completion_tokens']) t.notOk(field in sent(), `no ${field}`)

  await openai.chat.completions.create({ model: 'o4-mini', messages: [question], max_tokens: 40 })
  t.equal(sent().max_completion_tokens, 40, 'max_tokens goes upstream as max_completion_tokens')
  t.notOk('max_tokens' in sent())

  const streamed = await openai.chat.completions.create({
    model: 'gpt-4.1-mini',
    messages: [question],
    stream: true,
    max_completion_tokens: 30,
    temperature: 0.4,
  })
  let text = ''
  for await (const chunk of streamed) text += chunk.choices[0]?.delta.content ?? ''
  t.equal(text, 'Echo: What is the weather in Paris?')
  t.match(sent(), { model: 'gpt-4.1-mini', max_completion_tokens: 30, temperature: 0.4, stream: true })
})

t.test('Anthropic is sent no temperature the client did not send; through the OpenAI SDK, the max_tokens it needs', async (t) => {
  const gw = await startDialectGateway(t)
  const sent = () => gw.mock.requests.at(-1)!.body as Record<string, unknown>
  const anthropic = new Anthropic({ apiKey: gw.keys.sk, baseURL: gw.url, maxRetries: 0 })
  const message = await anthropic.messages.create({ model: 'claude-3-5-sonnet-20241022', max_tokens: 64, messages: [question] })
  t.match(message.content, [{ type: 'text', text: 'Echo: What is the weather in Paris?' }])
  t.match(sent(), { model: 'claude-3-5-sonnet-20241022', max_tokens: 64 })
  t.notOk('temperature' in sent())

  const openai = new OpenAI({ apiKey: gw.keys.sk, baseURL: `${gw.url}/v1`, maxRetries: 0 })
  const answer = await openai.chat.completions.create({ model: 'claude-3-7-sonnet-latest', messages: [question] })
  t.equal(answer.model, 'claude-3-7-sonnet-20250219')
  t.match(sent(), { model: 'claude-3-7-sonnet-20250219', max_tokens: 64_000 }, "the alias goes upstream as its model, with the model's longest answer as bound")
  t.notOk('temperature' in sent())
})
