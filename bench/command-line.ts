// What the bench commands share about their command lines. A mistake in one (an unknown flag, a
// value out of range, a row that does not exist) is said in one line and exits with 2, as the
// gateway's own commands do; any other failure is a fault, printed whole, and exits with 1.

/** A mistake in the command line, said to whoever typed it. */
export class UsageError extends Error {}

export function positive(raw: string, what: string): number {
  const n = Number(raw)
  if (!Number.isFinite(n) || n <= 0) throw new UsageError(`${what} must be a positive number, got "${raw}"`)
  return n
}

export function pinOption(raw: string): 'auto' | 'off' {
  if (raw !== 'auto' && raw !== 'off') throw new UsageError(`--pin must be auto or off, got "${raw}"`)
  return raw
}

/** node:util's parseArgs says what was wrong in its message and marks it with one of these codes. */
function isParseArgsError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code
  return typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS_')
}

/** Runs a command's main: a usage mistake is one line on stderr and exit code 2. */
export function runCommand(name: string, main: () => Promise<void>): void {
  main().catch((err: unknown) => {
    if (err instanceof UsageError || isParseArgsError(err)) {
      process.stderr.write(`${name}: ${(err as Error).message}\n`)
      process.exitCode = 2
      return
    }
    console.error(err)
    process.exitCode = 1
  })
}
