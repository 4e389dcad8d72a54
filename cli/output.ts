// How the CLI prints: a JSON document with --json (for scripts), aligned columns otherwise.

export class UsageError extends Error {}

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`)
}

export function printTable(rows: ReadonlyArray<Record<string, unknown>>, columns: readonly string[]): void {
  if (rows.length === 0) {
    process.stdout.write('(none)\n')
    return
  }
  const cells = rows.map((row) => columns.map((c) => (row[c] === null || row[c] === undefined ? '-' : String(row[c]))))
  const widths = columns.map((c, i) => Math.max(c.length, ...cells.map((r) => r[i]!.length)))
  const line = (values: readonly string[]) =>
    values
      .map((v, i) => v.padEnd(widths[i]!))
      .join('  ')
      .trimEnd()
  process.stdout.write(`${[line(columns), ...cells.map(line)].join('\n')}\n`)
}
