// CRYPTO: Bitcoin addresses, legacy and script-hash (Base58Check, version 1 or 3) and SegWit /
// Taproot (bech32 and bech32m, "bc1"). Only addresses whose checksum holds are reported.
import { isBase58CheckValid, isBech32Valid } from './checksums.ts'
import type { Detector, Finding } from './types.ts'

const BASE58_ADDRESS = /(?<![A-Za-z0-9])[13][1-9A-HJ-NP-Za-km-z]{25,34}(?![A-Za-z0-9])/g
const BECH32_ADDRESS = /(?<![A-Za-z0-9])(?:bc1[02-9ac-hj-np-z]{11,71}|BC1[02-9AC-HJ-NP-Z]{11,71})(?![A-Za-z0-9])/g

export const cryptoWalletDetector: Detector = {
  types: ['CRYPTO'],
  detect(text) {
    const findings: Finding[] = []
    for (const m of text.matchAll(BASE58_ADDRESS)) {
      if (isBase58CheckValid(m[0])) findings.push({ type: 'CRYPTO', start: m.index, end: m.index + m[0].length, score: 1 })
    }
    for (const m of text.matchAll(BECH32_ADDRESS)) {
      if (isBech32Valid(m[0].toLowerCase())) findings.push({ type: 'CRYPTO', start: m.index, end: m.index + m[0].length, score: 1 })
    }
    return findings
  },
}
