import { afterAll, describe, expect, it } from 'vitest';
import { createTranscriber, engineWorkerOf, type Transcriber } from '../../src/transcriber';
import { evalBytes } from './helpers/clips';
import { crashEngine } from './helpers/crash-engine';

// Every call pending on an engine worker settles when that worker ends (a crash, a failed load,
// dispose), and the next call gets a fresh worker. Real whisper-tiny in real Chromium.

const transcriber = createTranscriber({ model: 'whisper-tiny' });
afterAll(() => transcriber.dispose());

/** One call on the 120 s French clip, resolved once the engine is transcribing it, plus the call itself. */
async function longCall(t: Transcriber): Promise<{ pending: Promise<unknown> }> {
  let transcribing!: () => void;
  const started = new Promise<void>((resolve) => (transcribing = resolve));
  const long = await evalBytes('long/wts_radio_short_fr.mp3');
  const pending = t.transcribe(long, { language: 'fr' }, { onProgress: (e) => e.stage === 'transcribe' && transcribing() });
  pending.catch(() => undefined); // asserted below; keeps an early rejection from counting as unhandled
  await started;
  return { pending };
}

/** How each of `calls` settled: 'ok', or the error's status and detail. */
async function outcomes(calls: Promise<unknown>[]) {
  return (await Promise.allSettled(calls)).map((r) =>
    r.status === 'fulfilled' ? 'ok' : { status: (r.reason as { status?: number }).status, detail: String((r.reason as { detail?: string }).detail) },
  );
}

async function stillWorks(t: Transcriber): Promise<void> {
  const out = await t.transcribe(await evalBytes('en/jfk.flac'), { language: 'en' });
  expect(out.text.toLowerCase()).toContain('ask not what your country');
}

describe('engine lifecycle (whisper-tiny, real worker)', () => {
  it('a crash rejects the running call and every queued call with 500, and the next call gets a fresh worker', async () => {
    const { pending } = await longCall(transcriber);
    const jfk = await evalBytes('en/jfk.flac');
    const queued = [1, 2].map(() => transcriber.transcribe(jfk.slice(0), { language: 'en' }));
    const crashed = engineWorkerOf(transcriber);
    crashEngine(transcriber);
    const settled = await outcomes([pending, ...queued]);
    expect(settled).toHaveLength(3);
    for (const s of settled) {
      expect(s).toMatchObject({ status: 500 });
      expect((s as { detail: string }).detail).toMatch(/crashed.*restarts on the next call/);
    }
    await stillWorks(transcriber);
    expect(engineWorkerOf(transcriber)).toBeDefined();
    expect(engineWorkerOf(transcriber)).not.toBe(crashed);
  });

  it('dispose() rejects the running and queued calls at once, and a later call starts again', async () => {
    const { pending } = await longCall(transcriber);
    const queued = transcriber.transcribe(await evalBytes('en/jfk.flac'), { language: 'en' });
    const started = Date.now();
    await transcriber.dispose();
    const settled = await outcomes([pending, queued]);
    expect(Date.now() - started).toBeLessThan(5000); // not after the 120 s clip
    for (const s of settled) {
      expect(s).toMatchObject({ status: 500 });
      expect((s as { detail: string }).detail).toMatch(/disposed/);
    }
    expect(engineWorkerOf(transcriber)).toBeUndefined();
    await stillWorks(transcriber);
  });

  it('a failed model load rejects every waiting call with a detail naming it, and the next call tries again', async () => {
    const broken = createTranscriber({ model: 'whisper-tiny', modelBaseUrl: '/no-models-here/' });
    const silence = () => new Float32Array(16000);
    const settled = await outcomes([broken.load(), broken.transcribe(silence()), broken.transcribe(silence())]);
    for (const s of settled) {
      expect(s).toMatchObject({ status: 500 });
      expect((s as { detail: string }).detail).toMatch(/loading the models failed/);
    }
    expect(engineWorkerOf(broken)).toBeUndefined();
    const again = await outcomes([broken.transcribe(silence())]);
    expect(again[0]).toMatchObject({ status: 500 });
    await broken.dispose();
  });
});

describe('PCM in shared memory', () => {
  it('a Float32Array over a SharedArrayBuffer is copied to the engine, not transferred (which would fail)', async () => {
    expect(crossOriginIsolated).toBe(true);
    const t = createTranscriber({ model: 'whisper-tiny' });
    const shared = new Float32Array(new SharedArrayBuffer(16000 * 2 * 4));
    expect((await t.transcribe(shared, { language: 'en' })).text).toBe('');
    expect(shared.length).toBe(32000); // still readable here
    await t.dispose();
  });
});
