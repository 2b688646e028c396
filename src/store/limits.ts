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
  /**
   * How long the engine may go without reporting progress on a job it has started, or the page hosting it
   * without answering while the job waits to start, before the job is stopped (504, or an errored body
   * once streaming). Waiting in the queue of a page that answers does not count. Default 5 minutes.
   */
  engineTimeoutMs: number;
  /**
   * How long a /v1 transcription holds its response for the engine's answer; a job still running then is
   * answered 200 with a body that streams the transcript when it is done (src/sw/late-answer.ts), since
   * Chromium stops a service worker whose fetch event is still unanswered after 5 minutes. At most
   * MAX_STREAM_AFTER_MS. Default 60 s: errors decided in the first minute keep their own status.
   */
  streamAfterMs: number;
}

/** Leaves a minute under Chromium's 5-minute cap on one fetch event (body reading counts against it). */
export const MAX_STREAM_AFTER_MS = 4 * 60 * 1000;

export const DEFAULT_LIMITS: Readonly<Limits> = Object.freeze({
  maxBodyBytes: 100 * 1024 * 1024,
  creditSeconds: null,
  maxConcurrent: 2,
  tokenTtlSeconds: 600,
  engineTimeoutMs: 5 * 60 * 1000,
  streamAfterMs: 60 * 1000,
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
  positiveInt('streamAfterMs', patch.streamAfterMs);
  if (patch.streamAfterMs !== undefined && patch.streamAfterMs > MAX_STREAM_AFTER_MS) {
    throw new RangeError(`streamAfterMs must be at most ${MAX_STREAM_AFTER_MS} (Chromium stops a fetch event after 5 minutes)`);
  }
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
