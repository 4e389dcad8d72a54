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

t.test("finds the gateway's own sk_/pk_ keys", async (t) => {
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
  t.same(secrets('Authorization: Token ***********'), [])
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
  t.same(secrets(`os.getenv("auth_token", "5c0e9b1a-77d2-4f3e-a8c1-2b9d4e6f8a01")`), ['5c0e9b1a-77d2-4f3e-a8c1-2b9d4e6f8a01'])
})

t.test('ignores names that describe a secret rather than hold one, and non-random values', async (t) => {
  t.same(secrets(`kms_key_id = "${HEX32}"`), [])
  t.same(secrets('public_key = "Hq3vT8pZk2RmW9sYc4LxN7bJd5FgA1eUo6iKt0wQr"'), [])
  t.same(secrets('token_url = "https://auth.example.com/oauth/token"'), [])
  t.same(secrets('token_length = Ed448.token_length'), [])
  t.same(secrets('password = "production"'), [])
  t.same(secrets('xsrf_token=Zt4pLq8vWn2Rk6Yc0Hs3Jd7Fg1Bm5Xa9+Ue2Io4'), [])
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
  t.same(secrets('-H "X-Api-Key: 9e4b2c71-05fa-4d38-b6e2-71c0a8f3d5e9"'), ['9e4b2c71-05fa-4d38-b6e2-71c0a8f3d5e9'])
})

t.test('finds curl credentials on a command continued over several lines', async (t) => {
  const command = 'curl -X POST https://ci.internal.test/api \\\n  -H "Accept: application/json" \\\n  -u release-bot:Qw7#nd2LpZ9v'
  t.same(secrets(command), ['release-bot:Qw7#nd2LpZ9v'])
  t.same(secrets('curl https://ci.internal.test/api\n\nlater: -u release-bot:Qw7#nd2LpZ9v'), [], 'a line that does not continue ends the command')
  t.same(secrets('Invoke-RestMethod `\n  curl.exe -u ops:Tz5!mq8Rw3 https://x.test'), ['ops:Tz5!mq8Rw3'])
})

t.test('reads quoted and bracketed user:password pairs; the password decides', async (t) => {
  t.same(secrets('curl https://x.test --user "deployer":"Vb82!kqPmz"'), ['"deployer":"Vb82!kqPmz"'])
  t.same(secrets("curl -u 'svc':'Hn4%rt7Kw' https://x.test"), ["'svc':'Hn4%rt7Kw'"])
  t.same(secrets('curl -u {svc_backup:Ht5$wq9Zr2} https://x.test'), ['{svc_backup:Ht5$wq9Zr2}'])
  t.same(secrets('curl -u "${CI_USER}:Lm4@rt8Pq1" https://x.test'), ['"${CI_USER}:Lm4@rt8Pq1"'], 'a variable user, a literal password')
  t.same(secrets('curl -u {user}:{password} https://x.test'), [], 'bracketed names are placeholders')
  t.same(secrets('curl -u <username:password> https://x.test'), [])
  t.same(secrets('curl -u "$CI_USER:$CI_PASS" https://x.test'), [])
})

t.test('finds a password passed next to a user to an authentication call or field', async (t) => {
  t.same(secrets('requests.get(url, auth=("reporting", "N8v!rq2Lpw"))'), ['N8v!rq2Lpw'])
  t.same(secrets("client.login('ops-admin', 'Gz7%pk3Wq')"), ['Gz7%pk3Wq'])
  t.same(secrets('new NetworkCredential("svc-sync", "Pw9#tr4Lk")'), ['Pw9#tr4Lk'])
  t.same(secrets('HTTPBasicAuth("user", "password")'), [], 'stand-ins')
  t.same(secrets('onLogin("user_clicked", "submit_button")'), [], 'labels are not passwords')
  t.same(secrets('auth=(os.environ["USER"], os.environ["PASS"])'), [], 'code, not literals')
})

t.test('understands assignment operators beyond = and :', async (t) => {
  t.same(secrets('db_password ::= "Yt6^fk2Ldq9"'), ['Yt6^fk2Ldq9'])
  t.same(secrets('api_token :::= Hp3xQ8rT2wLk9'), ['Hp3xQ8rT2wLk9'])
  t.same(secrets('DB_PASSWORD := Wq5!zn8Rt2'), ['Wq5!zn8Rt2'])
  t.same(secrets("$secret_key => 'Rw8*mq2Lz5Tb'"), ['Rw8*mq2Lz5Tb'])
  t.same(secrets('if (password == "Kd7&pw2Qx9") {'), ['Kd7&pw2Qx9'], 'a literal compared with a password is one')
  t.same(secrets('if (token == null) return'), [])
  t.same(secrets('client_secret = ["Fh2kLq9vTz7RmW3p"]'), ['Fh2kLq9vTz7RmW3p'], 'a literal in brackets')
})

