import { base64url, fromBase64url } from '../store/encoding';
import { getSigningKey } from '../store/signing-key';

/**
 * Access tokens: `<payload>.<signature>`, both base64url; the payload is JSON
 * `{kid, iat, exp, jti}` (seconds) and the signature is HMAC-SHA-256 over the payload text with the
 * origin's signing key. Without the key (non-extractable, in IndexedDB) no one can mint or alter one.
 */
export interface TokenClaims {
  /** Id of the API key the token was exchanged for. */
  kid: string;
  iat: number;
  exp: number;
  jti: string;
}

export type TokenCheck =
  | { ok: true; claims: TokenClaims }
  | { ok: false; reason: 'malformed' | 'bad-signature' | 'expired' };

const encoder = new TextEncoder();

export async function issueToken(keyId: string, ttlSeconds: number, now = Date.now()): Promise<string> {
  const iat = Math.floor(now / 1000);
  const claims: TokenClaims = { kid: keyId, iat, exp: iat + ttlSeconds, jti: crypto.randomUUID() };
  const payload = base64url(encoder.encode(JSON.stringify(claims)));
  const signature = await crypto.subtle.sign('HMAC', await getSigningKey(), encoder.encode(payload));
  return `${payload}.${base64url(new Uint8Array(signature))}`;
}

function isClaims(value: unknown): value is TokenClaims {
  const v = value as Record<string, unknown> | null;
  return (
    typeof v === 'object' &&
    v !== null &&
    typeof v.kid === 'string' &&
    typeof v.jti === 'string' &&
    Number.isSafeInteger(v.iat) &&
    Number.isSafeInteger(v.exp)
  );
}

export async function verifyToken(token: string, now = Date.now()): Promise<TokenCheck> {
  const parts = token.split('.');
  if (parts.length !== 2) return { ok: false, reason: 'malformed' };
  const [payload = '', sig = ''] = parts;
  const signature = fromBase64url(sig);
  if (payload === '' || !signature || signature.length !== 32 || !fromBase64url(payload)) {
    return { ok: false, reason: 'malformed' };
  }
  // crypto.subtle.verify compares in constant time.
  const valid = await crypto.subtle.verify('HMAC', await getSigningKey(), signature, encoder.encode(payload));
  if (!valid) return { ok: false, reason: 'bad-signature' };
  let claims: unknown;
  try {
    claims = JSON.parse(new TextDecoder().decode(fromBase64url(payload) ?? new Uint8Array()));
  } catch {
    return { ok: false, reason: 'malformed' };
  }
  if (!isClaims(claims)) return { ok: false, reason: 'malformed' };
  if (Math.floor(now / 1000) >= claims.exp) return { ok: false, reason: 'expired' };
  return { ok: true, claims };
}
