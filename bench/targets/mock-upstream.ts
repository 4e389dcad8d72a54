// Child entry: the mock provider answering at once, without keeping the requests it saw.
import { startMockUpstream } from '../../test/helpers/mock-upstream.ts'
import { runChild } from './lifecycle.ts'

await runChild(async () => {
  const mock = await startMockUpstream({ latencyMs: 0, record: false })
  return { info: { url: mock.url }, stop: () => mock.close() }
})
