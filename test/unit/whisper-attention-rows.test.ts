import { describe, expect, it } from 'vitest';
import { endedWithEot } from '../../engine/whisper/generate';
import { tinyOnJfk } from './helpers/tiny-on-jfk';

/**
 * The passes that are decoded without attention (phrase proposals, constrained pattern passes) get
 * their word timings from WhisperModel.attentionRows, one teacher-forced run over the finished tokens;
 * the real whisper-tiny under onnxruntime-web's wasm build in Node.
 */
const loaded = tinyOnJfk();

const maxDiff = (a: Float32Array, b: Float32Array) => Math.max(...a.map((x, i) => Math.abs(x - b[i]!)));

describe('WhisperModel.attentionRows (real whisper-tiny)', () => {
  it('gives the rows the greedy loop collects: one per token, and the end of text\'s when the pass ended so', async () => {
    const opts = { language: 'en', temperature: 0, wantAttention: true, audioSeconds: loaded.clip.seconds };
    const greedy = await loaded.model.generate(loaded.clip.encoded, opts);
    const ids = greedy.tokens.map((t) => t.id);
    expect(loaded.model.vocab.decode(ids)).toMatch(/ask not what your country can do for you/i);
    const f = loaded.model.framing(loaded.clip.encoded, opts);
    const rows = await loaded.model.attentionRows(loaded.clip.encoded, f.prompt, ids, endedWithEot(ids, loaded.model.vocab, f));
    expect(rows.length).toBe(greedy.attention!.length);
    // q8 dynamic quantisation: a full-sequence run and the cached steps differ slightly
    for (const i of [0, Math.floor(rows.length / 2), rows.length - 1]) {
      expect(rows[i]!.length).toBe(greedy.attention![i]!.length);
      expect(maxDiff(rows[i]!, greedy.attention![i]!)).toBeLessThan(0.05);
    }
    // and a pass cut short of its end of text gets no row for it
    const cut = ids.slice(0, 10);
    expect((await loaded.model.attentionRows(loaded.clip.encoded, f.prompt, cut, false)).length).toBe(10);
  }, 300_000);
});