t.test('short hex tokens in custom auth headers', async (t) => {
  t.same(secrets('X-Custom-Auth: 7f3a9c2e1b'), ['7f3a9c2e1b'])
  t.same(secrets('curl -H "X-Session-Token: 4be1c07d" https://x.test'), ['4be1c07d'])
  t.same(secrets('X-Auth-Token: deadbeef'), [], 'no digit: a word, not a token')
})

t.test('tokens with many underscores are not filler; runs of x, *, # and repeated characters are', async (t) => {
  t.same(secrets('refresh_token = "tok__ab12__cd34__ef56__gh78"'), ['tok__ab12__cd34__ef56__gh78'])
  t.same(secrets('refresh_token = "________________"'), [])
  t.same(secrets('api_key = "sk-XXXXXXXXXXXXXXXXXXXX"'), [])
  t.same(secrets(fake('xox', 'b-', '0000000000-0000000000-', 'Z'.repeat(24))), [])
})

t.test('JWT-like strings: a damaged header still counts when payload and signature are sound', async (t) => {
  const payload = Buffer.from('{"sub":"7","scope":"admin"}').toString('base64url')
  const good = Buffer.from('{"alg":"HS256","typ":"JWT"}').toString('base64url')
  const damaged = `${good.slice(0, 10)}qqq${good.slice(13)}`
  t.same(secrets(`${damaged}.${payload}.${RANDOM36}`), [`${damaged}.${payload}.${RANDOM36}`])
  t.same(secrets(`${damaged}.${payload}`), [], 'without a signature the header must decode')
  const garbage = `eyJ${'Zm9vYmFy'.repeat(3)}qq`
  t.same(secrets(`${garbage}.${payload}.${RANDOM36}`), [], 'a header that does not read as a JSON object')
})

t.test('Slack refresh tokens in numeric-group form', async (t) => {
  const token = fake('xox', 'e-1-', '4829512076-1847291038465-', '9f3c2a7e1b6d4c8a')
  t.same(secrets(`"refresh": "${token}"`), [token])
})

t.test('legacy 40-hex tokens of known services when the service and a credential word precede them', async (t) => {
  const hex = '3e6f8a1b2c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f'
  t.same(secrets(`my github token is ${hex}`), [hex])
  t.same(secrets(`Sourcegraph access token: ${hex}`), [hex])
  t.same(secrets(`see commit ${hex} on github, token rotation`), [], 'a commit id')
  t.same(secrets(`uses: actions/checkout@${hex} # github token step`), [])
  t.same(secrets(`token ${hex}`), [], 'no service named')
})

t.test('names that mean a lookup key, alphabet constants, code and bracketed placeholders are not secrets', async (t) => {
  t.same(secrets('const bucketKey = "uploads/2024/Rk8pQ2xZ.png"'), [])
  t.same(secrets('schemaKey: "v2_Customer9Profile"'), [])
  t.same(secrets('rowKey = "Hn3k9Lq2Zp7v"'), [])
  t.same(secrets('const ALPHABET_KEY = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"'), [])
  t.same(secrets('secret_chars_table = "0123456789abcdefXYZ"'), [])
  t.same(secrets('token = getAuthToken(userId)'), [])
  t.same(secrets('secret = config[environment]'), [])
  t.same(secrets('password = user?.credentials'), [])
  t.same(secrets('password: [PASSWORD]'), [])
  t.same(secrets('api_key = <YOUR_KEY>'), [])
  t.same(secrets('token: (your token)'), [])
})

t.test("vendors' documented example keys are not reported", async (t) => {
  t.same(secrets(fake('AKIA', 'IOSFODNN7', 'EXAMPLE')), [])
  t.same(secrets(`aws_secret_access_key = ${fake('wJalrXUtnFEMI/K7MDENG/', 'bPxRfiCY', 'EXAMPLEKEY')}`), [])
  t.same(secrets(fake('AKIA', 'I44QH8DHB', 'EXAMPLE')), [], 'AWS writes its examples with EXAMPLE in them')
  t.same(secrets(`stripe.api_key = "${fake('sk_', 'test_', '4eC39HqLyjWDarjtT1zdp7dc')}"`), [])
  t.same(secrets(fake('AKIA', 'ZDOC9IS0J8HT9LGM')), [fake('AKIA', 'ZDOC9IS0J8HT9LGM')], 'other keys of the same format are')
})
