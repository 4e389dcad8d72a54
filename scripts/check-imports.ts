// Checks the imports between the core and the plugins (import-check/check.ts) and prints every
// one that breaks a rule. Exit 0 when there is none.
//
//   node scripts/check-imports.ts [--root DIR]
import { fileURLToPath } from 'node:url'
import { checkImports } from './import-check/check.ts'

const rootFlag = process.argv.indexOf('--root')
const root = rootFlag === -1 ? fileURLToPath(new URL('..', import.meta.url)) : process.argv[rootFlag + 1]
if (root === undefined) {
  process.stderr.write('check-imports: --root needs a directory\n')
  process.exit(2)
}

const violations = checkImports(root)
for (const v of violations) process.stdout.write(`${v.file}:${v.line}: imports '${v.specifier}' (${v.target}): ${v.rule}\n`)
process.stdout.write(
  violations.length === 0 ? 'check-imports: every import keeps to the rules\n' : `check-imports: ${violations.length} imports break the rules\n`,
)
process.exit(violations.length === 0 ? 0 : 1)
