// One streamed answer on its way out under strict mode or redaction: text is sent only once it
// has been scanned, and what may still be part of a value is held back (hold.ts) until the value
// is whole. Each release scans the new text with a short look back, so detectors see the context
// words and assignment names before a value. A scan answers at once for a short window, or with
// a promise for a long one (scanned off the event loop), and so does the release: nothing of the
// guard's state changes until the scan's findings are known, and the core passes no chunk before
// the previous one's promise has settled. The stream's tool calls are held by the core and
// checked whole at its end: strict mode stops on them as on text, redaction replaces values in
// their arguments (kept valid JSON, redact-json.ts).
import type { Finding } from '../../../../workers/scan-content.ts'
import type { CompiledRule } from '../verdict/custom-rules.ts'
import { findingSeverity, isBlockingSeverity, isRedactedType } from '../verdict/finding-severity.ts'
import { holdStart, isPlainProse } from './hold.ts'
import { findingsInRaw, scanViewOf, type ScanView } from './json-scan-view.ts'
import { redact, type Span } from './redact.ts'
import { redactJson } from './redact-json.ts'

/** Already released text scanned again with each release: the detectors' context windows (48 characters) and a secret's name (up to 64). */
const LOOK_BACK_CHARS = 128
/**
 * Prose can hold no value, only phrases (prompt injection), which are no secret in themselves: it
 * is scanned for them once this much of it has gone out unscanned, not with every chunk, and at
 * the stream's end. As long as the look back, so each character is scanned about twice: under
 * load a phrase scan costs 50–170 µs whatever its length, and a stride of 64 made them two
 * thirds of what strict mode adds to a stream's CPU.
 */
export const PHRASE_STRIDE_CHARS = LOOK_BACK_CHARS

export interface GuardSettings {
  /** Strict mode: a finding of HIGH or CRITICAL severity stops the stream. */
  readonly stop: boolean
  readonly redact: boolean
  /** Custom rules of HIGH or CRITICAL severity; a match stops the stream when `stop` is on. */
  readonly stoppingRules: readonly CompiledRule[]
}

export type GuardOutput =
  | { readonly kind: 'send'; readonly text: string }
  /** `found`: the entity types and custom rule ids that stopped it. */
  | { readonly kind: 'stop'; readonly found: readonly string[] }

type ToolCallsOutput =
  /** `arguments`: each call's arguments as they are to be sent, in the order given. */
  { readonly kind: 'send'; readonly arguments: readonly string[] } | { readonly kind: 'stop'; readonly found: readonly string[] }

/**
 * Scans a window; with `phrasesOnly` only for the types that plain prose can hold (prompt
 * injection). A promise only when the scan must wait (a long window, scanned in the worker pool).
 */
export type Scan = (text: string, phrasesOnly: boolean) => readonly Finding[] | Promise<readonly Finding[]>

/** A release of text as scanned: its findings are matched against it once they are known. */
interface Pass {
  readonly wanted: number
  readonly final: boolean
  readonly released: number
  readonly checked: number
  readonly from: number
  readonly window: string
  readonly scanned: boolean
}

export class StreamGuard {
  readonly #settings: GuardSettings
  readonly #scan: Scan
  #text = ''
  #released = 0
  /** Findings ending before this index have been dealt with; only prose lies between it and #released. */
  #checked = 0
  readonly #redacted: Span[] = []
  #toolCallInputs: readonly string[] = []
  #toolCallsRedacted: readonly (readonly Span[])[] = []

  constructor(settings: GuardSettings, scan: Scan) {
    this.#settings = settings
    this.#scan = scan
  }

  /** What the model generated so far. */
  get text(): string {
    return this.#text
  }

  /** Spans of the generated text that went out as [REDACTED:TYPE]. */
  get redacted(): readonly Span[] {
    return this.#redacted
  }

