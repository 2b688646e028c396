// Uses only what README "Use it in your app" documents. The test drives it through window.app.
import { clearModelCache, createTranscriber, modelCacheInfo, provisionApiKey, registerLocalApi } from 'localscribe';

const transcriber = createTranscriber({ model: 'whisper-tiny' });

window.app = {
  crossOriginIsolated: () => crossOriginIsolated,

  /** The JS API: fetches the clip and returns the transcript. */
  async transcribe(url) {
    const file = await (await fetch(url)).blob();
    return transcriber.transcribe(file, { language: 'en', include_words: true });
  },

  /** A new transcriber (a new worker that loads the models again), e.g. with the network down. */
  async transcribeWithNewTranscriber(url) {
    const fresh = createTranscriber({ model: 'whisper-tiny' });
    try {
      const file = await (await fetch(url)).blob();
      return await fresh.transcribe(file, { language: 'en' });
    } finally {
      await fresh.dispose();
    }
  },

  /** The /v1 service through the packaged service worker (served at /sw.js). */
  async transcribeV1(url) {
    await registerLocalApi({ transcriber });
    const { key } = await provisionApiKey({ label: 'consumer app' });
    const body = await (await fetch(url)).arrayBuffer();
    const res = await fetch('/v1/speech-to-text/prerecorded?language=en', {
      method: 'POST',
      headers: { Authorization: `ApiKey ${key}`, 'Content-Type': 'application/octet-stream' },
      body,
    });
    return { status: res.status, body: await res.json() };
  },

  modelCacheInfo,
  clearModelCache,
};
