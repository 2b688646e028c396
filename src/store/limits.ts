import { openStore } from './db';
import { committed } from './storage-errors';

/**
 * Limits the /v1 service enforces, persisted in IndexedDB so the service worker sees what the app set.
 * Defaults (DEFAULT_LIMITS) apply to every field the app never set.
 */
export interface Limits {
  /** Largest transcription request body in bytes; larger gives 413. Default 100 MiB. */
  maxBodyBytes: number;
  /** Audio seconds the origin may transcribe in total; null means unlimited (default). Exhausted gives 402. */
  creditSeconds: number | null;
  /** Transcriptions in flight at once; one more gives 429. Default 2. */
  maxConcurrent: number;
  /** Lifetime of tokens from /v1/auth/token, in seconds. Default 600. */
  tokenTtlSeconds: number;
  /** How long the service worker waits for the engine page's answer before 504. Default 5 minutes. */
  engineTimeoutMs: number;
}

export const DEFAULT_LIMITS: Readonly<Limits> = Object.freeze({
  maxBodyBytes: 100 * 1024 * 1024,
  creditSeconds: null,
  maxConcurrent: 2,
  tokenTtlSeconds: 600,
  engineTimeoutMs: 5 * 60 * 1000,
});

const META_KEY = 'limits';

export async function getLimits(): Promise<Limits> {
  const db = await openStore();
  const stored = (await db.get('meta', META_KEY)) as Partial<Limits> | undefined;
  return { ...DEFAULT_LIMITS, ...stored };
}

function check(patch: Partial<Limits>): void {
  const positiveInt = (name: keyof Limits, v: unknown) => {
    if (v !== undefined && !(Number.isSafeInteger(v) && (v as number) >= 1)) {
      throw new RangeError(`${name} must be a positive integer`);
    }
  };
  positiveInt('maxBodyBytes', patch.maxBodyBytes);
  positiveInt('maxConcurrent', patch.maxConcurrent);
  positiveInt('tokenTtlSeconds', patch.tokenTtlSeconds);
  positiveInt('engineTimeoutMs', patch.engineTimeoutMs);
  const credit = patch.creditSeconds;
  if (credit !== undefined && credit !== null && !(Number.isFinite(credit) && credit >= 0)) {
    throw new RangeError('creditSeconds must be a non-negative number or null');
  }
}

/** Changes some limits; a field set to undefined keeps its value. Returns the limits now in force. */
export async function setLimits(patch: Partial<Limits>): Promise<Limits> {
  check(patch);
  const defined = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined));
  const db = await openStore();
  const tx = db.transaction('meta', 'readwrite');
  const stored = (await tx.store.get(META_KEY)) as Partial<Limits> | undefined;
  const next = { ...stored, ...defined };
  await committed(tx, [tx.store.put(next, META_KEY)], 'saving the limits');
  return { ...DEFAULT_LIMITS, ...next };
}

/** Back to DEFAULT_LIMITS. */
export async function resetLimits(): Promise<void> {
  const db = await openStore();
  await db.delete('meta', META_KEY);
}
