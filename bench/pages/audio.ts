/** Fetching and decoding clips in a bench page (main thread: WebAudio exists only here). */

export async function fetchBytes(url: string): Promise<ArrayBuffer> {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`GET ${url}: ${response.status}`);
  return response.arrayBuffer();
}

/** 16 kHz mono PCM, channels averaged; the browser's decoder resamples. */
export async function decodeTo16kMono(bytes: ArrayBuffer): Promise<Float32Array> {
  const context = new OfflineAudioContext(1, 1, 16_000);
  const buffer = await context.decodeAudioData(bytes.slice(0));
  const mono = new Float32Array(buffer.length);
  for (let c = 0; c < buffer.numberOfChannels; c++) {
    const channel = buffer.getChannelData(c);
    for (let i = 0; i < mono.length; i++) mono[i]! += channel[i]! / buffer.numberOfChannels;
  }
  return mono;
}

export const pcmDurationMs = (pcm: Float32Array): number => Math.round((pcm.length / 16_000) * 1000);
