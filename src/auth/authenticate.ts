import { apiKeyExists, findApiKey } from '../store/api-keys';
import { verifyToken } from './tokens';

/**
 * Checks an Authorization header: `ApiKey <key>` or `Bearer <token>` (scheme names are case-insensitive,
 * as in HTTP). Returns who is calling, or the reason for a 401 in words for the response's detail.
 * The caller maps a failure to its endpoint family's code (UNAUTHORIZED or unauthorized).
 */
export type AuthResult =
  | { ok: true; keyId: string; scheme: 'ApiKey' | 'Bearer' }
  | { ok: false; detail: string };

export interface AuthOptions {
  /** The token endpoint takes only API keys: a token cannot mint tokens. */
  apiKeyOnly?: boolean;
}

const fail = (detail: string): AuthResult => ({ ok: false, detail });

export async function authenticate(header: string | null, options: AuthOptions = {}): Promise<AuthResult> {
  if (header === null || header.trim() === '') {
    return fail('missing Authorization header; send "ApiKey <key>" or "Bearer <token>"');
  }
  const match = /^\s*(\S+)\s+(\S+)\s*$/.exec(header);
  if (!match) return fail('malformed Authorization header; expected "ApiKey <key>" or "Bearer <token>"');
  const scheme = (match[1] ?? '').toLowerCase();
  const credential = match[2] ?? '';

  if (scheme === 'apikey') {
    const record = await findApiKey(credential);
    if (!record) return fail('unknown API key');
    return { ok: true, keyId: record.id, scheme: 'ApiKey' };
  }
  if (scheme === 'bearer') {
    if (options.apiKeyOnly) return fail('this endpoint takes "ApiKey <key>" only, not a Bearer token');
    const check = await verifyToken(credential);
    if (!check.ok) {
      if (check.reason === 'expired') return fail('access token expired; request a new one from /v1/auth/token');
      if (check.reason === 'bad-signature') return fail('access token signature is invalid (tampered or not issued here)');
      return fail('malformed access token');
    }
    if (!(await apiKeyExists(check.claims.kid))) {
      return fail('access token was issued for an API key that has been revoked');
    }
    return { ok: true, keyId: check.claims.kid, scheme: 'Bearer' };
  }
  return fail(`unsupported authorization scheme "${match[1] ?? ''}"; use ApiKey or Bearer`);
}
