// Access tokens that were not issued by this gateway, or no longer hold, get 401 Unauthorized.
import t from 'tap'
import { createHmac } from 'node:crypto'
import { base64url, decodeJwt, decodeProtectedHeader, exportJWK, generateKeyPair, importJWK, SignJWT, type JWTPayload } from 'jose'
import { call } from '../../helpers/http.ts'
import { startAccounts, startMailbox, verifiedOwner } from './helpers.ts'
import { manualClock } from '../../helpers/manual-clock.ts'

const encode = (value: unknown) => base64url.encode(JSON.stringify(value))

t.test('forged, foreign, expired and tampered access tokens are refused', async (t) => {
  const { privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519', extractable: true })
  const jwk = await exportJWK(privateKey)
  const signingKey = { kty: 'OKP', crv: 'Ed25519', x: jwk.x!, d: jwk.d!, kid: 'test-key' }
  const mailbox = await startMailbox(t)
  const clock = manualClock()
  const gw = await startAccounts(t, { clock, mailbox, overrides: { plugins: { accounts: { signingKey } } } })
  const owner = await verifiedOwner(gw, mailbox, 'eve.target@example.com')
  const claims = decodeJwt(owner.accessToken)
  const key = await importJWK({ ...signingKey, alg: 'EdDSA' }, 'EdDSA')
  const now = Math.floor(clock.now() / 1000)

  const statusWith = async (token: string) => (await call(`${gw.url}/api/orgs/me`, { headers: { authorization: `Bearer ${token}` } })).status
  const signed = (payload: JWTPayload, header: Record<string, unknown> = {}) =>
    new SignJWT(payload).setProtectedHeader({ alg: 'EdDSA', typ: 'JWT', kid: 'test-key', ...header }).sign(key)
  const valid: JWTPayload = { iss: 'tollgate', aud: 'tollgate', sub: claims.sub!, org: claims.org, sid: claims.sid, iat: now, exp: now + 3600 }

  t.equal(await statusWith(owner.accessToken), 200, 'the issued token works')
  t.equal(decodeProtectedHeader(owner.accessToken).kid, 'test-key', 'the configured key signs')
  t.equal(
    await statusWith(await signed(valid)),
    200,
    'a token made with the configured key and the right claims works, so the refusals below are for the attack alone',
  )

  t.equal(await statusWith(`${encode({ alg: 'none', typ: 'JWT' })}.${encode(valid)}.`), 401, 'alg none')

  const hmacInput = `${encode({ alg: 'HS256', typ: 'JWT' })}.${encode(valid)}`
  for (const secret of [Buffer.from(signingKey.x, 'base64url'), Buffer.from(JSON.stringify({ kty: 'OKP', crv: 'Ed25519', x: signingKey.x }))]) {
    const forged = `${hmacInput}.${createHmac('sha256', secret).update(hmacInput).digest('base64url')}`
    t.equal(await statusWith(forged), 401, 'HS256 signed with the public key')
  }

  t.equal(await statusWith(await signed({ ...valid, aud: 'someone-else' })), 401, 'wrong audience')
  t.equal(await statusWith(await signed({ ...valid, iss: 'https://issuer.example' })), 401, 'wrong issuer')
  const { exp: _exp, ...noExpiry } = valid
  t.equal(await statusWith(await signed(noExpiry)), 401, 'missing exp')
  const { org: _org, ...noOrg } = valid
  t.equal(await statusWith(await signed(noOrg)), 401, 'missing org')

  const [header, , signature] = owner.accessToken.split('.')
  t.equal(await statusWith(`${header}.${encode({ ...claims, exp: now + 86_400 })}.${signature}`), 401, 'tampered payload')

  const stranger = await generateKeyPair('EdDSA', { crv: 'Ed25519' })
  t.equal(
    await statusWith(await new SignJWT(valid).setProtectedHeader({ alg: 'EdDSA', typ: 'JWT', kid: 'test-key' }).sign(stranger.privateKey)),
    401,
    'signed by another key',
  )
  t.equal(await statusWith('not-a-token'), 401, 'garbage')

  clock.advance(3600_000)
  t.equal(await statusWith(owner.accessToken), 401, 'expired once its hour is over')
})