  push(piece: string): GuardOutput | Promise<GuardOutput> {
    this.#text += piece
    const cut = holdStart(this.#text, this.#released, { releasePlainWords: !this.#settings.redact })
    if (cut <= this.#released) return { kind: 'send', text: '' }
    return this.#release(cut, false)
  }

  /** Tool calls are held whole until the stream's end, and checked and redacted there (releaseToolCalls). */
  get holdsToolCalls(): boolean {
    return this.#settings.stop || this.#settings.redact
  }

  /** The arguments of the stream's tool calls as the model generated them. */
  get toolCallInputs(): readonly string[] {
    return this.#toolCallInputs
  }

  /** Per tool call, the spans of its generated arguments that went out as [REDACTED:TYPE]. */
  get toolCallsRedacted(): readonly (readonly Span[])[] {
    return this.#toolCallsRedacted
  }

  /**
   * The stream's tool calls, held whole until its end: their inputs, read by their decoded string
   * values (json-scan-view.ts), stop it on the same findings and rules as text, and what does not
   * stop it is redacted.
   */
  releaseToolCalls(inputs: readonly string[]): ToolCallsOutput | Promise<ToolCallsOutput> {
    this.#toolCallInputs = inputs
    const views = inputs.map(scanViewOf)
    const scans = views.map((view) => this.#scan(view.text, false))
    return scans.some((scan) => scan instanceof Promise)
      ? Promise.all(scans).then((found) => this.#checkToolCalls(inputs, views, found))
      : this.#checkToolCalls(inputs, views, scans as readonly (readonly Finding[])[])
  }

  #checkToolCalls(inputs: readonly string[], views: readonly ScanView[], found: readonly (readonly Finding[])[]): ToolCallsOutput {
    const { stop, redact: redacting, stoppingRules } = this.#settings
    const stopping = new Set<string>()
    const redacted = inputs.map((input, i) => {
      const view = views[i]!
      const replaced: Finding[] = []
      for (const finding of findingsInRaw(found[i]!, view)) {
        if (stop && isBlockingSeverity(findingSeverity(finding.type, finding.score))) stopping.add(finding.type)
        else if (redacting) replaced.push(finding)
      }
      if (stop && stoppingRules.length > 0) {
        const lower = view.text.toLowerCase()
        for (const rule of stoppingRules) if (rule.count(view.text, lower) > 0) stopping.add(rule.rule.id)
      }
      return redactJson(input, replaced)
    })
    if (stopping.size > 0) return { kind: 'stop', found: [...stopping] }
    this.#toolCallsRedacted = redacted.map((out) => out.spans)
    return { kind: 'send', arguments: redacted.map((out) => out.text) }
  }

  /**
   * The model is done: everything left is scanned and sent, and prose that went out since its last
   * phrase scan is scanned before the stream ends, so no phrase at an answer's end goes unchecked.
   * `scan` may answer for this last window from a scan of the whole answer (scanOfWhole).
   */
  end(scan: Scan = this.#scan): GuardOutput | Promise<GuardOutput> {
    if (this.#released === this.#text.length && this.#checked === this.#released) return { kind: 'send', text: '' }
    return this.#release(this.#text.length, true, scan)
  }

  #release(wanted: number, final: boolean, scan: Scan = this.#scan): GuardOutput | Promise<GuardOutput> {
    const released = this.#released
    // Most releases are prose, which needs only the phrase detectors, and those not every time.
    const prose = isPlainProse(this.#text.slice(released))
    const scanned = !prose || final || wanted - this.#checked >= PHRASE_STRIDE_CHARS
    const checked = scanned ? this.#checked : released
    let from = Math.max(0, Math.min(checked, released) - LOOK_BACK_CHARS)
    if (from > 0 && isLowSurrogate(this.#text.charCodeAt(from))) from--
    // Scanned up to the end, held text included: a value that runs past the cut is seen whole.
    const pass: Pass = { wanted, final, released, checked, from, window: this.#text.slice(from), scanned }
    const found = scanned ? scan(pass.window, prose) : []
    return found instanceof Promise ? found.then((findings) => this.#decide(pass, findings)) : this.#decide(pass, found)
  }

  #decide(pass: Pass, findings: readonly Finding[]): GuardOutput {
    const { wanted, final, released, checked, from, window } = pass
    const found = new Set<string>()
    const redacted: Finding[] = []
    for (const finding of findings) {
      const start = finding.start + from
      const end = finding.end + from
      if (end <= checked) continue
      if (this.#settings.stop && isBlockingSeverity(findingSeverity(finding.type, finding.score))) found.add(finding.type)
      else if (this.#settings.redact && isRedactedType(finding.type)) redacted.push({ ...finding, start, end })
    }
    if (this.#settings.stop && this.#settings.stoppingRules.length > 0) {
      const lower = window.toLowerCase()
      for (const rule of this.#settings.stoppingRules) if (matchesPast(rule, window, lower, released - from)) found.add(rule.rule.id)
    }
    if (found.size > 0) return { kind: 'stop', found: [...found] }
    const cut = final ? wanted : wholeValuesCut(wanted, released, redacted)
    if (cut <= released) return { kind: 'send', text: '' }
    const out = redact(this.#text, released, cut, redacted)
    this.#redacted.push(...out.spans)
    this.#released = cut
    if (pass.scanned) this.#checked = cut
    return { kind: 'send', text: out.text }
  }
}

/** The cut moved back before any value to redact that it would split, so the value goes out as one replacement. */
function wholeValuesCut(wanted: number, released: number, findings: readonly Finding[]): number {
  let cut = wanted
  for (let moved = true; moved; ) {
    moved = false
    for (const finding of findings) {
      if (finding.start >= released && finding.start < cut && finding.end > cut) {
        cut = finding.start
        moved = true
      }
    }
  }
  return cut
}

/** The rule matches text that was not released yet: more matches in the window than in its released part. */
function matchesPast(rule: CompiledRule, window: string, lower: string, releasedAt: number): boolean {
  const all = rule.count(window, lower)
  return all > 0 && all > rule.count(window.slice(0, releasedAt), lower.slice(0, releasedAt))
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff
}
