// The dashboard and the alert rules query only metrics the gateway really exposes, so neither
// shows an empty panel nor an alert that can never fire.
import t from 'tap'
import { readFileSync } from 'node:fs'
import { execFileSync, spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { call } from '../helpers/http.ts'
import { startTestGateway } from '../helpers/start-gateway.ts'

const file = (path: string) => fileURLToPath(new URL(`../../${path}`, import.meta.url))
const dashboard = JSON.parse(readFileSync(file('ops/grafana/tollgate-dashboard.json'), 'utf8')) as { panels: Array<{ targets: Array<{ expr: string }> }> }
const rules = readFileSync(file('ops/prometheus/alerts.yml'), 'utf8')

// Metric names in PromQL: identifiers followed by a selector, a range or a closing parenthesis.
function metricNames(expr: string): string[] {
  const names = expr.match(/\b(tollgate_[a-z_]+|nodejs_[a-z_0-9]+|up)\b(?=\s*[{[)])/g) ?? []
  return names.map((n) => n.replace(/_(bucket|count|sum)$/, ''))
}

t.test('every metric the dashboard and the alert rules use is exposed by the gateway', async (t) => {
  const { url } = await startTestGateway(t)
  const exposed = new Set([...((await call(`${url}/metrics`)).body as string).matchAll(/^# HELP (\S+)/gm)].map((m) => m[1]!))
  exposed.add('up')
  const used = new Set([
    ...dashboard.panels.flatMap((p) => p.targets.flatMap((target) => metricNames(target.expr))),
    ...[...rules.matchAll(/expr: \|?\s*([\s\S]*?)\n\s+(?:for|labels):/g)].flatMap((m) => metricNames(m[1]!)),
  ])
  t.ok(used.size >= 10, `the files use ${used.size} metrics`)
  t.same(
    [...used].filter((name) => !exposed.has(name)),
    [],
    'no unknown metric names',
  )
})

const PROMTOOL_MISSING = spawnSync('promtool', ['--version']).error === undefined ? false : 'promtool is not installed (.ci/run installs it)'

t.test('the alert rules pass promtool', { skip: PROMTOOL_MISSING }, async (t) => {
  t.doesNotThrow(() => execFileSync('promtool', ['check', 'rules', file('ops/prometheus/alerts.yml')]))
})
