// Where a text reports an order given to a model instead of giving it: "hidden text telling the
// model to ignore its previous instructions", "attacks that trick an assistant into revealing its
// prompt". Security writing describes attacks this way; an attack speaks to the model instead
// ("you", "your"), so it never needs the frame. The prompt-injection detector leaves matches
// inside the reported order out, up to the end of its sentence; the rest of the text still counts.
import { groupSpans, type Span } from './mention-spans.ts'

const REPORTING_VERB =
  '(?:tell|tells|telling|told|ask|asks|asking|asked|instruct|instructs|instructing|instructed|trick|tricks|tricking|tricked|get|gets|getting|got|make|makes|making|made|cause|causes|causing|caused|convince|convinces|convincing|convinced|persuade|persuades|persuading|persuaded|lead|leads|leading|led)'
const MODEL = '(?:the|a|an|any)\\s+(?:(?:\\w+\\s+)?(?:model|llm|ai|assistant|chatbot|bot|agent)s?|language\\s+models?)'
const REPORTED = new RegExp(`\\b${REPORTING_VERB}\\s+${MODEL}\\s+(?:(?:in)?to\\s+)?([^.!?\\n]{1,200})`, 'dgi')

/** The spans of `text` that report an order to a model, in order. */
export function reportedOrders(text: string): Span[] {
  return groupSpans(text, REPORTED)
}
