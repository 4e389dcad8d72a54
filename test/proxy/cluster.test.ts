// The --workers primary's restart backoff: 250 ms, doubling with each young death, at most 15 s.
import t from 'tap'
import { backoffMs } from '../../proxy/cluster.ts'

t.test('the backoff doubles and is capped', async (t) => {
  t.same([1, 2, 3, 4, 5, 6, 7, 20].map(backoffMs), [250, 500, 1000, 2000, 4000, 8000, 15_000, 15_000])
})
