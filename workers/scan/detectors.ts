// Every detector the scanner runs, in no particular order: results are merged and sorted after.
import { creditCardDetector } from './credit-card.ts'
import { cryptoWalletDetector } from './crypto-wallet.ts'
import { dateTimeDetector } from './date-time.ts'
import { emailDetector } from './email.ts'
import { ibanDetector } from './iban.ts'
import { ipAddressDetector } from './ip-address.ts'
import { macAddressDetector } from './mac-address.ts'
import { nationalIdDetector } from './national-ids/index.ts'
import { phoneDetector } from './phone.ts'
import { promptInjectionDetector } from './prompt-injection.ts'
import { secretDetector } from './secrets.ts'
import type { Detector } from './types.ts'
import { urlDetector } from './url.ts'

export const DETECTORS: readonly Detector[] = [
  emailDetector,
  phoneDetector,
  creditCardDetector,
  ibanDetector,
  cryptoWalletDetector,
  ipAddressDetector,
  macAddressDetector,
  urlDetector,
  dateTimeDetector,
  nationalIdDetector,
  secretDetector,
  promptInjectionDetector,
]
