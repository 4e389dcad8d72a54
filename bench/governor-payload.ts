// The Governor rows' request: one user message of about N bytes of ordinary support-desk prose
// with personal data sprinkled through it (e-mail addresses, phone numbers, Luhn-valid card
// numbers, IBANs), so every scan has findings to report. Built the same way every run.
import { MODEL } from './payload.ts'

const PROSE = [
  'I ordered a set of garden chairs last month and only two of the four arrived in the first parcel.',
  'The courier left a note saying the rest would follow, but the tracking page has not changed since.',
  'Could you check whether the second parcel was ever dispatched from the warehouse?',
  'We are hosting a family lunch at the end of the month and would like to have all four chairs by then.',
  'If the missing chairs are out of stock, I would accept a similar model in the same colour instead.',
  'The two chairs that did arrive are in good condition, although one box was slightly crushed at a corner.',
  'I have attached the order confirmation and the photos of the delivered boxes to my previous message.',
  'Please let me know whether I need to return anything before you can send the replacement.',
] as const

/** Check digit that makes a card number pass the Luhn test. */
function luhnCheckDigit(digitsWithoutCheck: string): number {
  let sum = 0
  for (let i = 0; i < digitsWithoutCheck.length; i++) {
    const digit = Number(digitsWithoutCheck[digitsWithoutCheck.length - 1 - i])
    const weighted = i % 2 === 0 ? digit * 2 : digit
    sum += weighted > 9 ? weighted - 9 : weighted
  }
  return (10 - (sum % 10)) % 10
}

function cardNumber(index: number): string {
  const body = `4539${String(14_880_343_647 + index * 7919).padStart(11, '0')}`
  const digits = `${body}${luhnCheckDigit(body)}`
  return digits.replace(/(\d{4})(?=\d)/g, '$1 ')
}

// Published example IBANs, valid checksums.
const IBANS = ['GB82 WEST 1234 5698 7654 32', 'DE89 3704 0044 0532 0130 00', 'FR14 2004 1010 0505 0001 3M02 606'] as const
const PHONES = ['+44 20 7946 0958', '+1 212 555 0147', '+49 30 901820'] as const

function personalDetail(index: number): string {
  switch (index % 4) {
    case 0:
      return `You can reach me at customer${index}@example.com if anything is unclear.`
    case 1:
      return `My phone number is ${PHONES[index % PHONES.length]} and I am home most afternoons.`
    case 2:
      return `The order was paid with the card ${cardNumber(index)}, in case you need to look it up.`
    default:
      return `For a refund, my account is ${IBANS[index % IBANS.length]} under the same name.`
  }
}

/** Sentences of prose with a personal detail after every second one, up to about `bytes` bytes (ASCII, so bytes are characters). */
export function governorMessage(bytes: number): string {
  const sentences: string[] = []
  let length = 0
  for (let i = 0; ; i++) {
    const sentence = i % 3 === 2 ? personalDetail(Math.floor(i / 3)) : PROSE[i % PROSE.length]!
    if (length + sentence.length + 1 > bytes) break
    sentences.push(sentence)
    length += sentence.length + 1
  }
  return sentences.join(' ')
}

const GOVERNOR_METADATA = { actionType: 'customer_support', senderId: 'bench' } as const

export function governorCompleteBody(bytes: number, options: { readonly withMetadata: boolean }): string {
  const messages = [{ role: 'user', content: governorMessage(bytes) }]
  return JSON.stringify(options.withMetadata ? { model: MODEL, messages, governorMetadata: GOVERNOR_METADATA } : { model: MODEL, messages })
}
