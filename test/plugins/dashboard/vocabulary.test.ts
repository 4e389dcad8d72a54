// The dashboard's forms offer the values the API accepts: its lists are the server's lists.
import t from 'tap'
import { EVENT_KINDS } from '../../../proxy/stores/events/index.ts'
import { PLANS } from '../../../proxy/pipeline/project.ts'
import { SEVERITIES, VIOLATION_TYPES } from '../../../plugins/governor/logic/verdict/types.ts'
import type { AlertType } from '../../../plugins/governor/store/types.ts'
import { SPEND_DIMENSIONS } from '../../../plugins/metering/logic/spend-breakdown.ts'

interface Vocabulary {
  readonly SEVERITIES: readonly string[]
  readonly VIOLATION_TYPES: readonly string[]
  readonly ALERT_TYPES: readonly string[]
  readonly EVENT_KINDS: readonly string[]
  readonly PLANS: ReadonlyArray<readonly [string, string]>
  readonly SPEND_DIMENSIONS: ReadonlyArray<readonly [string, string]>
}

const vocabulary = (await import(new URL('../../../dashboard/src/vocabulary.js', import.meta.url).href)) as Vocabulary

t.test('the dashboard offers exactly the values the API accepts', async (t) => {
  t.same(vocabulary.SEVERITIES, SEVERITIES)
  t.same(vocabulary.VIOLATION_TYPES, VIOLATION_TYPES)
  t.same(vocabulary.EVENT_KINDS, EVENT_KINDS)
  const alertTypes: Record<AlertType, true> = {
    high_risk_request: true,
    blocked_request: true,
    sensitive_output: true,
    withheld_output: true,
    blocked_output: true,
  }
  t.same([...vocabulary.ALERT_TYPES].sort(), Object.keys(alertTypes).sort())
  t.same(
    vocabulary.PLANS.map(([plan]) => plan),
    PLANS.filter((plan) => plan !== 'startup'),
    'every plan but the pro alias',
  )
  t.same(
    vocabulary.SPEND_DIMENSIONS.map(([by]) => by),
    SPEND_DIMENSIONS,
  )
})
