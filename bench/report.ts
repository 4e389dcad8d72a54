// The printed forms of a run: tables with the board, notes and verdicts for people, JSON for scripts.
import type { BoardLine } from './board.ts'
import type { DerivedName, SummaryRow } from './compare.ts'
import type { Check } from './goals.ts'
import { scalingRowOf } from './lanes.ts'
import { placementVerdicts } from './placement.ts'
import type { Spread } from './stats.ts'

export interface RunInfo {
  readonly startedAt: string
  readonly node: string
  readonly cpus: number
  readonly cpuModel: string
  readonly pinning: string
  readonly connections: number
  readonly sustainedConnections: number
  readonly warmupSeconds: number
  readonly durationSeconds: number
  readonly repeats: number
  readonly stallMs: number
  /** One line per lane that ran: what its mock does. */
  readonly lanes: readonly string[]
  readonly wallSeconds: number
}

export interface Summary {
  readonly info: RunInfo
  readonly rows: readonly SummaryRow[]
  readonly board: readonly BoardLine[]
  readonly checks: readonly Check[]
}

const num = (n: number | undefined, digits: number) => (n === undefined || Number.isNaN(n) ? '' : n.toFixed(digits))

function withSpread(row: SummaryRow, name: DerivedName, digits: number, suffix = ''): string {
  const value = row.derived[name]
  if (value === undefined || Number.isNaN(value)) return ''
  const spread: Spread | undefined = row.spreads[name]
  const head = `${value.toFixed(digits)}${suffix}`
  return row.repeats > 1 && spread !== undefined ? `${head} [${spread.min.toFixed(digits)}-${spread.max.toFixed(digits)}]` : head
}

function table(headings: readonly string[], lines: readonly string[][]): string {
  const all = [[...headings], ...lines]
  const widths = headings.map((_, i) => Math.max(...all.map((line) => (line[i] ?? '').length)))
  return all
    .map((line) =>
      line
        .map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!)))
        .join('  ')
        .trimEnd(),
    )
    .join('\n')
}

const countsCommits = (rows: readonly SummaryRow[]) => rows.some((r) => r.figures.storeCommitsPerAnswer !== undefined)

// CPU per answer leads: it moves less than req/s when other work shares the machine.
function throughputTable(rows: readonly SummaryRow[]): string {
  const commits = countsCommits(rows)
  return table(
    [
      'row',
      'cpu µs/ans',
      'x base CPU',
      'req/s',
      'x base',
      'p50 ms',
      'p99 ms',
      'TTFB p99',
      'failed',
      ...(commits ? ['commits/ans'] : []),
      'up/ans',
      'other CPU%',
    ],
    rows.map((r) => [
      r.label,
      num(r.figures.cpuMicrosPerAnswer, 0),
      withSpread(r, 'cpuRatio', 2),
      num(r.figures.rps, 0),
      withSpread(r, 'ratio', 2),
      num(r.figures.p50Ms, 2),
      num(r.figures.p99Ms, 2),
      num(r.figures.ttfbP99Ms, 2),
      String(r.figures.failed),
      ...(commits ? [num(r.figures.storeCommitsPerAnswer, 3)] : []),
      num(r.figures.upstreamPerAnswer, 2),
      num(r.figures.otherCpuPct, 0),
    ]),
  )
}

/** The scaling rows by worker count: CPU, rate and commits per answer, json and stream side by side. */
function scalingTable(rows: readonly SummaryRow[]): string | undefined {
  const byWorkers = new Map<number, { json?: SummaryRow; stream?: SummaryRow }>()
  for (const row of rows) {
    const scaling = scalingRowOf(row.name)
    if (scaling !== undefined) byWorkers.set(scaling.workers, { ...byWorkers.get(scaling.workers), [scaling.kind]: row })
  }
  if (byWorkers.size === 0) return undefined
  const cells = (workers: number, row: SummaryRow | undefined) =>
    row === undefined
      ? ['', '', '', '']
      : [
          num(row.figures.cpuMicrosPerAnswer, 0),
          num(row.figures.rps, 0),
          workers === 1 ? '1.00' : withSpread(row, 'ratio', 2),
          num(row.figures.storeCommitsPerAnswer, 3),
        ]
  return table(
    ['workers', 'json cpu µs/ans', 'json req/s', 'x 1 worker', 'json commits/ans', 'stream cpu µs/ans', 'streams/s', 'x 1 worker', 'stream commits/ans'],
    [...byWorkers.entries()]
      .sort(([a], [b]) => a - b)
      .map(([workers, { json, stream }]) => [String(workers), ...cells(workers, json), ...cells(workers, stream)]),
  )
}

function latencyTable(rows: readonly SummaryRow[]): string {
  return table(
    ['row', 'p50 ms', 'p99 ms', '+p50 ms', '+p99 ms', 'TTFB p50', 'TTFB p99', '+TTFB p50', '+TTFB p99', 'answers', 'failed', 'other CPU%'],
    rows.map((r) => [
      r.label,
      num(r.figures.p50Ms, 3),
      num(r.figures.p99Ms, 3),
      withSpread(r, 'addedP50Ms', 3),
      withSpread(r, 'addedP99Ms', 3),
      num(r.figures.ttfbP50Ms, 3),
      num(r.figures.ttfbP99Ms, 3),
      withSpread(r, 'addedTtfbP50Ms', 3),
      withSpread(r, 'addedTtfbP99Ms', 3),
      String(r.figures.ok),
      String(r.figures.failed),
      num(r.figures.otherCpuPct, 0),
    ]),
  )
}

