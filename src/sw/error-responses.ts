import { customModelErrorResponse, problemResponse } from '../api/problem';
import type { Family } from './router';

/**
 * Serializes an error in its endpoint family's format: problem+json for transcription, `{code, message}`
 * JSON with an uppercase code for custom models and for /v1/auth/token. A 401 carries WWW-Authenticate.
 */
export function errorResponse(family: Family, err: unknown, headers: Record<string, string> = {}): Response {
  const status = (err as { status?: unknown } | null)?.status;
  const extra = status === 401 ? { 'WWW-Authenticate': 'ApiKey, Bearer', ...headers } : headers;
  return family === 'transcription' ? problemResponse(err, extra) : customModelErrorResponse(err, extra);
}
