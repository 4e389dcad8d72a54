import t from 'tap'
import { providerDirectory } from '../../../plugins/router/provider-directory.ts'
import { routerSchema } from '../../../plugins/router/schema.ts'

t.test('the pass-through reaches a provider through its single key, or its first native deployment', async (t) => {
  const single = providerDirectory(routerSchema.parse({ providers: { openai: { apiKey: 'sk-one' } } }))
  t.match(single.target('openai', '/v1/files'), { origin: 'https://api.openai.com', path: '/v1/files', credential: { authorization: 'Bearer sk-one' } })
  t.equal(single.target('mistral', '/v1/files'), undefined, 'no key, no pass-through')

  const several = providerDirectory(
    routerSchema.parse({
      providers: {
        openai: {
          deployments: [
            {
              name: 'azure',
              kind: 'azure',
              baseUrl: 'https://eu.openai.azure.com',
              apiKey: 'az',
              apiVersion: '2024-10-21',
              azureDeployments: { 'gpt-4o': 'd' },
            },
            { name: 'proxy', baseUrl: 'https://proxy.example/openai', apiKey: 'sk-proxy' },
          ],
        },
        anthropic: { deployments: [{ name: 'claude', apiKey: 'sk-ant' }] },
      },
    }),
  )
  t.match(several.target('openai', '/v1/files'), {
    origin: 'https://proxy.example',
    path: '/openai/v1/files',
    credential: { authorization: 'Bearer sk-proxy' },
  })
  t.match(several.target('anthropic', '/v1/messages/batches'), { origin: 'https://api.anthropic.com', credential: { 'x-api-key': 'sk-ant' } })

  const azureOnly = providerDirectory(
    routerSchema.parse({
      providers: {
        openai: {
          deployments: [
            { name: 'azure', kind: 'azure', baseUrl: 'https://eu.openai.azure.com', apiKey: 'az', apiVersion: 'v', azureDeployments: { 'gpt-4o': 'd' } },
          ],
        },
      },
    }),
  )
  t.equal(azureOnly.target('openai', '/v1/files'), undefined, "Azure speaks no pass-through of OpenAI's paths")
})
