import { ApiError, internalError } from '../api/errors';

/**
 * Storage failures as ApiErrors whose detail names the cause. The spec has one status for a server-side
 * failure, 500 (`internal_server_error`, `INTERNAL_ERROR` on the custom-model endpoints), so a full quota
 * is a 500 too, told apart by its detail rather than by a status (such as 507) that clients of the hosted
 * API never see.
 */
export const storageUnavailable = (cause: string) =>
  internalError(`IndexedDB, where the /v1 service keeps its keys, custom models and credit, is unavailable: ${cause}`);

const nameOf = (err: unknown) => (err instanceof DOMException || err instanceof Error ? err.name : '');

/** An ApiError for what went wrong while `action`, or `err` itself when it is not a storage failure. */
export function describeStorageError(err: unknown, action: string): unknown {
  if (err instanceof ApiError) return err;
  const name = nameOf(err);
  if (name === 'QuotaExceededError') {
    return internalError(
      `the browser's storage quota for this origin is full (QuotaExceededError) while ${action}; nothing was written. ` +
        'Free space (delete custom models, or clear other data of this site) and retry',
    );
  }
  if (name === 'InvalidStateError' || name === 'UnknownError' || name === 'SecurityError') {
    return storageUnavailable(`${name} while ${action}: ${(err as Error).message}`);
  }
  return err;
}

/** Runs `work`, turning a storage failure into an ApiError that names it (see describeStorageError). */
export async function storing<T>(action: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    throw describeStorageError(err, action);
  }
}

/**
 * Waits for `writes` and the transaction's commit. When the transaction aborts (a full quota, say) its
 * own error is the cause; the requests' errors are only AbortErrors, so that one is thrown, described
 * for `action` when given.
 */
export async function committed(
  tx: { done: Promise<void>; error: DOMException | null },
  writes: Promise<unknown>[] = [],
  action?: string,
): Promise<void> {
  try {
    await Promise.all([...writes, tx.done]);
  } catch (err) {
    const cause = tx.error ?? err;
    throw action ? describeStorageError(cause, action) : cause;
  }
}
