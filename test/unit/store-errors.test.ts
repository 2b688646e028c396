import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/api/errors';
import { openDatabase } from '../../src/store/db';
import { describeStorageError } from '../../src/store/storage-errors';

// The mapping every storage failure goes through (a real full quota: test/e2e/storage.spec.ts), and a
// context without IndexedDB at all (Node).
describe('storage failures name their cause', () => {
  it('a full quota is a 500 whose detail names the quota and says nothing was written', () => {
    const err = describeStorageError(new DOMException('quota', 'QuotaExceededError'), 'storing the custom model') as ApiError;
    expect(err).toBeInstanceOf(ApiError);
    expect(err.status).toBe(500);
    expect(err.code).toBe('internal_server_error');
    expect(err.detail).toMatch(/storage quota for this origin is full \(QuotaExceededError\) while storing the custom model; nothing was written/);
  });

  it('storage forbidden in this context is a 500 naming IndexedDB and the browser error', () => {
    const err = describeStorageError(new DOMException('access denied', 'SecurityError'), 'opening the database') as ApiError;
    expect(err.detail).toMatch(/IndexedDB.*is unavailable: SecurityError while opening the database: access denied/);
  });

  it('other errors pass through unchanged', () => {
    const other = new RangeError('x');
    expect(describeStorageError(other, 'anything')).toBe(other);
  });

  it('a context without indexedDB (Node has none) fails to open with an error saying so', async () => {
    expect(typeof indexedDB).toBe('undefined');
    await expect(openDatabase('localscribe')).rejects.toMatchObject({ status: 500, detail: expect.stringMatching(/unavailable: this context has no indexedDB/) });
  });
});
