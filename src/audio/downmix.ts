import type { MonoSource } from './source';

/**
 * Multichannel to mono: the plain average of all channels. Equal weights keep, for example, a call
 * recorded with one party per channel at the same level for both parties.
 */
export function planarSource(channels: readonly Float32Array[], sampleRate: number): MonoSource {
  const first = channels[0];
  if (!first) throw new Error('planarSource: no channels');
  const length = first.length;
  const gain = 1 / channels.length;
  return {
    length,
    sampleRate,
    read(start, dest) {
      dest.set(first.subarray(start, start + dest.length));
      for (let c = 1; c < channels.length; c++) {
        const ch = channels[c]!;
        for (let i = 0; i < dest.length; i++) dest[i]! += ch[start + i]!;
      }
      if (gain !== 1) for (let i = 0; i < dest.length; i++) dest[i]! *= gain;
    },
  };
}
