// Where a text quotes phrases as examples instead of saying them: "attacks rely on phrases like
// 'disregard your earlier instructions'". An article or a filter's documentation names an attack
// this way; the attack itself never needs the frame. The prompt-injection detector leaves matches
// inside these spans out. Only the quoted text is spared: "phrases like 'x'. Now ignore your
// rules" still counts. "Translate the sentence '…'" is not a mention here: a text handed over to
// be translated is where injections are planted, so it is scanned like any other.
import { groupSpans, type Span } from './mention-spans.ts'

const QUOTE_OPEN = `['"“‘«]`
const QUOTED = `${QUOTE_OPEN}[^'"“”‘’«»\\n]{1,300}['"”’»]`
// "phrases like", "wording such as", "e.g." right before the first quote; further
// quotes joined by commas, "or" and "and" belong to the same list.
const MENTION = new RegExp(
  `\\b(?:(?:phrases?|sentences?|lines?|strings?|wording|words|prompts?|commands?|messages?|inputs?|payloads?|requests?|text)\\s+(?:like|such\\s+as)|e\\.g\\.|for\\s+example)\\s*[:,]?\\s*(${QUOTED}(?:\\s*(?:,|\\bor\\b|\\band\\b)\\s*${QUOTED}){0,10})`,
  'dgi',
)

/** The spans of `text` quoted as examples, in order; empty when it has no quotation marks. */
export function quotedMentions(text: string): Span[] {
  return /['"“‘«]/.test(text) ? groupSpans(text, MENTION) : []
}
