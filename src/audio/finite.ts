import { invalidAudio } from '../api/errors';
import type { MonoSource } from './source';

/**
 * Wraps a floating-point source so that a NaN or infinite sample is refused with invalid_audio
 * instead of flowing on: one such sample turns every resampled output within the filter's reach
 * into NaN, and the model's log-mel frames with it. A NaN or infinity in any channel makes the
 * channel average non-finite, so checking the mono frames catches each one. `firstFrame`: where
 * `source` starts in the file (one slice of a file read in slices), for the detail.
 */
export function finiteSource(source: MonoSource, what: string, firstFrame = 0): MonoSource {
  return {
    length: source.length,
    sampleRate: source.sampleRate,
    read(start, dest) {
      source.read(start, dest);
      for (let i = 0; i < dest.length; i++) {
        if (Number.isFinite(dest[i]!)) continue;
        const frame = firstFrame + start + i;
        throw invalidAudio(
          `${what} holds ${Number.isNaN(dest[i]!) ? 'a NaN' : 'an infinite or out-of-range (beyond ±3.4e38)'} floating-point ` +
            `sample at frame ${frame} (${(frame / source.sampleRate).toFixed(3)} s): the file is damaged; float samples ` +
            `must be finite numbers within 32-bit float range`,
        );
      }
    },
  };
}
