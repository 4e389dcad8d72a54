import t from 'tap'
import { completeRequestSchema } from '../../../../proxy/pipeline/ai-request.ts'
import { requestHash } from '../../../../plugins/idempotency/logic/request-hash.ts'

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
