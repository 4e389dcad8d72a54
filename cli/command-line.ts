// The command line's words and options, parsed the same way by the entry point (which only needs
// to know the command) and by the commands themselves.
import { parseArgs } from 'node:util'

/** Commands that parse their own options. */
const OWN_OPTIONS: ReadonlySet<string> = new Set(['outbox', 'governor', 'audit'])

export function parseCommandLine(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: {
      data: { type: 'string' },
      json: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
      name: { type: 'string' },
      plan: { type: 'string' },
      budget: { type: 'string' },
      rpm: { type: 'string' },
      project: { type: 'string' },
      org: { type: 'string' },
      type: { type: 'string' },
      env: { type: 'string' },
      workers: { type: 'string' },
    },
  })
}

/** The command named, or undefined when there is none or the line does not parse (the command then says why). */
export function commandOf(argv: readonly string[]): string | undefined {
  if (argv[0] !== undefined && OWN_OPTIONS.has(argv[0])) return argv[0]
  try {
    return parseCommandLine(argv).positionals[0]
  } catch {
    return undefined
  }
}
