// Credentials that vendors publish in their documentation as examples. They are in every
// tutorial, README and Stack Overflow answer that copied the docs, so reporting them as leaked
// secrets would only be noise. The list is short on purpose: only keys whose publication by the
// vendor itself can be pointed to, plus AWS's naming convention for its examples.
//
// - AWS documents example credentials whose values end in EXAMPLE or EXAMPLEKEY
//   (AKIAIOSFODNN7EXAMPLE and wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY in the AWS CLI user guide,
//   "Configuration and credential file settings",
//   https://docs.aws.amazon.com/cli/latest/userguide/cli-configure-files.html, and the IAM user
//   guide). Any credential holding the word EXAMPLE in capitals is taken as such a documentation
//   example: a random key contains that exact run of seven capitals about once in 10^12.
// - Stripe's sample test-mode keys, printed in its API reference
//   (https://docs.stripe.com/api/authentication) and its first-request guide
//   (https://docs.stripe.com/get-started/api-request).

const DOCUMENTED_EXAMPLES: ReadonlySet<string> = new Set([
  'AKIAIOSFODNN7EXAMPLE',
  'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
  'sk_test_4eC39HqLyjWDarjtT1zdp7dc',
  'sk_test_BQokikJOvBiI2HlWgH4olfQ2',
])

/** True for a vendor's documented example credential (see the list above and its sources). */
export function isDocumentedExample(value: string): boolean {
  return DOCUMENTED_EXAMPLES.has(value) || value.includes('EXAMPLE')
}
