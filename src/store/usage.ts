import { internalError } from '../api/errors';
import { openStore } from './db';
import { committed, storing } from './storage-errors';

/** Audio seconds transcribed through /v1 so far, counted against Limits.creditSeconds. */
export interface Usage {
  usedSeconds: number;
}

const META_KEY = 'usage';

/** The stored usage record, checked: a damaged one is an error naming it, never NaN arithmetic. */
function readUsage(stored: unknown): Usage {
  if (stored === undefined) return { usedSeconds: 0 };
  const used = (stored as Partial<Usage> | null)?.usedSeconds;
  if (typeof used !== 'number' || !Number.isFinite(used) || used < 0) {
    throw internalError(`the stored credit usage is unreadable (${String(JSON.stringify(stored)).slice(0, 80)}); resetUsage() starts it again`);
  }
  return { usedSeconds: used };
}

export async function getUsage(): Promise<Usage> {
  const db = await openStore();
  return readUsage(await db.get('meta', META_KEY));
}

export interface CreditRequest {
  /** This request's reservation id. */
  id: string;
  /** The service-worker instance reserving; reservations of other instances are stale and dropped. */
  owner: string;
  /** Audio seconds the request holds (see src/sw/credit-estimate.ts). */
  seconds: number;
  /** Whether `seconds` is known (it must fit in full) or a guess (any credit left admits the request). */
  firm: boolean;
  /** Limits.creditSeconds. */
  credit: number;
}

export type CreditHold = { ok: true; heldSeconds: number } | { ok: false; usedSeconds: number; reservedSeconds: number };

/**
 * Reserves credit for a transcription before any work, in one transaction with the usage and the other
 * holds, so requests running at once each see what the others hold and together cannot overdraw it.
 * A request of known length is admitted when it fits in what is left; one of guessed length when
 * anything is left, holding at most that. settleCredit or releaseCredit ends the hold.
 */
export function reserveCredit(request: CreditRequest): Promise<CreditHold> {
  return storing('reserving audio credit', async () => {
    const db = await openStore();
    const tx = db.transaction(['meta', 'reservations'], 'readwrite');
    const { usedSeconds } = readUsage(await tx.objectStore('meta').get(META_KEY));
    const holds = tx.objectStore('reservations');
    const writes: Promise<unknown>[] = [];
    let reservedSeconds = 0;
    for (const hold of await holds.getAll()) {
      // A service worker that stopped took its requests with it: their holds are stale.
      if (hold.owner !== request.owner) writes.push(holds.delete(hold.id));
      else reservedSeconds += hold.seconds;
    }
    const left = request.credit - usedSeconds - reservedSeconds;
    const fits = request.firm ? request.seconds <= left : left > 0;
    const heldSeconds = request.firm ? request.seconds : Math.min(request.seconds, left);
    if (fits) writes.push(holds.put({ id: request.id, seconds: heldSeconds, owner: request.owner, createdAt: Date.now() }));
    await committed(tx, writes);
    return fits ? { ok: true, heldSeconds } : { ok: false, usedSeconds, reservedSeconds };
  });
}

/**
 * Ends a hold and debits what the request really used, in one transaction (a missing hold, dropped as
 * stale, still debits). Returns the usage after it.
 */
export function settleCredit(id: string, seconds: number): Promise<Usage> {
  if (!(Number.isFinite(seconds) && seconds >= 0)) throw new RangeError('seconds must be a non-negative number');
  return storing('debiting audio credit', async () => {
    const db = await openStore();
    const tx = db.transaction(['meta', 'reservations'], 'readwrite');
    const current = readUsage(await tx.objectStore('meta').get(META_KEY));
    const next = { usedSeconds: current.usedSeconds + seconds };
    await committed(tx, [tx.objectStore('reservations').delete(id), tx.objectStore('meta').put(next, META_KEY)]);
    return next;
  });
}

/** Ends a hold without a debit (the request failed or was refused). */
export function releaseCredit(id: string): Promise<void> {
  return storing('releasing audio credit', async () => {
    const db = await openStore();
    await db.delete('reservations', id);
  });
}

export async function resetUsage(): Promise<void> {
  const db = await openStore();
  await db.delete('meta', META_KEY);
}
