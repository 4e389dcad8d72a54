// What the documentation check reads in a Markdown file: its code spans, the lines of its fenced
// code blocks, its headings (as GitHub turns them into anchors) and its links. A small reading of
// CommonMark, enough for this repository's pages; nothing here renders Markdown.

export interface MarkdownFacts {
  spans: string[]
  fencedLines: string[]
  anchors: Set<string>
  links: string[]
}

const FENCE = /^\s*(`{3,}|~{3,})/

export function readMarkdown(text: string): MarkdownFacts {
  const spans: string[] = []
  const fencedLines: string[] = []
  const headings: string[] = []
  const links: string[] = []
  let fence: string | undefined
  let paragraph: string[] = []
  const closeParagraph = () => {
    const joined = paragraph.join('\n')
    spans.push(...codeSpans(joined))
    links.push(...linkTargets(joined))
    paragraph = []
  }
  for (const line of text.split('\n')) {
    const marker = FENCE.exec(line)?.[1]
    if (fence !== undefined) {
      if (marker !== undefined && marker[0] === fence[0] && marker.length >= fence.length && line.trim() === marker) fence = undefined
      else if (line.trim() !== '') fencedLines.push(line.trim())
      continue
    }
    if (marker !== undefined) {
      closeParagraph()
      fence = marker
      continue
    }
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1]
    if (heading !== undefined) {
      closeParagraph()
      headings.push(heading)
      spans.push(...codeSpans(heading))
      continue
    }
    if (line.trim() === '') closeParagraph()
    else paragraph.push(line)
  }
  closeParagraph()
  return { spans, fencedLines, anchors: anchorsOf(headings), links }
}

// A run of n backticks opens a span that the next run of exactly n backticks closes; one space on
// each side is stripped when both are there, so `` `${a}` `` reads as `${a}`.
export function codeSpans(text: string): string[] {
  const spans: string[] = []
  const runs = [...text.matchAll(/`+/g)]
  for (let i = 0; i < runs.length; i++) {
    const open = runs[i]!
    const close = runs.slice(i + 1).findIndex((run) => run[0].length === open[0].length)
    if (close === -1) continue
    const end = runs[i + 1 + close]!
    let content = text.slice(open.index + open[0].length, end.index).replace(/\n/g, ' ')
    if (content.length > 2 && content.startsWith(' ') && content.endsWith(' ') && content.trim() !== '') content = content.slice(1, -1)
    spans.push(content)
    i += 1 + close
  }
  return spans
}

function linkTargets(text: string): string[] {
  const outsideCode = text.replace(/(`+)[\s\S]*?\1/g, '')
  return [...outsideCode.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((match) => match[1]!)
}

// GitHub's anchors: the heading's text without its Markdown, lower case, punctuation dropped,
// spaces as hyphens; a repeated heading gets -1, -2, … in order.
export function anchorsOf(headings: string[]): Set<string> {
  const anchors = new Set<string>()
  const seen = new Map<string, number>()
  for (const heading of headings) {
    const plain = heading.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/[`*_]/g, (mark) => (mark === '_' ? '_' : ''))
    const base = plain
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .trim()
      .replace(/\s/g, '-')
    const count = seen.get(base) ?? 0
    seen.set(base, count + 1)
    anchors.add(count === 0 ? base : `${base}-${count}`)
  }
  return anchors
}
