import t from 'tap'
import fc from 'fast-check'
import { isDeepStrictEqual } from 'node:util'
import { completeRequestSchema } from '../../../proxy/pipeline/ai-request.ts'
import { canonicalJson, requestHash } from '../../../plugins/idempotency/request-hash.ts'

const parse = (body: unknown) => completeRequestSchema.parse(body)
const messages = [{ role: 'user', content: 'Name three rivers' }]

t.test('the order of fields and a default sent explicitly do not change the hash', async (t) => {
  const a = requestHash('ai_complete', false, parse({ messages, temperature: 0.2 }))
  const b = requestHash('ai_complete', false, parse({ temperature: 0.2, quality: 'balanced', messages }))
  t.equal(a, b)
})

t.test('another body, another route or test mode changes the hash', async (t) => {
  const base = requestHash('ai_complete', false, parse({ messages }))
  t.not(requestHash('ai_complete', false, parse({ messages, temperature: 0.1 })), base)
  t.not(requestHash('ai_complete', false, parse({ messages: [{ role: 'user', content: 'Name four rivers' }] })), base)
  t.not(requestHash('ai_chat', false, parse({ messages })), base)
  t.not(requestHash('ai_complete', true, parse({ messages })), base)
})

const reversed = (v: unknown): unknown => Array.isArray(v)
  ? v.map(reversed)
  : typeof v === 'object' && v !== null
    ? Object.fromEntries(Object.keys(v).reverse().map((k) => [k, reversed((v as Record<string, unknown>)[k])]))
    : v

t.test('canonical JSON denotes the same value, whatever order its objects were built in', async () => {
  const json = fc.jsonValue().map((value) => JSON.parse(JSON.stringify(value)) as unknown)
  fc.assert(fc.property(json, (value) => {
    const text = canonicalJson(value)
    return text === canonicalJson(reversed(value)) && isDeepStrictEqual(JSON.parse(text), value)
  }))
})
