import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readAudio } from '../../bench/bias-set/node-model';
import { startNodeEngine, type NodeEngine } from '../../bench/lib/node-engine';
import { EVAL_DIR } from '../../config/paths';
import type { EngineResult, ProgressEvent } from '../../engine/protocol';

const SR = 16_000;
const CHUNK = 5 * SR;

/** About 2.3 minutes of ../shared/dev/en clips, 6 s of silence after each. */
function recording(): Float32Array {
  const files = ['1221-135766-0002.wav', '1988-24833-0000.flac', 'LJ050-0160.wav', '2412-153948-0002.flac', 'LJ050-0162.wav', '3752-4944-0001.flac', 'LJ050-0164.wav', '1988-24833-0002.flac', 'EDACC-C02-000000000.wav', 'EDACC-C02-000000002.wav'];
  const parts = files.flatMap((f) => [readAudio(resolve(EVAL_DIR, '../dev/en', f)), new Float32Array(6 * SR)]);
  const out = new Float32Array(parts.reduce((n, p) => n + p.length, 0));
  parts.reduce((at, p) => (out.set(p, at), at + p.length), 0);
  return out;
}

/** The engine's segments as comparable text: times, speakers and words. */
const shown = (r: EngineResult) =>
  r.segments.map((s) => `${Math.round(s.startMs)}-${Math.round(s.endMs)} S${s.speaker} ${s.text} | ${s.words.map((w) => `${w.text}@${Math.round(w.startMs)}:${w.speaker}`).join(' ')}`);

/** The whole engine (engine/pipeline.ts) in Node, whisper-tiny, given a stream of 16 kHz chunks as the page sends them. */
describe('the engine on a streamed recording', () => {
  let engine: NodeEngine;
  beforeAll(async () => {
    engine = await startNodeEngine('whisper-tiny');
  }, 120_000);
  afterAll(() => engine?.close());

  it('transcribes and diarizes as the audio arrives, holding at most a block of it, with the same result as the whole recording', async () => {
    const audio = recording();
    const config = { encoderWindow: 'fit', decoding: 'fast' } as const;
    const whole = await engine.transcribe(audio.slice(), config, { diarize: true });
    let pulled = 0;
    const stream = new ReadableStream<Float32Array>(
      {
        pull(controller) {
          if (pulled >= audio.length) return controller.close();
          controller.enqueue(audio.slice(pulled, pulled + CHUNK));
          pulled = Math.min(audio.length, pulled + CHUNK);
        },
      },
      { highWaterMark: 1 },
    );
    const ahead: number[] = [];
    const onProgress = (e: ProgressEvent) => {
      if (e.stage === 'transcribe' && e.processedMs > 0) ahead.push(pulled - (e.processedMs / 1000) * SR);
    };
    const streamed = await engine.transcribe(audio, config, { audio: stream, diarize: true }, onProgress);
    expect(shown(streamed)).toEqual(shown(whole));
    expect(streamed.durationMs).toBe(whole.durationMs);
    expect(whole.segments.length).toBeGreaterThan(10);
    expect(new Set(whole.segments.map((s) => s.speaker)).size).toBeGreaterThan(1); // ten read-speech voices
    // the first windows were transcribed before the stream was read to its end, and the engine never read
    // far ahead of what it had transcribed: a block (90 s) and a chunk or two, not the recording
    expect(ahead[0]!).toBeLessThan(audio.length - 30 * SR);
    expect(Math.max(...ahead.slice(0, -1))).toBeLessThanOrEqual(105 * SR);
  }, 300_000);

  it('ends the job with an error, and stays usable, when the stream fails part way', async () => {
    const audio = recording().subarray(0, 100 * SR);
    let sent = 0;
    const failing = new ReadableStream<Float32Array>({
      pull(controller) {
        if (sent >= 60 * SR) return controller.error(new Error('the decoder found the file truncated'));
        controller.enqueue(audio.slice(sent, (sent += CHUNK)));
      },
    });
    const config = { encoderWindow: 'fit', decoding: 'fast' } as const;
    await expect(engine.transcribe(audio, config, { audio: failing })).rejects.toThrow(/truncated/);
    const after = await engine.transcribe(audio.slice(0, 20 * SR), config);
    expect(after.segments.length).toBeGreaterThan(0);
  }, 300_000);
});
