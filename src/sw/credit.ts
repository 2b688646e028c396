import { sessionRejected } from '../api/errors';
import type { TranscriptionParams } from '../api/params';
import { releaseCredit, reserveCredit, settleCredit } from '../store/usage';
import { audioLengthOf } from './credit-estimate';

/** This service-worker instance: holds of another instance are stale (src/store/usage.ts). */
const INSTANCE = crypto.randomUUID();

/**
 * One /v1 transcription's credit: held before the engine runs (402 when it does not fit), then settled
 * with the real length, or released when the request fails.
 */
export class CreditHold {
  private readonly id = crypto.randomUUID();

  /** Reserves the body's audio length when a credit is set; throws 402 session_rejected when it does not fit. */
  async reserve(body: ArrayBuffer, params: TranscriptionParams, credit: number | null): Promise<void> {
    if (credit === null) return;
    const length = audioLengthOf(body, params);
    const hold = await reserveCredit({ id: this.id, owner: INSTANCE, seconds: length.seconds, firm: length.firm, credit });
    if (hold.ok) return;
    const left = Math.max(0, credit - hold.usedSeconds - hold.reservedSeconds);
    throw sessionRejected(
      `credit exhausted: this request's audio lasts ${length.firm ? '' : 'up to '}${length.seconds.toFixed(1)} s, ` +
        `and ${left.toFixed(1)} of ${credit} audio seconds are left (${hold.usedSeconds.toFixed(1)} used, ` +
        `${hold.reservedSeconds.toFixed(1)} held by requests in flight)`,
      402,
    );
  }

  /**
   * Debits what the request used. A failed debit is logged, not thrown: the transcript is finished and
   * is returned all the same.
   */
  async settle(audioSeconds: number): Promise<void> {
    try {
      await settleCredit(this.id, audioSeconds);
    } catch (err) {
      console.warn(`localscribe: the transcript is returned, but ${audioSeconds.toFixed(1)} s could not be debited from the credit`, err);
    }
  }

  async release(): Promise<void> {
    await releaseCredit(this.id).catch(() => undefined);
  }
}
