// A request's texts as the scanner reads them: a message's text as it is, a tool call's arguments
// in the client's history by their decoded string values (stream/json-scan-view.ts), as the
// answer's are, so a value right after an escape sequence ("x\n4111…") is found there too.
import { requestTexts, type AiRequest } from '../../../proxy/pipeline/ai-request.ts'
import { plainView, scanViewOf, type ScanView } from './stream/json-scan-view.ts'

export function requestScanViews(request: AiRequest): ScanView[] {
  return requestTexts(request).map(({ kind, text }) => (kind === 'arguments' ? scanViewOf(text) : plainView(text)))
}
