import t from 'tap'
import fc from 'fast-check'
import { createHash } from 'node:crypto'
import { encodeCacheKey, type CacheKeyFields } from '../../../../plugins/cache/logic/cache-key.ts'
import { hashCacheKey } from '../../../../workers/hash-cache-key.ts'

const base: CacheKeyFields = {
  projectId: 'prj_a',
  provider: 'openai',
  model: 'gpt-4o-mini',
  messages: [
    { role: 'system', content: 'Be brief.' },
    { role: 'user', content: 'Hello there.' },
  ],
  temperature: 0.7,
  maxTokens: 1000,
  mode: 'text',
  governorVersion: null,
}

t.test('the same fields give the same key, also from freshly built objects', async (t) => {
  const copy: CacheKeyFields = { ...base, messages: base.messages.map((m) => ({ ...m })) }
  t.equal(encodeCacheKey(copy), encodeCacheKey(base))
})

t.test('a key is the SHA-256 of the canonical encoding, in base64url', async (t) => {
  const encoding = encodeCacheKey(base)
  const key = hashCacheKey(encoding)
  t.equal(key, createHash('sha256').update(encoding).digest('base64url'))
  t.match(key, /^[A-Za-z0-9_-]{43}$/)
})

t.test('every field that changes the answer changes the key', async (t) => {
  const variants: ReadonlyArray<readonly [string, Partial<CacheKeyFields>]> = [
    ['project', { projectId: 'prj_b' }],
    ['provider', { provider: 'local' }],
    ['model', { model: 'gpt-4o' }],
    ['temperature', { temperature: 0.2 }],
    ['maxTokens', { maxTokens: 999 }],
    ['mode', { mode: 'json' }],
    ['governor version', { governorVersion: 1 }],
    ['a later governor version', { governorVersion: 2 }],
    ['a message text', { messages: [base.messages[0]!, { role: 'user', content: 'Hello there!' }] }],
    ['a message role', { messages: [base.messages[0]!, { role: 'assistant', content: 'Hello there.' }] }],
    ['the message order', { messages: [base.messages[1]!, base.messages[0]!] }],
    ['a dropped message', { messages: [base.messages[1]!] }],
    ['embeddings of the text', { embedding: { inputs: ['Hello there.'] } }],
    ['embeddings of token ids', { embedding: { inputs: [[9906, 1070]] } }],
    ['embeddings of other token ids', { embedding: { inputs: [[9906, 1071]] } }],
    ['embeddings of fewer dimensions', { embedding: { inputs: [[9906, 1071]], dimensions: 256 } }],
  ]
  const keys = new Set([encodeCacheKey(base)])
  for (const [what, change] of variants) {
    const key = encodeCacheKey({ ...base, ...change })
    t.notOk(keys.has(key), what)
    keys.add(key)
  }
})

t.test('moving text between messages or fields changes the key', async (t) => {
  const split = (a: string, b: string): CacheKeyFields => ({
    ...base,
    messages: [
      { role: 'user', content: a },
      { role: 'user', content: b },
    ],
  })
  t.not(encodeCacheKey(split('ab', 'c')), encodeCacheKey(split('a', 'bc')))
  t.not(encodeCacheKey(split('a', '","b')), encodeCacheKey(split('a","', 'b')))
  t.not(encodeCacheKey({ ...base, provider: 'open', model: 'aigpt-4o-mini' }), encodeCacheKey({ ...base, provider: 'openai', model: 'gpt-4o-mini' }))
})

t.test('two different requests never share an encoding', async (t) => {
  const message = fc.record({ role: fc.constantFrom('user' as const, 'assistant' as const, 'system' as const), content: fc.string({ maxLength: 12 }) })
  const fields = fc.record({
    projectId: fc.string({ maxLength: 6 }),
    provider: fc.constantFrom('openai', 'local'),
    model: fc.constantFrom('gpt-4o', 'gpt-4o-mini'),
    messages: fc.array(message, { minLength: 1, maxLength: 4 }),
    temperature: fc.constantFrom(0, 0.7, 2),
    maxTokens: fc.constantFrom(1, 1000),
    mode: fc.constantFrom('text', 'json'),
    governorVersion: fc.constantFrom(null, 1, 2),
  })
  fc.assert(
    fc.property(fields, fields, (a, b) => {
      const same = JSON.stringify(a) === JSON.stringify(b)
      return (encodeCacheKey(a) === encodeCacheKey(b)) === same
    }),
  )
})

t.test("tools, sampling options and tool turns change the key; the end user's id does not", async (t) => {
  const tool = { name: 'lookup', parameters: { type: 'object' } }
  const variants: ReadonlyArray<readonly [string, Partial<CacheKeyFields>]> = [
    ['tools', { options: { tools: [tool] } }],
    ['a tool choice', { options: { tools: [tool], toolChoice: 'required' } }],
    ['top_p', { options: { topP: 0.5 } }],
    ['stop sequences', { options: { stop: ['END'] } }],
    ['a seed', { options: { seed: 1 } }],
    ['a json schema', { mode: 'json', options: { jsonSchema: { name: 's', schema: { type: 'object' } } } }],
    ['a tool call', { messages: [...base.messages, { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'lookup', arguments: '{}' }] }] }],
    ['a tool result', { messages: [...base.messages, { role: 'tool', content: '', toolCallId: 'c1' }] }],
    ['an image', { messages: [base.messages[0]!, { role: 'user', content: 'Hello there.', parts: [{ type: 'image', url: 'https://img.example/a.png' }] }] }],
  ]
  const keys = new Set([encodeCacheKey(base), encodeCacheKey({ ...base, mode: 'json' })])
  for (const [what, change] of variants) {
    const key = encodeCacheKey({ ...base, ...change })
    t.notOk(keys.has(key), what)
    keys.add(key)
  }
  t.equal(encodeCacheKey({ ...base, options: { user: 'someone' } }), encodeCacheKey(base), 'user')
  t.equal(encodeCacheKey({ ...base, options: {} }), encodeCacheKey(base), 'a request without options keeps the plain encoding')
})
