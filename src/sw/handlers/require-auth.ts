import { ApiError } from '../../api/errors';
import { authenticate, type AuthOptions } from '../../auth/authenticate';
import type { Family } from '../router';

/** Authenticates the request or throws 401 with the endpoint family's code. Returns the key id. */
export async function requireAuth(request: Request, family: Family, options: AuthOptions = {}): Promise<string> {
  const result = await authenticate(request.headers.get('authorization'), options);
  if (result.ok) return result.keyId;
  throw new ApiError(401, family === 'transcription' ? 'unauthorized' : 'UNAUTHORIZED', result.detail);
}
