// The Ed25519 key that signs access tokens: from config when given, otherwise generated on first
// start and kept in the store as a JWK, one for every gateway that shares the store. Imported
// once; its RFC 7638 thumbprint is the `kid`.
import { calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK, type CryptoKey, type JWK } from 'jose'
import type { SigningKeyJwk } from './schema.ts'

export const ALGORITHM = 'EdDSA'
export const SIGNING_KEY_ENTRY = 'signing-key'

export interface SigningKey {
  readonly kid: string
  readonly privateKey: CryptoKey
  readonly publicKey: CryptoKey
}

export async function newSigningKey(): Promise<SigningKeyJwk> {
  const { privateKey } = await generateKeyPair(ALGORITHM, { crv: 'Ed25519', extractable: true })
  const jwk = await exportJWK(privateKey)
  return { kty: 'OKP', crv: 'Ed25519', x: jwk.x!, d: jwk.d! }
}

export async function loadSigningKey(jwk: SigningKeyJwk): Promise<SigningKey> {
  const publicJwk: JWK = { kty: jwk.kty, crv: jwk.crv, x: jwk.x }
  const [privateKey, publicKey, thumbprint] = await Promise.all([
    importJWK({ ...publicJwk, d: jwk.d }, ALGORITHM),
    importJWK(publicJwk, ALGORITHM),
    calculateJwkThumbprint(publicJwk),
  ])
  return { kid: jwk.kid ?? thumbprint, privateKey: privateKey as CryptoKey, publicKey: publicKey as CryptoKey }
}
