/**
 * The e2e app: registers the /v1 service worker and, unless the URL says `?engine=0`, hosts a
 * whisper-tiny engine for it (`?model=whisper-base`: that model instead, for
 * scripts/measure-long-transcription.mjs). Tests drive it through `window.e2e` and plain fetch() calls.
 */
import * as local from '../../../src/register';
import { createCustomModel } from '../../../src/store/custom-models';
import { openStore } from '../../../src/store/db';
import { createTranscriber } from '../../../src/transcriber';
import { crashEngine } from '../../browser/helpers/crash-engine';

const query = new URLSearchParams(location.search);
/** `?maxAudioSeconds=N`: the /v1 service is registered with that limit on the audio's length. */
const maxAudioSeconds = query.has('maxAudioSeconds') ? Number(query.get('maxAudioSeconds')) : undefined;
const model = (query.get('model') ?? 'whisper-tiny') as 'whisper-tiny' | 'whisper-base' | 'whisper-small';
const transcriber = query.get('engine') === '0' ? undefined : createTranscriber({ model });

/** Empties every store (the service worker keeps its connection open, so the database is not deleted). */
async function clearAll(): Promise<void> {
  const db = await openStore();
  const stores = ['models', 'phrases', 'apiKeys', 'meta', 'reservations'] as const;
  const tx = db.transaction(stores, 'readwrite');
  await Promise.all([...stores.map((name) => tx.objectStore(name).clear()), tx.done]);
}

async function countRows(): Promise<{ models: number; phrases: number }> {
  const db = await openStore();
  return { models: await db.count('models'), phrases: await db.count('phrases') };
}

/** The JS API door, for comparing with /v1 byte for byte. */
async function transcribeJs(audioUrl: string, params: string): Promise<string> {
  if (!transcriber) throw new Error('this page hosts no engine');
  const bytes = await (await fetch(audioUrl)).arrayBuffer();
  return JSON.stringify(await transcriber.transcribe(bytes, new URLSearchParams(params)));
}

/** Counts the jobs the service worker hands to this page, so tests can act while one is running. */
const host: local.TranscriptionHost | undefined = transcriber && {
  async transcribe(input, params, options) {
    e2e.jobsStarted++;
    e2e.jobsRunning++;
    try {
      await new Promise((resolve) => setTimeout(resolve, e2e.holdJobsMs));
      return await transcriber.transcribe(input, params, options);
    } catch (err) {
      e2e.lastJobError = String(err);
      throw err;
    } finally {
      e2e.jobsRunning--;
    }
  },
};

const e2e = {
  ...local,
  jobsStarted: 0,
  /** Jobs of the service worker this page's engine has not finished (or failed, or cancelled) yet. */
  jobsRunning: 0,
  lastJobError: '',
  /** Jobs wait this long before the engine gets them, as behind another job in the queue. */
  holdJobsMs: 0,
  /** Makes the engine's worker die as a crash would (an uncaught error inside it). */
  crashEngine: () => transcriber && crashEngine(transcriber),
  clearAll,
  countRows,
  createCustomModel,
  transcribeJs,
  controlled: false,
  ready: local.registerLocalApi(host ? { transcriber: host, maxAudioSeconds } : {}).then((api) => {
    e2e.controlled = api.controlled;
    document.getElementById('status')!.textContent = api.controlled ? 'ready' : 'not controlled';
    return api.controlled;
  }),
};

declare global {
  interface Window {
    e2e: typeof e2e;
  }
}
window.e2e = e2e;
