// The suite's tiers, told apart by what a test file starts, read from its source and its own
// fixtures (the files it imports from test/, but for the shared helpers, whose names are marks
// themselves): `browser` drives chromium, `shared` starts PostgreSQL or Redis, `e2e` starts a
// gateway, a mock upstream or another server, and `unit` starts nothing (pure logic, schemas, a
// store on a temporary directory). A file is in the first tier whose mark it carries, so each is
// in exactly one.
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve, sep } from 'node:path'

export const TIERS = ['unit', 'e2e', 'shared', 'browser'] as const
export type Tier = (typeof TIERS)[number]

const MARKS: readonly [Exclude<Tier, 'unit'>, RegExp][] = [
  ['browser', /playwright|chromium|\/browser\.ts'/],
  ['shared', /postgres-server|redis-server|startPostgres|startRedis/],
  [
    'e2e',
    /start-gateway|spawn-gateway|spawn-cluster|mock-upstream|mocked-gateway|helpers\/http\.ts|\.listen\(|createServer|cli\/tollgate\.ts|from 'openai'|@anthropic-ai\/sdk/,
  ],
]

const RELATIVE_IMPORT = /from '(\.{1,2}\/[^']+\.ts)'/g

/** The file's source and that of the fixtures it imports from `tests` (not from `helpers`), once each. */
function sourceWithFixtures(path: string, tests: string, helpers: string, seen = new Set<string>()): string {
  if (seen.has(path)) return ''
  seen.add(path)
  const source = readFileSync(path, 'utf8')
  let all = source
  for (const [, imported] of source.matchAll(RELATIVE_IMPORT)) {
    const target = resolve(dirname(path), imported!)
    if (target.startsWith(tests + sep) && !target.startsWith(helpers + sep)) all += sourceWithFixtures(target, tests, helpers, seen)
  }
  return all
}

export function tierOf(source: string): Tier {
  for (const [tier, mark] of MARKS) if (mark.test(source)) return tier
  return 'unit'
}

/** The test files under a folder, at any depth. */
export function* testFiles(directory: string): Generator<string> {
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    const path = join(directory, entry.name)
    if (entry.isDirectory()) yield* testFiles(path)
    else if (entry.name.endsWith('.test.ts')) yield path
  }
}

/** The test files of `tier` under `root`'s test/, relative to root, in a stable order. */
export function filesOf(root: string, tier: Tier): string[] {
  const tests = resolve(root, 'test')
  const helpers = join(tests, 'helpers')
  return [...testFiles(tests)]
    .filter((path) => tierOf(sourceWithFixtures(resolve(path), tests, helpers)) === tier)
    .map((path) => relative(root, path))
    .sort()
}