function streamsTable(rows: readonly SummaryRow[]): string {
  return table(
    [
      'row',
      'cpu µs/stream',
      'x fwd CPU',
      'streams/s',
      'x fwd',
      'TTFB p99',
      'first text p99',
      'p99 ms',
      'failed',
      'stalled',
      'RSS MB before/peak/¼/end',
      'other CPU%',
    ],
    rows.map((r) => {
      const f = r.figures
      const rss = [f.rssBeforeMb, f.rssPeakMb, f.rssQuarterMb, f.rssEndMb].map((v) => num(v, 0) || '-').join('/')
      return [
        r.label,
        num(f.cpuMicrosPerAnswer, 0),
        withSpread(r, 'cpuRatio', 2),
        num(f.rps, 0),
        withSpread(r, 'ratio', 2),
        num(f.ttfbP99Ms, 1),
        num(f.ttftP99Ms, 1),
        num(f.p99Ms, 0),
        String(f.failed),
        String(f.stalls ?? 0),
        rss,
        num(f.otherCpuPct, 0),
      ]
    }),
  )
}

export function formatReport(summary: Summary): string {
  const { info, rows, board, checks } = summary
  const of = (kind: SummaryRow['kind']) => rows.filter((r) => r.kind === kind)
  const out = [
    `Tollgate bench, ${info.startedAt}: Node ${info.node}, ${info.cpus} CPUs (${info.cpuModel}); ${info.repeats} repeat(s), ${Math.round(info.wallSeconds)} s in all.`,
    `Pinning: ${info.pinning}.`,
    `Load: ${info.connections} connections (${info.sustainedConnections} on the 20 ms mock), ${info.warmupSeconds} s warm-up then ${info.durationSeconds} s measured per row; a stream is stalled after ${info.stallMs} ms without a byte.`,
    ...info.lanes.map((lane) => `Lane ${lane}.`),
    'Ratios and added latencies compare rows of the same repeat; with repeats, the median of the per-repeat values [min-max], other figures are medians and counts are sums over the repeats. Absolute numbers move with the machine; ratios are what to compare.',
    "cpu µs/ans: CPU of the loaded server alone (all its threads; every process of a `--workers N` cluster; with every process of its PostgreSQL and Redis for the rows on them) per answer; x base CPU: the row's over the baseline's (the gateway's cost in forwarder answers). up/ans: mock requests per answer (1 a miss, 0 a hit). commits/ans: LMDB write transactions per answer, from the server's tollgate_store_commits_total. other CPU%: CPU the rest of the machine used during the row, % of one core (a few % of it is our own loopback traffic).",
  ]
  if (of('throughput').length > 0)
    out.push(
      '',
      'Throughput (closed loop, rows taking turns in slices; json rows by autocannon, stream rows by an undici client):',
      throughputTable(of('throughput')),
    )
  if (of('latency').length > 0)
    out.push('', 'Unloaded latency (1 connection per target, requests interleaved; + = over the direct mock):', latencyTable(of('latency')))
  if (of('streams').length > 0) {
    out.push(
      '',
      'Concurrent streams (that many open at once, each replaced when it ends):',
      streamsTable(of('streams')),
      "first text: time to the first chunk with some of the answer's text. The forwarder relays the provider's empty opening event at once; the gateway sends nothing before the first text unless the provider is silent for streamKeepAliveMs (until then a failure is still a plain error answer, and a fallback can still serve), so on a slow stream only this column compares what a client waits for.",
    )
  }
  const scaling = scalingTable(rows)
  if (scaling !== undefined) {
    out.push(
      '',
      "Scaling (`tollgate serve --workers N`; x 1 worker: req/s over --workers 1's in the same repeat; the CPUs each N ran on are in the notes):",
      scaling,
    )
  }
  const placement = placementVerdicts(rows)
  if (placement.length > 0) out.push('', 'Governor scan placement:', ...placement.map((v) => `  ${v.size}: ${v.text}`))
  if (board.length > 0) {
    out.push(
      '',
      'Board figures:',
      table(
        ['figure', 'gateway', 'lean forwarder', 'how'],
        board.map((b) => [b.figure, b.gateway, b.forwarder, b.how]),
      ),
    )
  }
  const notesOf = (row: SummaryRow) => [...row.notes, ...Object.entries(row.audited).map(([name, delta]) => `${name} during the measured windows: +${delta}`)]
  out.push('', 'Notes:', ...rows.map((row) => `  ${row.name}: ${notesOf(row).join('; ')}`))
  if (checks.length > 0) {
    out.push(
      '',
      'Targets:',
      ...checks.map((check) => {
        const head = `  ${check.verdict.toUpperCase().padEnd(10)} ${check.row}: ${check.goal}; measured ${check.actual}`
        return check.reason === undefined ? head : `${head} (${check.reason})`
      }),
    )
  }
  return out.join('\n')
}

export function formatJson(summary: Summary, repeats: unknown): string {
  return JSON.stringify({ ...summary, governorPlacement: placementVerdicts(summary.rows), repeats }, null, 2)
}
