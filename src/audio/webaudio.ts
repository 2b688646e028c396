/**
 * Compressed formats go through the browser's own decoders: `decodeAudioData` of an
 * OfflineAudioContext (main thread only). It takes ownership of (detaches) the bytes.
 */
export async function decodeWithWebAudio(bytes: ArrayBuffer, sampleRate: number): Promise<AudioBuffer> {
  if (typeof OfflineAudioContext === 'undefined') {
    throw new Error('WebAudio is unavailable here (decodeAudio must run on the main thread for compressed formats)');
  }
  const ctx = new OfflineAudioContext(1, 1, sampleRate);
  return ctx.decodeAudioData(bytes);
}

export function channelsOf(buffer: AudioBuffer): Float32Array[] {
  const out: Float32Array[] = [];
  for (let c = 0; c < buffer.numberOfChannels; c++) out.push(buffer.getChannelData(c));
  return out;
}
