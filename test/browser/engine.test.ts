import { afterAll, describe, expect, it } from 'vitest';
import { createTranscriber } from '../../src/index';
import { engineWorkerOf } from '../../src/transcriber';
import { errorRateOf, evalBytes, manifest } from './helpers/clips';
import { crashEngine } from './helpers/crash-engine';

const transcriber = createTranscriber({ model: 'whisper-tiny' });
afterAll(() => transcriber.dispose());

describe('engine with whisper-tiny (real model, real Chromium)', () => {
  it('loads with progress and transcribes real English clips within an error bound', async () => {
    const events: number[] = [];
    const progressing = createTranscriber({ model: 'whisper-tiny', onProgress: (e) => e.stage === 'load' && events.push(e.loaded) });
    const info = await progressing.load();
    await progressing.dispose();
    expect(info.languages).toContain('en');
    expect(events.length).toBeGreaterThan(3);
    expect(events[events.length - 1]).toBeGreaterThan(40_000_000);

    const clips = (await manifest('en')).filter((c) => ['jfk.flac', 'LJ002-0020.wav', '1089-134686-0000.flac'].includes(c.file));
    expect(clips).toHaveLength(3);
    let edits = 0;
    for (const clip of clips) {
      const out = await transcriber.transcribe(await evalBytes(`en/${clip.file}`), { language: 'en' });
      const wer = await errorRateOf(clip.text, out.text, 'en');
      console.log(`${clip.file}: WER ${(wer * 100).toFixed(1)}% «${out.text}»`);
      edits += wer;
    }
    expect(edits / clips.length).toBeLessThan(0.2);
  });

  it('transcribes a video container and raw 8 kHz mu-law end to end, and rejects undecodable audio', async () => {
    const fixture = async (name: string) => (await fetch(`/__fixtures/audio/${name}`)).arrayBuffer();
    const mov = await transcriber.transcribe(await fixture('mov-video-aac.mov'), { encoding: 'mov', language: 'en' });
    expect(mov.text.toLowerCase()).toContain('ask not what your country');
    const mulaw = await transcriber.transcribe(await fixture('raw-mulaw-8k.ul'), { encoding: 'mulaw', sample_rate: 8000, language: 'en' });
    // telephone-band audio: tiny's greedy pick between near-equal words ("your" / "you are") can flip
    // with thread timing, so the bound is on the error rate, not on one phrase
    const jfk = (await manifest('en')).find((c) => c.file === 'jfk.flac')!;
    expect(await errorRateOf(jfk.text, mulaw.text, 'en')).toBeLessThan(0.2);
    await expect(transcriber.transcribe(await fixture('bad-random.bin'))).rejects.toMatchObject({ status: 400, code: 'invalid_audio' });
  });

  it('answers a decoding error found while the engine already transcribes (the audio streams in) with its own error, on the same engine', async () => {
    const fixture = async (name: string) => new Uint8Array(await (await fetch(`/__fixtures/audio/${name}`)).arrayBuffer());
    await transcriber.load();
    const worker = engineWorkerOf(transcriber);
    // cut in half: the FLAC header's length shows the truncation only once the whole file is decoded
    const flac = await fixture('flac-stereo.flac');
    await expect(transcriber.transcribe(flac.slice(0, flac.length >> 1).buffer, { language: 'en' })).rejects.toMatchObject({
      status: 400,
      code: 'invalid_audio',
      detail: expect.stringMatching(/declares .* but only/),
    });
    // noise after the first 8 KiB: the streaming decoder gives up, WebAudio then refuses it
    const noisy = flac.slice();
    for (let i = 8192, x = 12345; i < noisy.length; i++) noisy[i] = (x = (x * 1103515245 + 12345) >>> 0) >>> 24;
    await expect(transcriber.transcribe(noisy.buffer, { language: 'en' })).rejects.toMatchObject({ status: 400, code: 'invalid_audio', detail: expect.stringMatching(/FLAC/) });
    // WebM declares no length: the limit is found while decoding
    await expect(transcriber.transcribe((await fixture('webm-opus.webm')).buffer, { language: 'en' }, { maxAudioSeconds: 3 })).rejects.toMatchObject({ status: 413 });
    const ok = await transcriber.transcribe((await fixture('webm-opus.webm')).buffer, { language: 'en' });
    expect(ok.text.toLowerCase()).toContain('ask not what your country');
    expect(engineWorkerOf(transcriber)).toBe(worker);
  });

  it('returns empty text for silence and for noise (no hallucinated words)', async () => {
    const silence = new Float32Array(16000 * 8);
    expect((await transcriber.transcribe(silence, { language: 'en' })).text).toBe('');
    const noise = new Float32Array(16000 * 8);
    let seed = 1;
    for (let i = 0; i < noise.length; i++) {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      noise[i] = ((seed / 0x7fffffff) * 2 - 1) * 0.1;
    }
    expect((await transcriber.transcribe(noise, { language: 'en' })).text).toBe('');
  });

  it('stops a cancelled call and stays usable', async () => {
    const bytes = await evalBytes('long/wts_radio_short_fr.mp3');
    const controller = new AbortController();
    const pending = transcriber.transcribe(bytes.slice(0), { language: 'fr' }, { signal: controller.signal });
    setTimeout(() => controller.abort(), 3000);
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
    const out = await transcriber.transcribe(await evalBytes('en/jfk.flac'), { language: 'en' });
    expect(out.text.toLowerCase()).toContain('ask not what your country');
  });

  it('fails the call in flight when the worker crashes and restarts on the next call', async () => {
    // crash once transcription has started on a 120 s clip, so the call is surely still in flight
    let transcribing!: () => void;
    const started = new Promise<void>((r) => (transcribing = r));
    const long = await evalBytes('long/wts_radio_short_fr.mp3');
    const pending = transcriber.transcribe(long, { language: 'fr' }, { onProgress: (e) => e.stage === 'transcribe' && transcribing() });
    await started;
    crashEngine(transcriber);
    await expect(pending).rejects.toMatchObject({ status: 500, code: 'internal_server_error' });
    const out = await transcriber.transcribe(await evalBytes('en/jfk.flac'), { language: 'en' });
    expect(out.text.toLowerCase()).toContain('ask not what your country');
  });
});
