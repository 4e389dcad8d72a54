// Provider credentials recognizable by their own format: a fixed prefix, a length, an alphabet.
// Formats follow the providers' documentation and the rule sets of gitleaks and detect-secrets.
// Each rule lists lower-case keywords; a rule runs only when one occurs in the text, which keeps
// a scan of ordinary prose from running dozens of regexes.

export interface SecretRule {
  readonly id: string
  readonly keywords: readonly string[]
  /** Global regex with bounded repeats after a literal prefix. With the d flag, group 1 is the secret. */
  readonly pattern: RegExp
  /** Characters at the start of the secret that are a fixed prefix, left out of the entropy test. */
  readonly prefixLength?: number
  /** Minimum entropy (bits per character) of the variable part; rejects fills like "ZZZZ…". */
  readonly minEntropy?: number
  /** Extra structural check (mixed character classes, embedded JSON, …). */
  readonly check?: (secret: string) => boolean
}

const DEFAULT_MIN_ENTROPY = 2.5

export function minEntropyOf(rule: SecretRule): number {
  return rule.minEntropy ?? DEFAULT_MIN_ENTROPY
}

const hasDigitAndLetter = (s: string): boolean => /\d/.test(s) && /[A-Za-z]/.test(s)
const hasMixedCaseAndDigit = (s: string): boolean => /\d/.test(s) && /[a-z]/.test(s) && /[A-Z]/.test(s)

