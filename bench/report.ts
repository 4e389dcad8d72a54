// The printed forms of a run: a table with notes and verdicts for people, JSON for scripts.
import type { Comparisons, Row } from './compare.ts'
import { placementVerdicts } from './placement.ts'

export interface RunInfo {
  readonly connections: number
  readonly durationSeconds: number
  readonly warmupSeconds: number
  readonly node: string
  readonly cpus: number
}

const HEADINGS = ['scenario', 'req/s', 'p50 ms', 'p99 ms', '2xx', 'non-2xx', 'err/timeout', 'cpu µs/req', 'loop p99 ms', 'req/s vs base', 'p99 vs base', 'base'] as const

function cells(row: Row): string[] {
  const m = row.measurement
  const c = row.comparison
  return [
    row.label,
    m.requestsPerSecond.toFixed(0),
    m.p50Ms.toFixed(1),
    m.p99Ms.toFixed(1),
    String(m.ok),
    String(m.non2xx),
    `${m.errors}/${m.timeouts}`,
    row.serverCpuMicrosPerRequest.toFixed(0),
    row.eventLoopLagP99Ms === undefined ? '' : row.eventLoopLagP99Ms.toFixed(1),
    c === undefined ? '' : `${(c.requestRatio * 100).toFixed(0)}%`,
    c === undefined ? '' : `${c.p99Ratio.toFixed(2)}x`,
    c?.baseline ?? '',
  ]
}

function table(rows: readonly Row[]): string {
  const lines = [[...HEADINGS], ...rows.map(cells)]
  const widths = HEADINGS.map((_, i) => Math.max(...lines.map((line) => (line[i] ?? '').length)))
  return lines
    .map((line) => line.map((cell, i) => (i === 0 || i === line.length - 1 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0))).join('  ').trimEnd())
    .join('\n')
}

function placementSection(rows: readonly Row[]): string[] {
  const verdicts = placementVerdicts(rows)
  if (verdicts.length === 0) return []
  return ['', 'Governor scan placement:', ...verdicts.map((v) => `  ${v.size}: ${v.text}`)]
}

export function formatReport(info: RunInfo, result: Comparisons): string {
  const out = [
    `Tollgate bench: ${info.connections} connections, ${info.durationSeconds} s per row after a ${info.warmupSeconds} s warm-up; Node ${info.node}, ${info.cpus} CPUs.`,
    'Ratios compare rows measured in this run; absolute numbers vary with the machine.',
    'cpu µs/req: CPU time of the loaded server process alone (all its threads) per answered request.',
    'loop p99 ms: the server\'s event-loop delay p99 over the measured run, as its /metrics reports it (sampled every 10 ms, so an idle loop reads about 10).',
    '',
    table(result.rows),
    ...placementSection(result.rows),
    '',
    'Notes:',
    ...result.rows.map((row) => `  ${row.label}: ${row.notes.join('; ')}`),
    '',
    'Verdict:',
    ...result.checks.map((check) => {
      const head = `  ${check.verdict.toUpperCase().padEnd(10)} ${check.row}: ${check.goal}, measured ${check.actual}`
      return check.reason === undefined ? head : `${head} (${check.reason})`
    }),
  ]
  return out.join('\n')
}

export function formatJson(info: RunInfo, result: Comparisons): string {
  return JSON.stringify({ run: info, rows: result.rows, checks: result.checks, governorPlacement: placementVerdicts(result.rows) }, null, 2)
}
