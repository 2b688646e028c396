/**
 * Transcriptions in flight in this service worker. One active worker serves a scope, so an in-memory
 * count is the whole picture; a restarted worker has nothing in flight.
 */
export class InFlight {
  private count = 0;

  get current(): number {
    return this.count;
  }

  /** Takes a slot when fewer than `max` are taken; synchronous, so check and take cannot interleave. */
  tryAcquire(max: number): boolean {
    if (this.count >= max) return false;
    this.count++;
    return true;
  }

  release(): void {
    this.count = Math.max(0, this.count - 1);
  }
}