export const SECRET_RULES: readonly SecretRule[] = [
  {
    id: 'aws-access-key-id',
    keywords: ['akia', 'asia', 'abia', 'acca', 'a3t'],
    pattern: /(?<![A-Za-z0-9])(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}(?![A-Za-z0-9])/g,
    prefixLength: 4,
  },
  { id: 'aws-bedrock-api-key', keywords: ['absk'], pattern: /(?<![\w])ABSK[A-Za-z0-9+/]{109,269}={0,2}(?![\w+/=])/g, prefixLength: 4, minEntropy: 3.5 },
  {
    id: 'aws-bedrock-short-lived-key',
    keywords: ['bedrock-api-key-'],
    // The fixed part is base64 of "bedrock.amazonaws.com".
    pattern: /(?<![\w-])bedrock-api-key-YmVkcm9jay5hbWF6b25hd3MuY29t[A-Za-z0-9+/=]{40,4096}/g,
    prefixLength: 44,
    minEntropy: 3.5,
  },
  { id: 'azure-storage-account-key', keywords: ['accountkey'], pattern: /AccountKey=([A-Za-z0-9+/]{86}==)/dg, minEntropy: 4 },
  {
    id: 'azure-ad-client-secret',
    keywords: ['q~'],
    pattern: /(?<![^\s\\'"`>=:(,)])[a-zA-Z0-9_~.]{3}\dQ~[a-zA-Z0-9_~.-]{31,34}(?![^\s\\'"`<),])/g,
    minEntropy: 3,
  },
  {
    id: 'artifactory-token',
    keywords: ['akc', 'ap'],
    pattern: /(?<![\w])(?:AKC[a-zA-Z0-9]{10,80}|AP[\dA-F][a-zA-Z0-9]{8,80})(?![\w])/g,
    prefixLength: 3,
    check: hasDigitAndLetter,
  },
  {
    id: 'anthropic-api-key',
    keywords: ['sk-ant-'],
    pattern: /(?<![\w-])sk-ant-(?:api03|admin01)-[A-Za-z0-9_-]{93}AA(?![\w-])/g,
    prefixLength: 14,
  },
  {
    id: 'openai-api-key',
    keywords: ['t3blbkfj'],
    pattern: /(?<![\w-])sk-(?:(?:proj|svcacct|admin)-)?[A-Za-z0-9_-]{20,200}T3BlbkFJ[A-Za-z0-9_-]{20,200}(?![\w-])/g,
    prefixLength: 3,
  },
  {
    id: 'openai-project-key',
    keywords: ['sk-proj-', 'sk-svcacct-', 'sk-admin-'],
    pattern: /(?<![\w-])sk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{80,300}(?![\w-])/g,
    prefixLength: 8,
    minEntropy: 4,
  },
  { id: 'openrouter-api-key', keywords: ['sk-or-v1-'], pattern: /(?<![\w-])sk-or-v1-[a-f0-9]{64}(?![\w-])/g, prefixLength: 9 },
  { id: 'groq-api-key', keywords: ['gsk_'], pattern: /(?<![\w])gsk_[A-Za-z0-9]{52}(?![\w])/g, prefixLength: 4 },
  { id: 'xai-api-key', keywords: ['xai-'], pattern: /(?<![\w-])xai-[A-Za-z0-9]{80}(?![\w-])/g, prefixLength: 4 },
  { id: 'perplexity-api-key', keywords: ['pplx-'], pattern: /(?<![\w-])pplx-[A-Za-z0-9]{48}(?![A-Za-z0-9])/g, prefixLength: 5 },
  { id: 'huggingface-token', keywords: ['hf_', 'api_org_'], pattern: /(?<![\w])(?:hf_|api_org_)[A-Za-z]{34}(?![\w])/g, prefixLength: 3 },
  { id: 'replicate-api-token', keywords: ['r8_'], pattern: /(?<![\w])r8_[A-Za-z0-9]{37}(?![\w])/g, prefixLength: 3, check: hasDigitAndLetter },
  {
    id: 'github-token',
    keywords: ['ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_', 'github_pat_'],
    pattern: /(?<![\w])(?:gh[pousr]_[A-Za-z0-9]{36,251}|github_pat_[A-Za-z0-9]{22}_[A-Za-z0-9]{59})(?![\w])/g,
    prefixLength: 4,
  },
  {
    id: 'gitlab-token',
    keywords: ['glpat-', 'gldt-', 'glft-', 'glffct-', 'glwt-', 'glsoat-', 'glrt-', 'glcbt-', 'glimt-', 'glptt-', 'glagent-', 'gloas-', 'gr1348941'],
    pattern:
      /(?<![\w-])(?:(?:glpat|glrt)-[A-Za-z0-9_-]{27,300}\.[0-9a-z]{2}\.?[0-9a-z]{7}|(?:glpat|gldt|glft|glsoat|glrt|glffct|glwt)-[A-Za-z0-9_-]{20,50}|GR1348941[A-Za-z0-9_-]{20,50}|glcbt-(?:[0-9a-fA-F]{2}_)?[A-Za-z0-9_-]{20,50}|glimt-[A-Za-z0-9_-]{25}|glptt-[A-Za-z0-9_-]{40}|glagent-[A-Za-z0-9_-]{50,1024}|gloas-[A-Za-z0-9_-]{64})(?![\w-])/g,
    prefixLength: 5,
  },
  {
    id: 'slack-token',
    keywords: ['xox'],
    // Bot, user, app, refresh (xoxe-) and legacy tokens in their numeric-group form.
    pattern: /(?<![\w-])xox[abposre]-(?:\d-)?(?:\d{6,14}-){1,4}[A-Za-z0-9]{8,64}(?![\w-])/g,
    prefixLength: 5,
  },
  {
    id: 'slack-config-token',
    keywords: ['xoxe'],
    pattern: /(?<![\w-])(?:xoxe\.xox[bp]-\d-[A-Za-z0-9]{163,166}|xoxe-\d-[A-Za-z0-9]{146})(?![\w-])/g,
    prefixLength: 12,
  },
  {
    id: 'slack-app-token',
    keywords: ['xapp-'],
    pattern: /(?<![\w-])xapp-\d-[A-Z0-9]{9,13}-\d{10,14}-[a-z0-9]{64}(?![\w-])/gi,
    prefixLength: 7,
  },
  {
    id: 'slack-webhook-url',
    keywords: ['hooks.slack.com'],
    pattern: /https?:\/\/hooks\.slack\.com\/(?:services|workflows|triggers)\/[A-Za-z0-9+/]{43,128}/g,
    prefixLength: 34,
  },
  { id: 'discord-bot-token', keywords: [], pattern: /[MNO][a-zA-Z\d_-]{23,25}\.[a-zA-Z\d_-]{6}\.[a-zA-Z\d_-]{27}/g, minEntropy: 3.5 },
  { id: 'telegram-bot-token', keywords: [':'], pattern: /(?<![\w:])\d{8,10}:[A-Za-z0-9_-]{35}(?![\w-])/g, prefixLength: 11, minEntropy: 3.5 },
  { id: 'sendgrid-api-key', keywords: ['sg.'], pattern: /(?<![\w])SG\.[\w-]{22}\.[\w-]{43}(?![\w-])/g, prefixLength: 3, minEntropy: 3.5 },
  { id: 'mailchimp-api-key', keywords: ['-us'], pattern: /(?<![\w-])[0-9a-f]{32}-us\d{1,2}(?![\w-])/g, minEntropy: 3 },
  {
    id: 'stripe-secret-key',
    keywords: ['sk_', 'rk_'],
    pattern: /(?<![\w])(?:sk|rk)_(?:test|live|prod)_[A-Za-z0-9]{10,247}(?![\w])/g,
    prefixLength: 8,
    check: hasDigitAndLetter,
  },
  {
    id: 'gateway-api-key',
    keywords: ['sk_', 'pk_'],
    pattern: /(?<![\w])(?:sk|pk)_(?:(?:dev|stg|prod)_)?[A-Za-z0-9]{32,64}(?![\w])/g,
    prefixLength: 3,
    minEntropy: 3.5,
  },
  {
    id: 'square-token',
    keywords: ['sq0', 'eaaa'],
    pattern: /(?<![\w-])(?:sq0csp-[0-9A-Za-z\\\-_]{43}|(?:EAAA|sq0atp-)[\w-]{22,60})(?![\w-])/g,
    prefixLength: 7,
  },
  {
    id: 'npm-token',
    keywords: ['npm_', ':_authtoken'],
    pattern: /(?<![\w])npm_[A-Za-z0-9]{36}(?![\w])|\/\/[\w.-]+(?:\/[\w.-]+)*\/:_authToken=\s*(npm_[A-Za-z0-9]{36}|[A-Fa-f0-9-]{36})/dg,
  },
  { id: 'pypi-token', keywords: ['pypi-'], pattern: /pypi-(?:AgEIcHlwaS5vcmc|AgENdGVzdC5weXBpLm9yZw)[A-Za-z0-9_-]{70,1000}/g, prefixLength: 19 },
  { id: 'databricks-token', keywords: ['dapi'], pattern: /(?<![\w])dapi[a-f0-9]{32}(?:-\d)?(?![\w])/g, prefixLength: 4 },
  { id: 'digitalocean-token', keywords: ['_v1_'], pattern: /(?<![\w])do[opr]_v1_[a-f0-9]{64}(?![\w])/g, prefixLength: 7 },
  { id: 'shopify-token', keywords: ['shpat_', 'shpca_', 'shppa_', 'shpss_'], pattern: /(?<![\w])shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}(?![\w])/g, prefixLength: 6 },
  { id: 'postman-api-key', keywords: ['pmak-'], pattern: /(?<![\w-])PMAK-[a-f0-9]{24}-[a-f0-9]{34}(?![\w-])/g, prefixLength: 5 },
  { id: 'linear-api-key', keywords: ['lin_api_'], pattern: /(?<![\w])lin_api_[A-Za-z0-9]{40}(?![\w])/g, prefixLength: 8 },
  { id: 'doppler-token', keywords: ['dp.pt.'], pattern: /(?<![\w.])dp\.pt\.[A-Za-z0-9]{43}(?![\w])/g, prefixLength: 6 },
  { id: 'age-secret-key', keywords: ['age-secret-key-1'], pattern: /AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}/g, prefixLength: 16 },
  {
    id: 'google-credential',
    keywords: ['aiza', 'ya29.', 'gocspx-'],
    pattern: /(?<![\w-])(?:AIza[\w-]{35}|ya29\.[\w-]{30,512}|GOCSPX-[\w-]{28})(?![\w-])/g,
    prefixLength: 5,
    minEntropy: 3,
  },
  {
    id: 'facebook-token',
    keywords: ['eaam', 'eaac', '|', '%7c'],
    pattern: /(?<![\w])(?:EAA[MC][A-Za-z0-9]{100,400}|\d{15,16}(?:\||%7[Cc])[0-9A-Za-z\-_]{27,40})(?![\w-])/g,
    minEntropy: 3.5,
  },
  {
    id: 'flyio-token',
    keywords: ['fo1_', 'fm1', 'fm2_'],
    pattern: /(?<![\w])(?:fo1_[\w-]{43}|fm1[ar]_[A-Za-z0-9+/]{100,2000}={0,3}|fm2_[A-Za-z0-9+/]{100,2000}={0,3})/g,
    prefixLength: 5,
    minEntropy: 3.5,
  },
  {
    id: 'grafana-token',
    keywords: ['glc_', 'glsa_', 'eyjrijoi'],
    pattern: /(?<![\w])(?:glc_[A-Za-z0-9+/]{32,400}={0,3}|glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}|eyJrIjoi[A-Za-z0-9]{70,400}={0,3})(?![\w+/=])/g,
    prefixLength: 5,
    minEntropy: 3.5,
  },
  {
    id: 'vault-token',
    keywords: ['hvs.', 'hvb.', 's.'],
    pattern: /(?<![\w.])(?:hvs\.[\w-]{90,120}|hvb\.[\w-]{138,300}|s\.[A-Za-z0-9]{24})(?![\w.-])/g,
    prefixLength: 2,
    minEntropy: 3.5,
    check: hasMixedCaseAndDigit,
  },
  { id: 'terraform-cloud-token', keywords: ['.atlasv1.'], pattern: /(?<![\w])[a-z0-9]{14}\.atlasv1\.[a-z0-9\-_=]{60,70}(?![\w=-])/gi, minEntropy: 3.5 },
  { id: 'heroku-api-key', keywords: ['hrku-'], pattern: /(?<![\w-])HRKU-AA[0-9a-zA-Z_-]{58}(?![\w-])/g, prefixLength: 7, minEntropy: 3.5 },
  { id: 'twilio-key', keywords: ['ac', 'sk'], pattern: /(?<![\w])(?:AC|SK)[a-f0-9]{32}(?![\w])/g, prefixLength: 2, minEntropy: 3 },
  { id: 'notion-token', keywords: ['ntn_'], pattern: /(?<![\w])ntn_\d{11}[A-Za-z0-9]{35}(?![\w])/g, prefixLength: 15, check: hasDigitAndLetter },
  { id: 'openshift-token', keywords: ['sha256~'], pattern: /(?<![\w])sha256~[\w-]{43}(?![\w-])/g, prefixLength: 7, minEntropy: 3.5 },
  {
    id: 'sentry-token',
    keywords: ['sntrys_', 'sntryu_'],
    pattern: /(?<![\w])(?:sntrys_eyJ[A-Za-z0-9+/=]{60,1000}_[A-Za-z0-9+/]{43}|sntryu_[a-f0-9]{64})(?![\w+/])/g,
    prefixLength: 7,
  },
  {
    id: 'sourcegraph-token',
    keywords: ['sgp_'],
    pattern: /(?<![\w])sgp_(?:(?:[a-fA-F0-9]{16}|local)_)?[a-fA-F0-9]{40}(?![\w])/g,
    prefixLength: 4,
    minEntropy: 3,
  },
  {
    id: '1password-token',
    keywords: ['ops_eyj', 'a3-'],
    pattern:
      /(?<![\w-])(?:ops_eyJ[A-Za-z0-9+/]{250,8192}={0,3}|A3-[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5})(?![\w-])/g,
    prefixLength: 7,
    minEntropy: 3,
  },
  { id: 'atlassian-api-token', keywords: ['atatt3'], pattern: /(?<![\w-])ATATT3[A-Za-z0-9_\-=]{186}(?![\w-])/g, prefixLength: 6, minEntropy: 3.5 },
  {
    id: 'sidekiq-credentials',
    keywords: ['contribsys'],
    pattern: /BUNDLE_(?:ENTERPRISE|GEMS)__CONTRIBSYS__COM["']?\s{0,4}[:=]\s{0,4}["']?([a-f0-9]{8}:[a-f0-9]{8})/dgi,
  },
  {
    id: 'snyk-token',
    keywords: ['snyk'],
    pattern: /snyk[\w.-]{0,20}["']?\s{0,4}(?::{1,3}=|=>|=|:)\s{0,4}["']?([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})(?![\w-])/dgi,
  },
  {
    id: 'sonarqube-token',
    keywords: ['sonar'],
    pattern: /sonar[\w.-]{0,20}(?:login|token)[\w.-]{0,20}["']?\s{0,4}(?::{1,3}=|=>|=|:)\s{0,4}["']?((?:squ_|sqp_|sqa_)?[A-Za-z0-9]{40})(?![\w])/dgi,
  },
  {
    id: 'okta-token',
    keywords: ['okta'],
    pattern: /okta[\w.-]{0,20}["']?\s{0,4}(?::{1,3}=|=>|=|:|,)\s{0,4}["'`]?(00[\w=-]{40})(?![\w=-])/dgi,
    minEntropy: 3.5,
  },
  {
    id: 'sumologic-access-key',
    keywords: ['sumo'],
    pattern: /sumo[\w.-]{0,20}["']?\s{0,4}(?::{1,3}=|=>|=|:)\s{0,4}["']?([A-Za-z0-9]{64})(?![\w])/dgi,
    minEntropy: 3.5,
  },
  {
    id: 'sumologic-access-id',
    keywords: ['sumo'],
    pattern: /sumo[\w.-]{0,20}access[\w.-]{0,3}id["']?\s{0,4}(?::{1,3}=|=>|=|:)\s{0,4}["']?(su[A-Za-z0-9]{12})(?![\w])/dgi,
    prefixLength: 2,
    check: hasDigitAndLetter,
  },
]
