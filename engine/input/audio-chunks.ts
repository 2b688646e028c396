/**
 * The request's audio as chunks in order: a whole recording (a Float32Array) is one chunk; a stream's
 * chunks are read as the page decodes them (PcmStream, src/audio/pcm-sink.ts), so the page waits while the
 * engine is busy and neither side holds the recording whole.
 */
export async function* audioChunks(audio: Float32Array | ReadableStream<Float32Array>, signal: AbortSignal): AsyncGenerator<Float32Array> {
  if (audio instanceof Float32Array) {
    yield audio;
    return;
  }
  const reader = audio.getReader();
  // a cancelled job stops waiting for the page at once: the pending read ends, and the check below throws
  const stop = () => void reader.cancel(signal.reason).catch(() => undefined);
  signal.addEventListener('abort', stop, { once: true });
  let finished = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      signal.throwIfAborted();
      if (done) break;
      if (!(value instanceof Float32Array)) throw new TypeError(`the audio stream sent ${Object.prototype.toString.call(value)}, not a Float32Array of 16 kHz samples`);
      if (value.length > 0) yield value;
    }
    finished = true;
  } finally {
    signal.removeEventListener('abort', stop);
    // a job that ends early (an error, a cancel) tells the page to stop decoding
    if (!finished) await reader.cancel(new Error('the transcription ended before the audio did')).catch(() => undefined);
    reader.releaseLock();
  }
}
