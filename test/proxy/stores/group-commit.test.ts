// Grouped writes: everything queued while a group commits, or within the window of its start,
// goes in the next group's one transaction; one job's failure is its own.
import t from 'tap'
import { groupCommit, type TransactionRunner } from '../../../proxy/stores/group-commit.ts'
import { until } from '../../helpers/until.ts'

/** A store whose commits the test lets through one at a time. */
function heldRunner() {
  const commits: { jobs: number; release: () => void }[] = []
  let running = 0
  const runner: TransactionRunner = {
    transaction<T>(fn: () => T): Promise<T> {
      running = 0
      const result = fn()
      return new Promise<T>((resolve) => commits.push({ jobs: running, release: () => resolve(result) }))
    },
  }
  const counted =
    <T>(fn: () => T) =>
    () => {
      running++
      return fn()
    }
  return { runner, commits, counted }
}

t.test('writes queued while a group commits share the next transaction', async (t) => {
  const { runner, commits, counted } = heldRunner()
  const groups = groupCommit(runner, 0)
  const first = groups.run(counted(() => 'a'))
  await until(() => commits.length === 1, 'the first group to start', 5_000)
  const rest = [groups.run(counted(() => 'b')), groups.run(counted(() => 'c')), groups.run(counted(() => 'd'))]
  t.equal(commits.length, 1, 'nothing else starts while a group commits')
  commits[0]!.release()
  t.equal(await first, 'a')
  await until(() => commits.length === 2, 'the second group to start', 5_000)
  t.equal(commits[1]!.jobs, 3, 'the three queued meanwhile run in one transaction')
  commits[1]!.release()
  t.same(await Promise.all(rest), ['b', 'c', 'd'])
})

t.test('a group starts no sooner than the window after the previous one', async (t) => {
  const { runner, commits, counted } = heldRunner()
  const groups = groupCommit(runner, 200)
  const first = groups.run(counted(() => 1))
  await until(() => commits.length === 1, 'the first group to start', 5_000)
  commits[0]!.release()
  await first
  const started = performance.now()
  const second = groups.run(counted(() => 2))
  const third = groups.run(counted(() => 3))
  await until(() => commits.length === 2, 'the second group to start', 5_000)
  t.ok(performance.now() - started >= 150, 'it waited for the window')
  t.equal(commits[1]!.jobs, 2)
  commits[1]!.release()
  t.same(await Promise.all([second, third]), [2, 3])
})

t.test('a job that throws fails alone; a transaction that fails fails its whole group', async (t) => {
  const groups = groupCommit({ transaction: async <T>(fn: () => T) => fn() }, 0)
  const [broken, fine] = await Promise.allSettled([
    groups.run(() => {
      throw new Error('broken')
    }),
    groups.run(() => 'fine'),
  ])
  t.match(broken, { status: 'rejected', reason: { message: 'broken' } })
  t.same(fine, { status: 'fulfilled', value: 'fine' })
  const closed = groupCommit(
    {
      transaction: () => {
        throw new Error('closed')
      },
    },
    0,
  )
  const both = await Promise.allSettled([closed.run(() => 1), closed.run(() => 2)])
  t.same(
    both.map((outcome) => outcome.status),
    ['rejected', 'rejected'],
  )
})
