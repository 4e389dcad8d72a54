// The gateway's log stream kept in memory: pass `destination` as the start option
// `logDestination`, then read the raw text or the parsed JSON lines.
import { Writable } from 'node:stream'

export interface LogCapture {
  readonly destination: Writable
  /** Everything written so far. */
  text(): string
  /** Every line, parsed. */
  lines(): Array<Record<string, any>>
}

export function captureLog(): LogCapture {
  let text = ''
  const destination = new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      text += chunk.toString()
      done()
    },
  })
  return {
    destination,
    text: () => text,
    lines: () =>
      text
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line) as Record<string, any>),
  }
}
