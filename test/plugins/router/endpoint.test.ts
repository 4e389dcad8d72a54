import t from 'tap'
import { pino } from 'pino'
import { Writable } from 'node:stream'
import { endpointOf, urlOf } from '../../../plugins/router/providers/endpoint.ts'
import router from '../../../plugins/router/index.ts'
import { routerSchema } from '../../../plugins/router/schema.ts'
import { pluginDeps } from './fixtures.ts'

const chatUrl = (baseUrl: string) => urlOf(endpointOf('openai', baseUrl, '/v1/chat/completions', 'key', {}))

t.test('a base URL with or without the API version segment reaches the same endpoint', async (t) => {
  for (const base of ['https://api.openai.com', 'https://api.openai.com/', 'https://api.openai.com/v1', 'https://api.openai.com/v1/']) {
    t.equal(chatUrl(base), 'https://api.openai.com/v1/chat/completions', base)
  }
})

t.test('a path prefix is kept, with or without the version segment after it', async (t) => {
  t.equal(chatUrl('http://proxy.local/openai'), 'http://proxy.local/openai/v1/chat/completions')
  t.equal(chatUrl('http://proxy.local/openai/v1'), 'http://proxy.local/openai/v1/chat/completions')
  t.equal(chatUrl('http://proxy.local/v10'), 'http://proxy.local/v10/v1/chat/completions', "only the API's own version is dropped")
  t.equal(chatUrl('http://proxy.local/api-v1'), 'http://proxy.local/api-v1/v1/chat/completions')
})

t.test('logs the resolved upstream URL of each provider at start', async (t) => {
  const lines: Record<string, unknown>[] = []
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString('utf8')))
      done()
    },
  })
  const config = routerSchema.parse({
    providers: { openai: { apiKey: 'sk-x', baseUrl: 'https://gateway.example/v1' }, anthropic: { apiKey: 'sk-ant-x', baseUrl: 'https://anthropic.example' } },
  })
  const hooks = await router.setup(config, { ...pluginDeps(), log: pino({ level: 'info' }, sink) })
  t.teardown(() => hooks.close?.())
  const logged = Object.fromEntries(lines.filter((line) => line.msg === 'provider upstream').map((line) => [line.provider, line.upstream]))
  t.same(logged, {
    openai: 'https://gateway.example/v1/chat/completions',
    anthropic: 'https://anthropic.example/v1/messages',
    mistral: 'local (no API key)',
  })
})
