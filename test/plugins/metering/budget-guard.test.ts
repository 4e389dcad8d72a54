// The budget's rules as the request path meets them.
import { Registry } from 'prom-client'
import t from 'tap'
import { systemClock } from '../../../proxy/kit/clock.ts'
import { BudgetExceededError } from '../../../plugins/metering/errors.ts'
import type { Project } from '../../../proxy/pipeline/project.ts'
import { openStore } from '../../../proxy/stores/store.ts'
import { createBudgetGuard } from '../../../plugins/metering/budget-guard.ts'
import { lmdbMeteringStore } from '../../../plugins/metering/store/lmdb/index.ts'
import { freshDataDir } from '../../helpers/start-gateway.ts'

t.test('a process alone on its store decides a hold at once, without a promise, and never past the budget', async (t) => {
  const store = openStore(freshDataDir(t))
  t.teardown(() => store.close())
  const track = (work: Promise<unknown>) => void work.catch(() => undefined)
  const ledger = lmdbMeteringStore(store.forPlugin('metering'), { shared: false, track })
  const guard = createBudgetGuard({ ledger, clock: systemClock, metrics: new Registry(), track })
  const project = { id: 'proj_guard', budgetDollars: 1 } as Project

  const first = guard.hold('r1', project, 600_000)
  t.notOk(first instanceof Promise, 'decided at once')
  t.match(first, { requestId: 'r1', micros: 600_000 })
  t.type(guard.hold('r2', project, 600_000), BudgetExceededError, 'the second does not fit beside the first')
  t.match(guard.hold('r3', project, 400_000), { requestId: 'r3' }, 'what is left still does')
})
