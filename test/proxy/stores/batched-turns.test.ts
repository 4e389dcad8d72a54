import t from 'tap'
import { batchedTurns } from '../../../proxy/stores/batched-turns.ts'
import { until } from '../../helpers/until.ts'

/** A commit that waits until released, recording each batch it was given. */
function gatedCommit(fail: (batch: readonly number[]) => Error | undefined = () => undefined) {
  const batches: number[][] = []
  const gates: Array<() => void> = []
  const commit = async (batch: readonly number[]) => {
    batches.push([...batch])
    await new Promise<void>((resolve) => gates.push(resolve))
    const err = fail(batch)
    if (err !== undefined) throw err
    return batch.map((n) => n * 10)
  }
  const releaseNext = async () => {
    await until(() => gates.length > 0, 'a batch waiting at its gate')
    gates.shift()!()
  }
  return { batches, commit, releaseNext }
}

t.test('what arrives during a turn goes together in the next, each with its own result', async (t) => {
  const { batches, commit, releaseNext } = gatedCommit()
  const turn = batchedTurns(commit, { maxBatch: 10, retryAlone: () => true })
  const results = [turn('p', 1), turn('p', 2), turn('p', 3), turn('q', 4)]
  await releaseNext()
  await releaseNext()
  await releaseNext()
  t.same(await Promise.all(results), [10, 20, 30, 40])
  t.same(batches, [[1], [4], [2, 3]], 'keys run apart; the two that waited share one commit')
})

t.test('a turn takes at most maxBatch; the rest wait for the one after', async (t) => {
  const { batches, commit, releaseNext } = gatedCommit()
  const turn = batchedTurns(commit, { maxBatch: 2, retryAlone: () => true })
  const results = [1, 2, 3, 4, 5, 6].map((n) => turn('p', n))
  for (let i = 0; i < 4; i++) await releaseNext()
  t.same(await Promise.all(results), [10, 20, 30, 40, 50, 60])
  t.same(batches, [[1], [2, 3], [4, 5], [6]])
})

t.test('a batch that fails for one item is retried one by one, so only that item fails', async (t) => {
  const { batches, commit, releaseNext } = gatedCommit((batch) => (batch.includes(3) ? new Error('bad item') : undefined))
  const turn = batchedTurns(commit, { maxBatch: 10, retryAlone: () => true })
  const results = [1, 2, 3, 4].map((n) => turn('p', n).catch((err: Error) => err.message))
  for (let i = 0; i < 5; i++) await releaseNext()
  t.same(await Promise.all(results), [10, 20, 'bad item', 40])
  t.same(batches, [[1], [2, 3, 4], [2], [3], [4]])
})

t.test("a failure that is everyone's fails the whole batch at once, and the next turn still runs", async (t) => {
  let away = true
  const { batches, commit, releaseNext } = gatedCommit(() => (away ? new Error('database away') : undefined))
  const turn = batchedTurns(commit, { maxBatch: 10, retryAlone: () => false })
  const first = [1, 2, 3].map((n) => turn('p', n).catch((err: Error) => err.message))
  await releaseNext()
  await releaseNext()
  t.same(await Promise.all(first), ['database away', 'database away', 'database away'])
  away = false
  const later = turn('p', 7)
  await releaseNext()
  t.equal(await later, 70)
  t.same(batches, [[1], [2, 3], [7]])
})
