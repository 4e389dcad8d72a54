import t from 'tap'
import { scanContent } from '../../../workers/scan-content.ts'

function secrets(text: string): string[] {
  return scanContent({ text, types: ['SECRET'] }).map((f) => text.slice(f.start, f.end))
}

// Fake credentials are assembled at run time so that secret scanners do not flag this file.
const fake = (...parts: string[]): string => parts.join('')
const RANDOM36 = 'u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d'
const RANDOM24 = 'xgJTeKdNnFRIBXuDL7DxtpYl'
const HEX32 = '41ecccc3fc1626e53a13043b026c48bb'

t.test('finds provider keys by their documented prefixes and formats', async (t) => {
  const keys = [
    fake('AKIA', 'ZDOC9IS0J8HT9LGM'),
    fake('gh', 'p_', RANDOM36),
    fake('xox', 'b-', '2364535789652-4614724432022-', RANDOM24),
    fake('sk', '_live_', 'SXpfKtHF4vUCsMehGAkWvj7F'),
    fake('hf', '_', 'AcQeWJKYuvSwMFLZDefrESQedUStPKRCsT'),
    fake('sk-', 'y4Qwb8DwkNhFdnXsiVpz', 'T3Blbk', 'FJ', 'z63FfkCzJr4i0B3JrTAw'),
    fake('sk-ant-', 'api03-', 'cAUsdMlHUvTCQCyEZDz_TddJ8HyS5SUkCnD8zRA9a9SkpXz9w3QlY7Zkuvqdt7s8Stqcbnr3yBdGBLEPH1qhT61qtc4xa', 'AA'),
    fake('AIza', 'SyB', RANDOM24, 'tws8phP9'),
    fake('glpat', '-', 'Ehh2FDEEtfjgVvVqE1Sk'),
  ]
  for (const key of keys) t.same(secrets(`config: use ${key} here`), [key], key.slice(0, 8))
})

t.test('finds the gateway\'s own sk_/pk_ keys', async (t) => {
  const key = fake('sk_', 'prod_', 'R4y9ojfljoQoaF1LlqsajAIxNKu8tws8')
  t.same(secrets(`X-API-Key: ${key}`), [key])
})

t.test('skips placeholders: x-fills, repeated characters, "your key here", templates', async (t) => {
  t.same(secrets(fake('gh', 'p_', 'x'.repeat(36))), [])
  t.same(secrets(fake('AKIA', 'Z'.repeat(16))), [])
  t.same(secrets('api_key = "YOUR_API_KEY_HERE"'), [])
  t.same(secrets('password: ${DB_PASSWORD}'), [])
  t.same(secrets('token = "{{ secrets.TOKEN }}"'), [])
  t.same(secrets('Authorization: Bearer <your token>'), [])
  t.same(secrets('Authorization: Token **********'), [])
})

t.test('rejects near-misses of a provider format', async (t) => {
  t.same(secrets(fake('gh', 'p_', RANDOM36.slice(0, 30))), [])
  t.same(secrets(fake('sk-', 'proj-', 'y4Qwb8DwkNhFdnXsiVpz', 'T4Blbk', 'FJ', 'z63FfkCzJr4i0B3JrTAw')), [])
  t.same(secrets('"token": "xoxp-1234567890"'), [])
})

t.test('finds JWTs whose header and payload decode to JSON, and rejects look-alikes', async (t) => {
  const header = Buffer.from('{"alg":"HS256","typ":"JWT"}').toString('base64url')
  const payload = Buffer.from('{"sub":"42","role":"admin"}').toString('base64url')
  const jwt = `${header}.${payload}.${RANDOM36}`
  t.same(secrets(`Authorization: Bearer ${jwt}`), [jwt])
  const notJson = `${Buffer.from('{"alg":"HS256"').toString('base64url')}.${payload}.${RANDOM36}`
  t.same(secrets(notJson), [])
})

t.test('finds a JWT that was base64-encoded once more', async (t) => {
  const header = Buffer.from('{"alg":"HS256","typ":"JWT"}').toString('base64url')
  const payload = Buffer.from('{"sub":"42","name":"Ada"}').toString('base64url')
  const encoded = Buffer.from(`${header}.${payload}.${RANDOM36}`).toString('base64')
  t.same(secrets(`token blob ${encoded}`), [encoded])
})

t.test('finds private key blocks with key material, not headers around filler', async (t) => {
  const body = 'tws8phP9nhFyJfm5di4PzJ59FHz5r1pY4OjE2jBMptUsGr7CmY+uCu3ZR1zTOlUc\nR4y9ojfljoQoaF1LlqsajAIxNKu8=='
  const block = fake('-----BEGIN RSA PRIVATE', ' KEY-----\n', body, '\n-----END RSA PRIVATE', ' KEY-----')
  t.same(secrets(`key:\n${block}\nthanks`), [block])
  t.same(secrets(fake('-----BEGIN PRIVATE', ' KEY-----\n...\n-----END PRIVATE', ' KEY-----')), [])
})

t.test('finds random values assigned to secret-like names in code and config', async (t) => {
  t.same(secrets(`client_secret = "${HEX32}"`), [HEX32])
  t.same(secrets(`{"apiKey": "R4y9ojfljoQoaF1LlqsajAIxNKu8"}`), ['R4y9ojfljoQoaF1LlqsajAIxNKu8'])
  t.same(secrets(`DB_PASSWORD=R64cXQ^L%ioDnk`), ['R64cXQ^L%ioDnk'])
  t.same(secrets(`getenv("auth_token", "dafa7817-e246-48f3-91a7-e87653d587b8")`), ['dafa7817-e246-48f3-91a7-e87653d587b8'])
})

t.test('ignores names that describe a secret rather than hold one, and non-random values', async (t) => {
  t.same(secrets(`kms_key_id = "${HEX32}"`), [])
  t.same(secrets('public_key = "9Cnzj4p4WGeKLs1Pt8QuKUpRKfFLfRYC9AIKjbJTWit"'), [])
  t.same(secrets('token_url = "https://auth.example.com/oauth/token"'), [])
  t.same(secrets('secret_length = X25519.secret_length'), [])
  t.same(secrets('password = "production"'), [])
  t.same(secrets('csrf-token=Mj2qykJO5rELyHgezQ69nzUX0i3OH67V7+V4eUrLfpuy'), [])
})

t.test('finds credentials passed to curl and in URLs, skipping variables and stand-ins', async (t) => {
  t.same(secrets('curl -u deploy:R64cXQ^L%ioDnk https://ci.example.com'), ['deploy:R64cXQ^L%ioDnk'])
  t.same(secrets('curl --user "$USER:$PASS" https://ci.example.com'), [])
  t.same(secrets('curl -u test:test https://ci.example.com'), [])
  t.same(secrets('postgres://app:R64cXQ^L%ioDnk@db.example.com/main'), ['app:R64cXQ^L%ioDnk'])
  t.same(secrets('https://user:password@example.com'), [])
})

t.test('finds an Authorization header value whatever the scheme word', async (t) => {
  t.same(secrets(`curl -H "Authorization: Bearer ${HEX32}" https://api.example.com`), [HEX32])
  t.same(secrets('-H "X-Api-Key: 3a16750d-d363-41a4-8ebd-035408f7730f"'), ['3a16750d-d363-41a4-8ebd-035408f7730f'])
})
