import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { checkDocs, README_BEFORE_SPLIT, readmeAt, renamesSince, RETIRED_CODE_LINES } from '../../../scripts/docs-check/check.ts'
import { anchorsOf, codeSpans, readMarkdown } from '../../../scripts/docs-check/markdown.ts'

const ROOT = fileURLToPath(new URL('../../..', import.meta.url))

function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'docs-check-'))
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, path, '..'), { recursive: true })
    writeFileSync(join(root, path), text)
  }
  return root
}

t.test('code spans, as CommonMark reads them', async (t) => {
  t.same(codeSpans('a `PORT` and `` `${timestamp}.${body}` `` and `a\nb`'), ['PORT', '`${timestamp}.${body}`', 'a b'])
  t.same(codeSpans('an unclosed ` tick and `x`'), ['tick and'], 'a lone backtick opens a span the next one closes')
})

t.test("GitHub's anchors for headings", async (t) => {
  t.same(
    [...anchorsOf(['Target addresses (SSRF)', "An application's own system prompt", '`json` mode', 'Notes', 'Notes'])],
    ['target-addresses-ssrf', 'an-applications-own-system-prompt', 'json-mode', 'notes', 'notes-1'],
  )
})

t.test('fenced code is read as lines, not as headings or spans', async (t) => {
  const facts = readMarkdown('# Title\n\n```python\n# a comment\nx = `y`\n```\n\ntext `z`\n')
  t.same(facts.fencedLines, ['# a comment', 'x = `y`'])
  t.same(facts.spans, ['z'])
  t.same([...facts.anchors], ['title'])
})

t.test('a span or code line that the old README had and the pages lost is reported', async (t) => {
  const old = '# Old\n\n`PORT` and `TOLLGATE_DATA`.\n\n```sh\nnpm start\nnpm test\n```\n'
  const root = tree({ 'README.md': '# New\n\n`PORT`, see [docs](docs/a.md#settings).\n', 'docs/a.md': '# A\n\n## Settings\n\n```sh\nnpm start\n```\n' })
  t.same(checkDocs(root, old), { missingSpans: ['TOLLGATE_DATA'], missingCodeLines: ['npm test'], brokenLinks: [] })
})

t.test('a path the old README named counts as written where the file or folder moved to', async (t) => {
  const old = '# Old\n\n`src/a.ts`, `src/b/`, `src/long-\nname.ts` and `src/c.ts`.\n'
  const root = tree({ 'README.md': '# New\n\n`lib/x/a.ts`, `lib/long-name.ts` and `lib/b/`.\n' })
  const renames = new Map([
    ['src/a.ts', 'lib/x/a.ts'],
    ['src/b/one.ts', 'lib/b/one.ts'],
    ['src/b/two.ts', 'lib/b/two.ts'],
    ['src/c.ts', 'lib/c.ts'],
    ['src/long-name.ts', 'lib/long-name.ts'],
  ])
  t.same(checkDocs(root, old, renames).missingSpans, ['src/c.ts'])
})

t.test('a code line retired on purpose is not asked for; the others still are', async (t) => {
  const old = '# Old\n\n```\nsrc/ old layout\nnpm test\n```\n'
  const root = tree({ 'README.md': '# New\n' })
  t.same(checkDocs(root, old, new Map(), new Map([['src/ old layout', 'moved']])).missingCodeLines, ['npm test'])
})

t.test('a link to a missing file or heading is reported, a working one is not', async (t) => {
  const root = tree({
    'README.md': '# R\n\n[ok](docs/a.md) [gone](docs/b.md) [anchor](docs/a.md#nowhere) [here](#r) [web](https://example.com)\n',
    'docs/a.md': '# A\n\n![shot](screenshots/x.png) [back](../README.md#r)\n',
    'models/README.md': '# M\n\n[models](../docs/a.md#a)\n',
  })
  t.same(checkDocs(root, '').brokenLinks, [
    'README.md: docs/b.md (no such file)',
    'README.md: docs/a.md#nowhere (no such heading)',
    'docs/a.md: screenshots/x.png (no such file)',
  ])
})

const oldReadme = readmeAt(ROOT, README_BEFORE_SPLIT)
const noHistory = 'the README before the split is not in this clone (shallow): git fetch --unshallow'
t.test(
  "the repository's README and docs/ keep every fact of the README they were split from",
  { skip: oldReadme === undefined ? noHistory : false },
  async (t) => {
    t.same(checkDocs(ROOT, oldReadme ?? '', renamesSince(ROOT, README_BEFORE_SPLIT), RETIRED_CODE_LINES), {
      missingSpans: [],
      missingCodeLines: [],
      brokenLinks: [],
    })
  },
)
