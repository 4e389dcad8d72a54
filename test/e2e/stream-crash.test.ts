// Streams cut by a crash are still metered: a running stream's progress is checkpointed into the
// store, and the restart settles each stream a dead process left to its last checkpoint, marked
// `recovered`, instead of releasing its hold as if nothing had been generated.
import t from 'tap'
import { once } from 'node:events'
import { fileURLToPath } from 'node:url'
import { request } from 'undici'
import { gatewayToCrash, ledgerAfterRestart } from '../helpers/cut-streams.ts'
import { startMockUpstream } from '../helpers/mock-upstream.ts'
import { until } from '../helpers/until.ts'
import { openStore } from '../../proxy/stores/store.ts'
import type { StreamCheckpoint } from '../../plugins/metering/store/records.ts'
import { countTokens } from '../../workers/count-tokens.ts'

const CLI = fileURLToPath(new URL('../../cli/tollgate.ts', import.meta.url))
const CHECKPOINT_MS = 200
const STREAMS = 5

interface Received {
  readonly id: string
  text: string
}

for (const shared of [false, true]) {
  t.test(
    `streams cut by a SIGKILL are in the ledger after the restart, with at least the tokens checkpointed (${shared ? 'holds in the store' : 'holds in memory'})`,
    async (t) => {
      // The provider streams a word every 20 ms and never ends.
      const mock = await startMockUpstream({ slowStreamMs: 20 })
      t.teardown(() => mock.close())
      mock.fail('slow-stream', STREAMS)
      const { dataDir, seeded, env, first } = await gatewayToCrash(t, CLI, mock, { shared, checkpointIntervalMs: CHECKPOINT_MS })

      const received: Received[] = await Promise.all(
        Array.from({ length: STREAMS }, async (_, i) => {
          const res = await request(`${first.url}/api/ai/chat`, {
            method: 'POST',
            headers: { 'x-api-key': seeded.keys[0]!.key, 'content-type': 'application/json', 'cache-control': 'no-store' },
            body: JSON.stringify({ messages: [{ role: 'user', content: `Tell me a very long story, number ${i}` }], maxTokens: 4000 }),
          })
          const stream: Received = { id: String(res.headers['x-request-id']), text: '' }
          res.body.setEncoding('utf8')
          res.body.on('data', (chunk: string) => {
            for (const match of chunk.matchAll(/^data: (\{"text".*\})$/gm)) stream.text += JSON.parse(match[1]!).text
          })
          res.body.on('error', () => undefined)
          return stream
        }),
      )
      await until(() => received.every((stream) => countTokens(stream.text) >= 40), '40 tokens on every stream', 30_000)
      // What each client had at this moment is in a checkpoint soon after: the test waits to see it
      // there, as a busy machine may run the gateway's checkpoint timer late.
      const checkpointed = received.map((stream) => countTokens(stream.text))
      const watching = openStore(dataDir)
      const checkpoints = watching.forPlugin('metering').open<StreamCheckpoint>('stream-checkpoints', { records: true })
      await until(
        () => received.every((stream, i) => (checkpoints.get(stream.id)?.entry.completionTokens ?? 0) >= checkpointed[i]!),
        'a checkpoint of what each client had',
      )
      await watching.close()
      first.child.kill('SIGKILL')
      await once(first.child, 'exit')
      const generated = received.map((stream) => countTokens(stream.text))

      const { ledger } = await ledgerAfterRestart(t, CLI, dataDir, env)
      received.forEach((stream, i) => {
        const entry = ledger.entry(stream.id)
        t.ok(entry !== undefined, `stream ${i} is in the ledger`)
        t.equal(entry?.outcome, 'recovered')
        t.ok(
          entry!.completionTokens >= checkpointed[i]!,
          `stream ${i}: ${entry!.completionTokens} tokens metered, at least the ${checkpointed[i]} checkpointed`,
        )
        // Text already sent but still in flight to the client, and the checkpoints' counting in slices, add a little.
        t.ok(entry!.completionTokens <= generated[i]! * 1.25 + 10, `and about what the client received (${generated[i]})`)
        t.ok(entry!.costMicros > 0, 'and charged')
      })
      t.equal(ledger.checkpointCount(), 0, 'no checkpoint is left')
      t.equal(ledger.reservationCount(), 0, 'no hold is left')
      const month = received.length > 0 ? ledger.entry(received[0]!.id)!.month : ''
      const charged = received.reduce((sum, stream) => sum + ledger.entry(stream.id)!.costMicros, 0)
      t.equal(ledger.budget(seeded.projectId, month).usedMicros, charged, 'the budget is charged exactly what the ledger says')
    },
  )
}
