import t from 'tap'
import { modelCatalog } from '../../../proxy/pipeline/catalog.ts'
import { apiPathOf } from '../../../plugins/passthrough/logic/api-path.ts'
import { answerHeaders, outgoingHeaders } from '../../../plugins/passthrough/logic/forward-headers.ts'
import { ceilingMicros, costBoundMicros } from '../../../plugins/passthrough/logic/hold-bound.ts'
import { costOf, priceOf } from '../../../plugins/passthrough/logic/price.ts'
import { usageScanner } from '../../../plugins/passthrough/logic/usage-scan.ts'

t.test("outgoing headers: no client credential, no hop-by-hop header, the gateway's credential", async (t) => {
  const headers = outgoingHeaders(
    {
      authorization: 'Bearer sk_prod_gateway',
      'x-api-key': 'sk-client',
      'api-key': 'azure',
      cookie: 'session=1',
      connection: 'keep-alive, x-hop',
      'x-hop': '1',
      'transfer-encoding': 'chunked',
      host: 'gateway',
      'content-type': 'application/json',
      'anthropic-version': '2024-01-01',
      'accept-encoding': 'gzip',
    },
    { 'x-api-key': 'sk-ant-gateway' },
    { 'anthropic-version': '2023-06-01' },
  )
  t.same(headers, { 'anthropic-version': '2024-01-01', 'content-type': 'application/json', 'accept-encoding': 'identity', 'x-api-key': 'sk-ant-gateway' })
})

t.test("outgoing headers: the gateway's own request headers stay with the gateway", async (t) => {
  const headers = outgoingHeaders(
    { 'x-gateway-tags': 'team:search', 'x-governor-metadata': '{"purpose":"support"}', 'x-gateway-anything': '1', 'content-type': 'application/json' },
    {},
    {},
  )
  t.same(headers, { 'content-type': 'application/json', 'accept-encoding': 'identity' })
})

t.test("answer headers: the gateway's own names win, the provider's request id is renamed, cookies stay", async (t) => {
  const own = new Set(['x-ratelimit-limit'])
  t.same(
    answerHeaders({ 'x-request-id': 'p1', 'x-ratelimit-limit': '5', 'set-cookie': ['a=1'], connection: 'close', 'content-type': 'application/json' }, (name) =>
      own.has(name),
    ),
    { 'x-upstream-request-id': 'p1', 'content-type': 'application/json' },
  )
})

t.test('api paths: plain segments pass, anything that could climb or split a segment does not', async (t) => {
  t.equal(apiPathOf('v1/files/file-abc/content'), '/v1/files/file-abc/content')
  t.equal(apiPathOf('v1/models/ft:gpt-4o-mini:org:x%20y'), '/v1/models/ft:gpt-4o-mini:org:x%20y')
  for (const rest of ['v1/..', 'v1/.', 'v1//x', 'v1/a%2Fb', 'v1/a%2fb', 'v1/%2e%2e', 'v1/a%5cb', 'v1/a\\b', 'v1/a%0a', 'v1/']) {
    t.type(apiPathOf(rest), Error, rest)
  }
})

t.test('usage from JSON answers, whole or by their tail', async (t) => {
  const whole = usageScanner('application/json', 1024)
  const body = Buffer.from(JSON.stringify({ model: 'text-embedding-3-small', data: [], usage: { prompt_tokens: 7, total_tokens: 7 } }))
  whole.push(body.subarray(0, 10))
  whole.push(body.subarray(10))
  t.same(whole.finish(), { model: 'text-embedding-3-small', promptTokens: 7, completionTokens: 0 })
  const big = usageScanner('application/json; charset=utf-8', 1024)
  big.push(Buffer.from(`{"object":"list","data":[${'0.1,'.repeat(100_000)}0.1],`))
  big.push(Buffer.from('"model":"gpt-4o","usage":{"prompt_tokens":3,"completion_tokens":4,"total_tokens":7}}'))
  t.same(big.finish(), { model: 'gpt-4o', promptTokens: 3, completionTokens: 4 }, 'past the bound, from the tail')
  const other = usageScanner('application/octet-stream', 1024)
  other.push(Buffer.from('{"usage":{"prompt_tokens":1}}'))
  t.same(other.finish(), {}, 'another type reports nothing')
})

t.test('usage from SSE: the events carrying usage, field by field, split anywhere', async (t) => {
  const text = [
    'event: message_start\r\ndata: {"type":"message_start","message":{"model":"claude-3-haiku-20240307","usage":{"input_tokens":25,"output_tokens":1}}}\r\n\r\n',
    'event: content_block_delta\ndata: {"type":"content_block_delta","delta":{"text":"usage"}}\n\n',
    'event: message_delta\ndata: {"type":"message_delta","usage":{"output_tokens":15}}\n\n',
    'data: [DONE]\n\n',
  ].join('')
  for (const size of [1, 7, text.length]) {
    const scanner = usageScanner('text/event-stream', 1024)
    const bytes = Buffer.from(text)
    for (let i = 0; i < bytes.length; i += size) scanner.push(bytes.subarray(i, i + size))
    t.same(scanner.finish(), { model: 'claude-3-haiku-20240307', promptTokens: 25, completionTokens: 15 }, `chunks of ${size}`)
  }
  const chat = usageScanner('text/event-stream', 1024)
  chat.push(
    Buffer.from(
      'data: {"model":"gpt-4o-mini","choices":[],"usage":null}\n\ndata: {"model":"gpt-4o-mini","choices":[],"usage":{"prompt_tokens":9,"completion_tokens":2}}\n\n',
    ),
  )
  t.same(chat.finish(), { model: 'gpt-4o-mini', promptTokens: 9, completionTokens: 2 })
  const long = usageScanner('text/event-stream', 64)
  long.push(Buffer.from(`data: {"usage":{"prompt_tokens":1},"pad":"${'x'.repeat(200)}"}\n\ndata: {"usage":{"prompt_tokens":2}}\n\n`))
  t.same(long.finish(), { promptTokens: 2 }, 'an event past the bound is skipped, not kept')
})

