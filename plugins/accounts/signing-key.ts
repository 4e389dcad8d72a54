// The Ed25519 key that signs access tokens: from config when given, otherwise generated on first
// start and kept in the store as a JWK. Imported once; its RFC 7638 thumbprint is the `kid`.
import { calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK, type CryptoKey, type JWK } from 'jose'
import type { PluginStore } from '../../proxy/store.ts'
import { storedOnce } from '../../proxy/stored-once.ts'
import type { SigningKeyJwk } from './schema.ts'

export const ALGORITHM = 'EdDSA'
const STORED_KEY = 'signing-key'

export interface SigningKey {
  readonly kid: string
  readonly privateKey: CryptoKey
  readonly publicKey: CryptoKey
}

async function newSigningKey(): Promise<SigningKeyJwk> {
  const { privateKey } = await generateKeyPair(ALGORITHM, { crv: 'Ed25519', extractable: true })
  const jwk = await exportJWK(privateKey)
  return { kty: 'OKP', crv: 'Ed25519', x: jwk.x!, d: jwk.d! }
}

export async function loadSigningKey(store: PluginStore, configured: SigningKeyJwk | undefined): Promise<SigningKey> {
  const jwk = configured ?? (await storedOnce(store, STORED_KEY, newSigningKey))
  const publicJwk: JWK = { kty: jwk.kty, crv: jwk.crv, x: jwk.x }
  const [privateKey, publicKey, thumbprint] = await Promise.all([
    importJWK({ ...publicJwk, d: jwk.d }, ALGORITHM),
    importJWK(publicJwk, ALGORITHM),
    calculateJwkThumbprint(publicJwk),
  ])
  return { kid: jwk.kid ?? thumbprint, privateKey: privateKey as CryptoKey, publicKey: publicKey as CryptoKey }
}
