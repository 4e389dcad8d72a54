// The documentation check: every code span and code line of the README as it stood before it was
// split into docs/ must still be written somewhere in README.md or docs/, and every relative link
// of those pages (and models/README.md) must reach a file and, for a Markdown file, a heading.
import { execFileSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { readMarkdown, type MarkdownFacts } from './markdown.ts'

// The last commit whose README.md held the whole documentation: main just before the split was
// merged, so the README changes made on main while the split was being written are checked too.
export const README_BEFORE_SPLIT = 'b326f031d3ff61934566213d17dda39183b5a171'

/** README.md as it stood at a git revision, or undefined when the clone lacks it (a shallow one). */
export function readmeAt(root: string, revision: string): string | undefined {
  try {
    return execFileSync('git', ['show', `${revision}:README.md`], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })
  } catch {
    return undefined
  }
}

/**
 * Files renamed since a revision (old path → new path), as git finds them: a code span of the old
 * README that names a moved file is written when the docs name it where it now lives.
 */
export function renamesSince(root: string, revision: string): Map<string, string> {
  const out = execFileSync('git', ['diff', '-M', '--name-status', '--diff-filter=R', revision], { cwd: root, encoding: 'utf8' })
  const renames = new Map<string, string>()
  for (const line of out.split('\n')) {
    const [, from, to] = line.split('\t')
    if (from !== undefined && to !== undefined) renames.set(from, to)
  }
  return renames
}

/** Where a path named in the old README lives now: a moved file, or a folder all of whose files moved to one place. */
function movedTo(written: string, renames: ReadonlyMap<string, string>): string | undefined {
  // A path the old README broke across a line break after a dash reads "a- b.ts" in its span.
  const span = written.replace(/-\s+/g, '-')
  const file = renames.get(span)
  if (file !== undefined || !span.endsWith('/')) return file
  const folders = new Set<string>()
  for (const [from, to] of renames) {
    if (!from.startsWith(span)) continue
    const rest = from.slice(span.length)
    if (!to.endsWith(rest)) return undefined
    folders.add(to.slice(0, to.length - rest.length))
  }
  return folders.size === 1 ? [...folders][0] : undefined
}

/**
 * Code lines of the old README that later changes made untrue on purpose, so the pages no longer
 * write them. Each names the change; everything else the split moved must still be found.
 */
export const RETIRED_CODE_LINES: ReadonlyMap<string, string> = new Map([
  ['files rewritten for the lean core sit in its wings: http/ (body check, SSE writer),', 'proxy/ is now wholly in its wings'],
  ['pipeline/ (model call, upstream client), stores/ (commit metrics), kit/ (small helpers)', 'proxy/ is now wholly in its wings'],
  ["bench/     the benchmark (npm run bench, bench:profile, bench:stages) and the detectors' evaluation", 'the evaluation moved to eval/'],
  [
    'npm run bench:stages                   # CPU per request of each stage, json miss and chat stream, beside the forwarder: about 4 minutes',
    'the stage table measures the spec floor too, and takes longer',
  ],
])

export interface DocsProblems {
  missingSpans: string[]
  missingCodeLines: string[]
  brokenLinks: string[]
}

export function documentationPages(root: string): string[] {
  const docs = join(root, 'docs')
  const pages = existsSync(docs) ? walk(docs).filter((file) => file.endsWith('.md')) : []
  return [join(root, 'README.md'), ...pages]
}

export function checkDocs(
  root: string,
  oldReadme: string,
  renames: ReadonlyMap<string, string> = new Map(),
  retired: ReadonlyMap<string, string> = new Map(),
): DocsProblems {
  const pages = documentationPages(root)
  const facts = new Map(pages.map((page) => [page, readMarkdown(readFileSync(page, 'utf8'))]))
  const spans = new Set([...facts.values()].flatMap((page) => page.spans))
  const codeLines = new Set([...facts.values()].flatMap((page) => page.fencedLines))
  const old = readMarkdown(oldReadme)
  const linked = [...pages, join(root, 'models', 'README.md')].filter((page) => existsSync(page))
  return {
    missingSpans: unique(old.spans.filter((span) => !spans.has(span) && !spans.has(movedTo(span, renames) ?? span))),
    missingCodeLines: unique(old.fencedLines.filter((line) => !codeLines.has(line) && !retired.has(line))),
    brokenLinks: linked.flatMap((page) => brokenLinks(root, page, facts.get(page) ?? readMarkdown(readFileSync(page, 'utf8')))),
  }
}

function brokenLinks(root: string, page: string, facts: MarkdownFacts): string[] {
  const broken: string[] = []
  for (const target of facts.links) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue
    const [path = '', anchor] = target.split('#', 2)
    const file = path === '' ? page : resolve(dirname(page), decodeURIComponent(path))
    const where = `${relative(root, page)}: ${target}`
    if (!existsSync(file)) broken.push(`${where} (no such file)`)
    else if (anchor !== undefined && anchor !== '' && file.endsWith('.md')) {
      const anchors = file === page ? facts.anchors : readMarkdown(readFileSync(file, 'utf8')).anchors
      if (!anchors.has(decodeURIComponent(anchor))) broken.push(`${where} (no such heading)`)
    }
  }
  return broken
}

function walk(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const path = join(dir, name)
      return statSync(path).isDirectory() ? walk(path) : [path]
    })
}

function unique(items: string[]): string[] {
  return [...new Set(items)]
}