t.test('cost: priced from the catalog (dated snapshots too) or the extra list, else unknown', async (t) => {
  const extra = { 'text-embedding-3-small': { inputPerMillion: 0.02, outputPerMillion: 0 } }
  t.same(costOf({ model: 'gpt-4o-2024-08-06', promptTokens: 1000, completionTokens: 100 }, modelCatalog(), extra), { micros: 3500 })
  t.same(costOf({ model: 'text-embedding-3-small', promptTokens: 1_000_000 }, modelCatalog(), extra), { micros: 20_000 })
  t.same(costOf({ model: 'mystery', promptTokens: 1 }, modelCatalog(), extra), { unknown: 'no_price' })
  t.same(costOf({ promptTokens: 1 }, modelCatalog(), extra), { unknown: 'no_price' })
  t.same(costOf({ model: 'gpt-4o' }, modelCatalog(), extra), { unknown: 'no_usage' })
  t.same(costOf({ model: 'toString', promptTokens: 1 }, modelCatalog(), extra), { unknown: 'no_price' }, 'no prototype key is a price')
})

t.test("hold bound: body bytes as prompt tokens and every output token allowed, at the model's list price", async (t) => {
  const extra = { 'text-embedding-3-small': { inputPerMillion: 0.02, outputPerMillion: 0 } }
  const price = (model: string) => priceOf(model, modelCatalog(), extra)
  // gpt-4o: $2.50 and $10 a million, so 2.5 and 10 micro-dollars a token.
  t.equal(costBoundMicros({ model: 'gpt-4o', max_tokens: 100 }, 1000, price), 3500)
  t.equal(costBoundMicros({ model: 'gpt-4o-2024-08-06', max_completion_tokens: 100 }, 1000, price), 3500, 'a dated snapshot is priced as its model')
  t.equal(costBoundMicros({ model: 'gpt-4o', max_output_tokens: 100 }, 1001, price), 3503, 'rounded up')
  t.equal(costBoundMicros({ model: 'gpt-4o', max_tokens: 10, max_completion_tokens: 100 }, 0, price), 1000, 'the larger of two limits')
  t.equal(costBoundMicros({ model: 'gpt-4o', max_tokens: 100, n: 3 }, 0, price), 3000, 'every choice asked for')
  t.equal(costBoundMicros({ model: 'text-embedding-3-small', input: 'x' }, 50_000, price), 1000, 'no output limit needed where output is free')
  t.equal(costBoundMicros({ model: 'gpt-4o' }, 1000, price), undefined, 'no output limit')
  t.equal(costBoundMicros({ model: 'gpt-4o', max_tokens: '100' }, 1000, price), undefined, 'an output limit that is no count')
  t.equal(costBoundMicros({ model: 'gpt-4o', max_tokens: -1 }, 1000, price), undefined)
  t.equal(costBoundMicros({ model: 'mystery', max_tokens: 100 }, 1000, price), undefined, 'no price')
  t.equal(costBoundMicros({ model: 'toString', max_tokens: 100 }, 1000, price), undefined, 'no prototype key is a price')
  t.equal(costBoundMicros({ max_tokens: 100 }, 1000, price), undefined, 'no model')
  t.equal(costBoundMicros([{ model: 'gpt-4o', max_tokens: 100 }], 1000, price), undefined, 'no object')
  t.equal(costBoundMicros(undefined, 1000, price), undefined, 'no JSON')
})

t.test('hold ceiling: the longest configured provider path that covers the request, by whole segments, else the default', async (t) => {
  const ceilings = { dollars: 1, byPath: { openai: 0.5, 'openai/v1/files': 0, 'anthropic/v1/messages/count_tokens': 0 } }
  t.equal(ceilingMicros(ceilings, 'openai', '/v1/files'), 0)
  t.equal(ceilingMicros(ceilings, 'openai', '/v1/files/file-1/content'), 0)
  t.equal(ceilingMicros(ceilings, 'openai', '/v1/filesystem'), 500_000, 'a segment is matched whole')
  t.equal(ceilingMicros(ceilings, 'openai', '/v1/batches'), 500_000)
  t.equal(ceilingMicros(ceilings, 'anthropic', '/v1/messages/count_tokens'), 0)
  t.equal(ceilingMicros(ceilings, 'anthropic', '/v1/messages'), 1_000_000)
  t.equal(ceilingMicros(ceilings, 'mistral', '/v1/files'), 1_000_000)
})
