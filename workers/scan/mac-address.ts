// MAC_ADDRESS: six hex octets split by one kind of separator (":" or "-"), or Cisco's three dotted
// groups of four. The broadcast and all-zero addresses identify no device and are skipped.
import type { Detector, Finding } from './types.ts'

const COLON_OR_DASH = /(?<![\w:\-.])[0-9A-Fa-f]{2}([:-])[0-9A-Fa-f]{2}(?:\1[0-9A-Fa-f]{2}){4}(?![\w:-]|\.\w)/g
const CISCO = /(?<![\w.:-])[0-9A-Fa-f]{4}\.[0-9A-Fa-f]{4}\.[0-9A-Fa-f]{4}(?![\w:-]|\.\w)/g
const NOT_A_DEVICE = /^(?:[fF]{12}|0{12})$/

export const macAddressDetector: Detector = {
  types: ['MAC_ADDRESS'],
  detect(text) {
    const findings: Finding[] = []
    for (const pattern of [COLON_OR_DASH, CISCO]) {
      for (const m of text.matchAll(pattern)) {
        if (NOT_A_DEVICE.test(m[0].replace(/[:\-.]/g, ''))) continue
        findings.push({ type: 'MAC_ADDRESS', start: m.index, end: m.index + m[0].length, score: 0.8 })
      }
    }
    return findings
  },
}
