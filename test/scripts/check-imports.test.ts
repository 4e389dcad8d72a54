import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import t, { type Test } from 'tap'
import { checkImports } from '../../scripts/import-check/check.ts'
import { importsOf } from '../../scripts/import-check/scan.ts'

const SCRIPT = fileURLToPath(new URL('../../scripts/check-imports.ts', import.meta.url))

function tree(t: Test, files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'import-check-'))
  t.teardown(() => rmSync(root, { recursive: true, force: true }))
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, path, '..'), { recursive: true })
    writeFileSync(join(root, path), text)
  }
  return root
}

t.test('every form of import is found, with its line; comments, strings and regular expressions are not imports', async (t) => {
  const source = [
    'import { a } from "./a.ts"',
    'import type { B } from "../b/state.ts"',
    'export { c } from "./c.ts"',
    'export type { D } from "./d.ts"',
    'import "./side-effect.ts"',
    'const e = await import("./e.ts")',
    'type F = typeof import("./f.ts")',
    'import {',
    '  g,',
    '} from "./g.ts"',
    '// import { h } from "./h.ts"',
    '/* import { i } from "./i.ts" */',
    'const text = \'import { j } from "./j.ts"\'',
    'const pattern = /from ".\\/k.ts"/',
    'const ratio = 1 / 2; const l = `from "./l.ts"`',
    'const dynamic = await import(`./${name}.ts`)',
    'const n = await import(`./n.ts`)',
  ].join('\n')
  t.same(importsOf(source), [
    { specifier: './a.ts', line: 1 },
    { specifier: '../b/state.ts', line: 2 },
    { specifier: './c.ts', line: 3 },
    { specifier: './d.ts', line: 4 },
    { specifier: './side-effect.ts', line: 5 },
    { specifier: './e.ts', line: 6 },
    { specifier: './f.ts', line: 7 },
    { specifier: './g.ts', line: 10 },
    { specifier: './n.ts', line: 17 },
  ])
})

t.test('a plugin imports of another only its state.ts; the core only the built-ins list, from proxy/index.ts; workers none', async (t) => {
  const root = tree(t, {
    'plugins/index.ts': 'import auth from "./auth/index.ts"\nimport cache from "./cache/index.ts"',
    'plugins/auth/index.ts': 'import { registry } from "./registry.ts"',
    'plugins/auth/state.ts': '',
    'plugins/auth/registry.ts': '',
    'plugins/cache/index.ts': [
      'import type { AuthState } from "../auth/state.ts"',
      'import type { Registry } from "../auth/registry.ts"',
      'import { store } from "./store/answers.ts"',
    ].join('\n'),
    'plugins/cache/store/answers.ts': 'const registry = await import("../../auth/registry.ts")\nimport { x } from "../../../proxy/kit/ids.ts"',
    'proxy/index.ts': 'import { builtinPlugins } from "../plugins/index.ts"\nimport type { AuthState } from "../plugins/auth/state.ts"',
    'proxy/http/server.ts': 'export type { AuthState } from "../../plugins/auth/state.ts"\nimport { ids } from "../kit/ids.ts"',
    'proxy/kit/ids.ts': 'import { hash } from "node:crypto"\nimport { z } from "zod"',
    'workers/scan.ts': 'import type { Rule } from "../plugins/governor/state.ts"',
  })
  t.same(
    checkImports(root).map(({ file, line, target }) => `${file}:${line} ${target}`),
    [
      'plugins/cache/index.ts:2 plugins/auth/registry.ts',
      'plugins/cache/store/answers.ts:1 plugins/auth/registry.ts',
      'proxy/http/server.ts:1 plugins/auth/state.ts',
      'proxy/index.ts:2 plugins/auth/state.ts',
      'workers/scan.ts:1 plugins/governor/state.ts',
    ],
  )
})

t.test('the script lists what breaks a rule and fails; a clean tree passes', async (t) => {
  const broken = tree(t, { 'plugins/cache/index.ts': 'import { registry } from "../auth/registry.ts"' })
  const failed = t.throws(() => execFileSync(process.execPath, [SCRIPT, '--root', broken], { encoding: 'utf8', stdio: 'pipe' })) as unknown as {
    status: number
    stdout: string
  }
  t.equal(failed.status, 1)
  t.match(
    failed.stdout,
    'plugins/cache/index.ts:1: imports \'../auth/registry.ts\' (plugins/auth/registry.ts): plugin "cache" may import of plugin "auth" only plugins/auth/state.ts',
  )
  const clean = tree(t, { 'plugins/cache/index.ts': 'import type { AuthState } from "../auth/state.ts"' })
  t.match(execFileSync(process.execPath, [SCRIPT, '--root', clean], { encoding: 'utf8' }), /every import keeps to the rules/)
})
