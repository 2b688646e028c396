import { issueToken } from '../../auth/tokens';
import { getLimits } from '../../store/limits';
import { jsonResponse } from '../responses';
import type { Handler } from './context';
import { requireAuth } from './require-auth';

/** POST /v1/auth/token with `ApiKey <key>` → a Bearer token bound to that key. Errors use uppercase codes. */
export const issueAccessToken: Handler = async (ctx) => {
  const keyId = await requireAuth(ctx.request, 'auth', { apiKeyOnly: true });
  const { tokenTtlSeconds } = await getLimits();
  const accessToken = await issueToken(keyId, tokenTtlSeconds);
  return jsonResponse(200, { access_token: accessToken, token_type: 'Bearer', expires_in: tokenTtlSeconds });
};
