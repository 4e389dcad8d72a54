import t from 'tap'
import { BudgetExceededError } from '../../../plugins/metering/errors.ts'
import { toGatewayError } from '../../../proxy/pipeline/errors.ts'

t.test("a budget that cannot cover a request answers 402 with the spec's text", async (t) => {
  const error = new BudgetExceededError('spent')
  t.equal(error.status, 402)
  t.match(error.toBody(), { error: 'Budget exceeded', message: 'spent', code: 'budget_exceeded' })
  t.same(error.headers(), {})
  t.equal(toGatewayError(error), error, 'the core renders it as the GatewayError it is')
})
