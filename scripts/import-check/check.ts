// The import rules between the core and the plugins: a plugin imports of another plugin only its
// `state.ts` (its slot's type and the services it provides), the core (proxy/) imports no plugin
// except where proxy/index.ts takes the list of built-ins (plugins/index.ts), and the worker
// threads' code (workers/) imports no plugin.
import { readdirSync, readFileSync } from 'node:fs'
import { join, posix } from 'node:path'
import { importsOf } from './scan.ts'

export interface Violation {
  /** Relative to the root, with forward slashes. */
  readonly file: string
  readonly line: number
  readonly specifier: string
  /** What the specifier names, relative to the root. */
  readonly target: string
  readonly rule: string
}

const CHECKED = ['plugins', 'proxy', 'workers'] as const
const SOURCE = /\.(?:ts|mts|cts|tsx)$/

function sourcesUnder(root: string, dir: string): string[] {
  let entries: string[]
  try {
    entries = readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' })
  } catch {
    return []
  }
  return entries.filter((entry) => SOURCE.test(entry)).map((entry) => posix.join(dir, entry.split('\\').join('/')))
}

/** The plugin whose folder holds a path (`plugins/<name>/…`), if any. */
function pluginOf(path: string): string | undefined {
  const parts = path.split('/')
  return parts[0] === 'plugins' && parts.length >= 3 ? parts[1] : undefined
}

/** Why the import of `target` by `file` breaks a rule, or undefined when it may. */
function broken(file: string, target: string): string | undefined {
  const from = file.split('/')[0]
  const intoPlugins = target.startsWith('plugins/')
  if (from === 'plugins') {
    const importer = pluginOf(file)
    const owner = pluginOf(target)
    if (importer === undefined || owner === undefined || owner === importer || target === `plugins/${owner}/state.ts`) return undefined
    return `plugin "${importer}" may import of plugin "${owner}" only plugins/${owner}/state.ts`
  }
  if (!intoPlugins) return undefined
  if (from === 'proxy')
    return file === 'proxy/index.ts' && target === 'plugins/index.ts'
      ? undefined
      : 'the core imports no plugin, except proxy/index.ts the built-ins list (plugins/index.ts)'
  return 'worker code imports no plugin'
}

/** Every import under plugins/, proxy/ and workers/ of the tree at `root` that breaks a rule. */
export function checkImports(root: string): Violation[] {
  const violations: Violation[] = []
  for (const dir of CHECKED) {
    for (const file of sourcesUnder(root, dir)) {
      for (const { specifier, line } of importsOf(readFileSync(join(root, file), 'utf8'))) {
        if (!specifier.startsWith('./') && !specifier.startsWith('../')) continue
        const target = posix.normalize(posix.join(posix.dirname(file), specifier))
        const rule = broken(file, target)
        if (rule !== undefined) violations.push({ file, line, specifier, target, rule })
      }
    }
  }
  return violations.sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line)
}
