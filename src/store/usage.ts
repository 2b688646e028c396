import { openStore } from './db';

/** Audio seconds transcribed through /v1 so far, counted against Limits.creditSeconds. */
export interface Usage {
  usedSeconds: number;
}

const META_KEY = 'usage';

export async function getUsage(): Promise<Usage> {
  const db = await openStore();
  return ((await db.get('meta', META_KEY)) as Usage | undefined) ?? { usedSeconds: 0 };
}

/** Adds to the usage in one read-modify-write transaction, so concurrent debits never lose one. */
export async function debitSeconds(seconds: number): Promise<Usage> {
  if (!(Number.isFinite(seconds) && seconds >= 0)) throw new RangeError('seconds must be a non-negative number');
  const db = await openStore();
  const tx = db.transaction('meta', 'readwrite');
  const current = ((await tx.store.get(META_KEY)) as Usage | undefined) ?? { usedSeconds: 0 };
  const next = { usedSeconds: current.usedSeconds + seconds };
  await tx.store.put(next, META_KEY);
  await tx.done;
  return next;
}

export async function resetUsage(): Promise<void> {
  const db = await openStore();
  await db.delete('meta', META_KEY);
}
