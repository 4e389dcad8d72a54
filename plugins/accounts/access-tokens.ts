// Access tokens: EdDSA JWTs valid one hour (spec, Limits 5). Verification pins the algorithm,
// the issuer and the audience and requires exp, iat, sub and org, so `alg: none`, HMAC tokens
// signed with the public key, foreign or tampered tokens and tokens without expiry all fail.
import { errors, jwtVerify, SignJWT } from 'jose'
import type { Clock } from '../../proxy/kit/clock.ts'
import { ALGORITHM, type SigningKey } from './signing-key.ts'

export const ACCESS_TOKEN_SECONDS = 3600

interface AccessClaims {
  /** The user. */
  readonly sub: string
  /** The user's organization when the token was issued. */
  readonly org: string
  /** The refresh-token family (the login) it belongs to; logout and reuse detection revoke it. */
  readonly sid: string
}

export interface AccessTokens {
  issue(claims: AccessClaims): Promise<string>
  /** The claims of a valid token; undefined for anything else. */
  verify(token: string): Promise<AccessClaims | undefined>
}

export function createAccessTokens(key: SigningKey, issuer: string, audience: string, clock: Clock): AccessTokens {
  return {
    issue(claims) {
      const now = Math.floor(clock.now() / 1000)
      return new SignJWT({ org: claims.org, sid: claims.sid })
        .setProtectedHeader({ alg: ALGORITHM, kid: key.kid, typ: 'JWT' })
        .setIssuer(issuer)
        .setAudience(audience)
        .setSubject(claims.sub)
        .setIssuedAt(now)
        .setExpirationTime(now + ACCESS_TOKEN_SECONDS)
        .sign(key.privateKey)
    },
    async verify(token) {
      try {
        const { payload } = await jwtVerify(token, key.publicKey, {
          algorithms: [ALGORITHM],
          issuer,
          audience,
          typ: 'JWT',
          requiredClaims: ['exp', 'iat', 'sub', 'org'],
          currentDate: new Date(clock.now()),
        })
        const { sub, org, sid } = payload
        if (typeof sub !== 'string' || typeof org !== 'string' || typeof sid !== 'string') return undefined
        return { sub, org, sid }
      } catch (err) {
        if (err instanceof errors.JOSEError) return undefined
        throw err
      }
    },
  }
}
