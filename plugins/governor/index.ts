// The Governor: a compliance verdict, an audit record and the x-governor-* headers for every AI
// request that carries governorMetadata; strict-mode blocking; the checks of the model's answer
// (streams too, as they arrive), its redaction;
// and the compliance records a compliance team works from (/api/compliance/*, /api/governor/validate).
import type { GatewayPlugin } from '../../proxy/pipeline/plugin.ts'
import { warmUpScanner } from '../../workers/scan/warm-up.ts'
import { createAnswerHooks } from './answer-hooks.ts'
import { checkedClassifier } from './classifier-check.ts'
import { createAssessor } from './assess.ts'
import { createGovernorMetrics } from './metrics.ts'
import { createPolicies } from './policies.ts'
import { createProjectRules } from './project-rules.ts'
import { createIds } from './ids.ts'
import { openGovernorRecords } from './store/index.ts'
import { createRequestHooks } from './request-hooks.ts'
import { alertRoutes } from './routes/alert-routes.ts'
import { auditRoutes } from './routes/audit-route.ts'
import { caseRoutes } from './routes/case-routes.ts'
import { modelRoutes } from './routes/model-routes.ts'
import { policyRoutes } from './routes/policy-routes.ts'
import { ruleTestRoute } from './routes/rule-test-route.ts'
import { scoreRoutes } from './routes/score-route.ts'
import { validateRoute } from './routes/validate-route.ts'
import { violationRoutes } from './routes/violation-routes.ts'
import { governorSchema } from './schema.ts'
import { governorLogFields } from './state.ts'

export default {
  name: 'governor',
  order: 300,
  gates: ['ai'],
  reads: ['auth', 'router'],
  requires: ['auth'],
  schema: governorSchema,
  async setup(config, { store, database, sharedEvents, pool, metrics: registry, log, clock, events, services }) {
    // Before the gateway listens: otherwise the first requests' scans, inline on the event loop,
    // compile the detectors' patterns and hold every request behind them for up to ~17 ms.
    warmUpScanner()
    const classifier = await checkedClassifier(config.classifier)
    const newId = createIds(clock)
    const records = await openGovernorRecords({ store, database, sharedEvents, events, clock, newId })
    const { trail, models } = records
    const metrics = createGovernorMetrics(registry)
    const rules = createProjectRules(log)
    const assess = createAssessor({
      pool,
      limits: { inlineMaxChars: config.inlineScanChars, inlineBudgetChars: config.inlineBudgetChars, learned: config.learnedModel, classifier },
      memoEntries: config.memoEntries,
      scanSeconds: metrics.scanSeconds,
      rules,
    })
    const hooks = createRequestHooks({ assess, trail, models, newId, clock, metrics })
    const answers = createAnswerHooks({ assess, trail, models, newId, clock, metrics, rules, pool, learned: config.learnedModel })
    // Settings and policies are fields of the project record, written through the auth plugin's
    // registry by the policies service only; later plugins (the management API) are given it too.
    const policies = createPolicies(services.registry!)
    return {
      provides: { policies },
      logFields: governorLogFields,
      routes: [validateRoute({ assess, trail, newId, clock, metrics })],
      projectRoutes: [
        ...violationRoutes(records.violations),
        ...alertRoutes(records.alerts),
        ...caseRoutes(records.cases),
        ...policyRoutes(policies),
        ...modelRoutes(models),
        ...scoreRoutes(records.violations, clock),
        ...auditRoutes(trail, records.chain),
        ruleTestRoute(),
      ],
      onRequest: hooks.onRequest,
      onStreamChunk: answers.onStreamChunk,
      holdsStreamToolCalls: answers.holdsStreamToolCalls,
      onStreamEnd: answers.onStreamEnd,
      onAnswer: answers.onAnswer,
    }
  },
} satisfies GatewayPlugin<typeof governorSchema>
