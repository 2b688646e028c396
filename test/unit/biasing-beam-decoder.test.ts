import { beforeAll, describe, expect, it } from 'vitest';
import { loadNodeWhisper, encodeClip } from '../../bench/bias-set/node-model';
import { beamSearch } from '../../worker/biasing/beam';
import { createBiasProcessor } from '../../worker/biasing/processor';
import { applyTimestampRules } from '../../worker/logit-rules';
import type { EncodedWindow, WhisperModel } from '../../worker/whisper';
import { loadEvalClip } from './helpers/audio';

/**
 * The per-hypothesis decoder steps (DecoderSteps in worker/whisper.ts) and the beam that drives them,
 * with the real whisper-tiny under onnxruntime-web's wasm build in Node.
 */
let model: WhisperModel;
let clip: { encoded: EncodedWindow; seconds: number };

beforeAll(async () => {
  model = await loadNodeWhisper('whisper-tiny');
  clip = await encodeClip(model, loadEvalClip('en/jfk.flac'));
}, 120_000);

const argmax = (row: Float32Array) => row.reduce((best, v, i) => (v > row[best]! ? i : best), 0);

describe('DecoderSteps (real whisper-tiny)', () => {
  it('steps one hypothesis to the same tokens as the greedy loop, and leaves its parent usable', async () => {
    const greedy = await model.generate(clip.encoded, { language: 'en', temperature: 0, wantAttention: false, audioSeconds: clip.seconds, maxTokens: 12 });
    const steps = model.decoderSteps(clip.encoded, { language: 'en' });
    const maxTs = Math.ceil(clip.seconds / 0.02);
    try {
      let { state, logits } = await steps.start();
      const ids: number[] = [];
      const parent = state;
      let firstChild: Float32Array | null = null;
      for (let i = 0; i < 12; i++) {
        applyTimestampRules(logits, ids, model.vocab, maxTs);
        const id = argmax(logits);
        if (id === model.vocab.eot) break;
        ids.push(id);
        const next = await steps.step(state, id);
        if (i === 0) firstChild = next.logits.slice(); // the rules below mask rows in place
        if (state !== parent) steps.release(state);
        ({ state, logits } = next);
      }
      expect(ids).toEqual(greedy.tokens.map((t) => t.id));
      expect(model.vocab.decode(ids)).toMatch(/fellow Americans/);
      // the parent was not consumed: stepping it again with the same token gives the same row
      const again = await steps.step(parent, ids[0]!);
      expect(Array.from(again.logits.subarray(0, 200))).toEqual(Array.from(firstChild!.subarray(0, 200)));
      expect(steps.liveStates).toBe(3); // parent, the last state, and `again`
      steps.release(parent);
      await expect(steps.step(parent, ids[0]!)).rejects.toThrow(/released/);
    } finally {
      steps.dispose();
    }
    expect(steps.liveStates).toBe(0);
  }, 120_000);

  it('a beam without biasing finds the reference sentence and frees every hypothesis', async () => {
    const bias = createBiasProcessor(model.vocab, [], 0);
    const greedy = await model.generate(clip.encoded, { language: 'en', temperature: 0, wantAttention: true, audioSeconds: clip.seconds });
    const gen = await model.generate(clip.encoded, {
      language: 'en',
      temperature: 0,
      wantAttention: true,
      audioSeconds: clip.seconds,
      beam: { size: 3, bias },
    });
    const text = model.vocab.decode(gen.tokens.map((t) => t.id));
    expect(text).toMatch(/ask not what your country can do for you/i);
    for (const t of gen.tokens) expect(t.logprob).toBeLessThanOrEqual(0);
    expect(gen.avgLogprob).toBeGreaterThan(-1);
    expect(gen.noSpeechProb).toBeCloseTo(greedy.noSpeechProb, 6);
    // attention rows as the greedy loop collects them (one per token, plus the end of text's when it ended so),
    // from one teacher-forced pass: the first row (the prompt's last position) is the greedy loop's first row
    expect(gen.tokens.map((t) => t.id)).toEqual(greedy.tokens.map((t) => t.id));
    expect(gen.attention!.length).toBe(greedy.attention!.length);
    const [a, b] = [gen.attention![0]!, greedy.attention![0]!];
    expect(a.length).toBe(b.length);
    expect(Math.max(...a.map((x, i) => Math.abs(x - b[i]!)))).toBeLessThan(0.05); // q8 dynamic quantisation: full-sequence and cached runs differ slightly
    const last = gen.attention!.length - 1;
    expect(Math.max(...gen.attention![last]!.map((x, i) => Math.abs(x - greedy.attention![last]![i]!)))).toBeLessThan(0.05); // q8 dynamic quantisation: full-sequence and cached runs differ slightly
  }, 300_000);

  it('a cancel during the beam propagates, and dispose() frees what the search left alive', async () => {
    let calls = 0;
    const steps = model.decoderSteps(clip.encoded, {
      language: 'en',
      checkpoint: () => {
        if (++calls === 5) throw new DOMException('cancelled', 'AbortError');
      },
    });
    const maxTs = Math.ceil(clip.seconds / 0.02);
    const search = beamSearch(steps, {
      beamSize: 3,
      maxTokens: 50,
      eot: model.vocab.eot,
      bias: createBiasProcessor(model.vocab, [], 0),
      rules: (row, generated) => applyTimestampRules(row, generated, model.vocab, maxTs),
    });
    await expect(search).rejects.toThrow(/cancelled/);
    expect(steps.liveStates).toBeGreaterThan(0);
    steps.dispose();
    expect(steps.liveStates).toBe(0);
  }, 120_000);
});
