import { payloadTooLarge } from '../api/errors';

/**
 * Default longest audio accepted, in seconds: 4 hours. Long meetings, lectures, interviews and
 * podcasts (the long files people bring) fit with room to spare, while the memory stays within
 * what a browser tab holds: the decoded 16 kHz signal alone is 230 MB per hour (0.92 GB at the
 * limit, 64 000 bytes per second: src/audio/README.md "Memory"), and whisper-base needs about
 * 40 minutes for it at the RTF of 0.17 measured on a 2-core machine (README, model table).
 * Beyond this a tab runs out of memory (a crash, not an error), so refusing up front is kinder.
 */
export const DEFAULT_MAX_AUDIO_SECONDS = 4 * 3600;

/** Checks a configured limit: a positive number of seconds (Infinity turns the limit off). */
export function checkMaxAudioSeconds(value: unknown, name = 'maxAudioSeconds'): number {
  if (typeof value !== 'number' || Number.isNaN(value) || value <= 0) {
    throw new RangeError(`${name} must be a positive number of seconds (or Infinity for no limit), got ${String(value)}`);
  }
  return value;
}

function clock(seconds: number): string {
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = Math.floor(seconds % 60);
  return h > 0 ? `${h} h ${String(m).padStart(2, '0')} min` : m > 0 ? `${m} min ${String(s).padStart(2, '0')} s` : `${s} s`;
}

/**
 * Throws 413 (the spec's status for a body over the size limit; it carries no code) when `seconds`
 * of audio exceed `max`. `source` says where the length was read, for the detail.
 */
export function checkAudioLength(seconds: number, max: number, source = 'the audio lasts'): void {
  if (!(seconds > max)) return;
  throw payloadTooLarge(
    `${source} ${seconds.toFixed(1)} s (${clock(seconds)}), longer than the limit of ${max} s ` +
      `(${clock(max)}, maxAudioSeconds); split the recording or raise the limit`,
  );
}
