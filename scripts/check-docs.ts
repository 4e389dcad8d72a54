// Checks that splitting the README into docs/ lost nothing: prints every code span and code line
// of the README at the split (README_BEFORE_SPLIT, or --from REV) that README.md and docs/ no longer
// write, and every relative link that reaches no file or heading. Exit 0 when there is none.
//
//   node scripts/check-docs.ts [--from REV]
import { fileURLToPath } from 'node:url'
import { checkDocs, README_BEFORE_SPLIT, readmeAt, renamesSince, RETIRED_CODE_LINES } from './docs-check/check.ts'

const root = fileURLToPath(new URL('..', import.meta.url))
const fromFlag = process.argv.indexOf('--from')
const revision = fromFlag === -1 ? README_BEFORE_SPLIT : process.argv[fromFlag + 1]
if (revision === undefined) {
  process.stderr.write('check-docs: --from needs a git revision\n')
  process.exit(2)
}

const oldReadme = readmeAt(root, revision)
if (oldReadme === undefined) {
  process.stderr.write(`check-docs: cannot read README.md at ${revision} (a shallow clone lacks it: git fetch --unshallow)\n`)
  process.exit(2)
}

const problems = checkDocs(root, oldReadme, renamesSince(root, revision), RETIRED_CODE_LINES)
const sections: Array<[string, string[]]> = [
  ['code spans of the old README written nowhere in README.md or docs/', problems.missingSpans],
  ['code lines of the old README written nowhere in README.md or docs/', problems.missingCodeLines],
  ['links that reach no file or heading', problems.brokenLinks],
]
let count = 0
for (const [title, items] of sections) {
  if (items.length === 0) continue
  count += items.length
  process.stdout.write(`${title}:\n${items.map((item) => `  ${item}\n`).join('')}`)
}
process.stdout.write(count === 0 ? 'check-docs: nothing lost, every link resolves\n' : `check-docs: ${count} problems\n`)
process.exit(count === 0 ? 0 : 1)
