import { beforeAll, describe, expect, it } from 'vitest';
import { decodeWindow } from '../../engine/decoding/fallback';
import { formIndex, phrasesAfter, phrasesHeard } from '../../engine/biasing/phrases/model-rank';
import { logSumExp } from '../../engine/whisper/logits';
import { treeLayout } from '../../engine/whisper/model';
import { tinyOnJfk } from './helpers/tiny-on-jfk';

/**
 * phrasesAfter scores many phrases per decoder run, their tokens laid out as a tree. Each phrase's
 * log-probability must be what a run over the prefix and that phrase alone gives (real whisper-tiny).
 */
const loaded = tinyOnJfk();

/** Each of the phrase's tokens' log-probability after `prefix`, by a teacher-forced run over both. */
async function alone(prefix: readonly number[], ids: readonly number[]): Promise<number[]> {
  const out = await loaded.model.decoderForward([...prefix, ...ids], null, loaded.clip.encoded, { logitsFrom: prefix.length - 1 });
  const data = out.logits.data as Float32Array;
  const size = out.logits.dims[2]!;
  const logprobs = ids.map((id, i) => data[i * size + id]! - logSumExp(data, i * size, (i + 1) * size));
  out.logits.dispose();
  out.cache.release();
  return logprobs;
}

const sum = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0);

describe('phrasesAfter (real whisper-tiny)', () => {
  let prefix: number[];
  /** phrasesAfter at the place of " country" in "ask not what your country can do for you". */
  async function heardAtCountry(phrases: readonly string[]) {
    const run = await loaded.model.decoderForward(prefix.slice(0, -1), null, loaded.clip.encoded, { logitsFrom: prefix.length - 2 });
    run.logits.dispose();
    return phrasesAfter(loaded.model, loaded.clip.encoded, run.cache, prefix[prefix.length - 1]!, formIndex(loaded.model.vocab, phrases), { floor: -Infinity });
  }

  beforeAll(async () => {
    const opts = { language: 'en', wantAttention: false, audioSeconds: loaded.clip.seconds };
    const ids = (await decodeWindow(loaded.model, loaded.clip.encoded, opts)).tokens.map((t) => t.id);
    const at = ids.findIndex((id) => loaded.model.vocab.isText(id) && loaded.model.vocab.decode([id]) === ' country');
    expect(at).toBeGreaterThan(0);
    prefix = [...loaded.model.framing(loaded.clip.encoded, opts).prompt, ...ids.slice(0, at)];
  }, 120_000);

  const phrases = ['Countryman Gazette', 'country can do', 'county fair', 'nation', 'ComfyUI', 'count'];

  it('ranks the spoken words first, and scores a likely token as a run over the phrase alone does', async () => {
    const heard = await heardAtCountry(phrases);
    expect(heard[0]!.phrase).toBe('country can do');
    expect(heard.map((h) => loaded.model.vocab.decode(h.ids))).toEqual(expect.arrayContaining([' Country can do', ' county fair', ' Countryman Gazette']));
    for (const h of heard) {
      const expected = await alone(prefix, h.ids);
      expect(h.logprob).toBeCloseTo(sum(h.logprobs), 5);
      // runs of other shapes quantize activations otherwise: unlikely tokens differ by up to 2 nats
      // (" Countryman Gazette"), likely ones hardly (" can" after " Country")
      h.logprobs.forEach((lp, i) => expected[i]! > -1 && expect(Math.abs(lp - expected[i]!)).toBeLessThan(0.2));
      expect(Math.abs(h.logprob - sum(expected))).toBeLessThan(3);
    }
  }, 300_000);

  it('scores a phrase the same whatever other phrases share its tree: each token sees only its own', async () => {
    const together = await heardAtCountry(phrases);
    for (const phrase of ['county fair', 'Countryman Gazette']) {
      const [single] = await heardAtCountry([phrase]);
      const same = together.find((h) => h.ids.join() === single!.ids.join())!;
      single!.logprobs.forEach((lp, i) => expect(Math.abs(lp - same.logprobs[i]!)).toBeLessThan(0.3));
    }
  }, 300_000);
});

describe('phrasesHeard: every place in one run per round (real whisper-tiny)', () => {
  it('hears at several places together what it hears at each alone', async () => {
    const opts = { language: 'en', wantAttention: false, audioSeconds: loaded.clip.seconds };
    const tokens = (await decodeWindow(loaded.model, loaded.clip.encoded, opts)).tokens;
    const place = (word: string) => tokens.findIndex((t) => loaded.model.vocab.isText(t.id) && loaded.model.vocab.decode([t.id]) === word);
    const places = [place(' ask'), place(' country'), place(' do')];
    expect(places.every((p) => p > 0)).toBe(true);
    const phrases = ['Countryman Gazette', 'country can do', 'ask not', 'Astor', 'doing', 'ComfyUI'];
    const hear = { count: 2, floor: -30 };
    const together = await phrasesHeard(loaded.model, loaded.clip.encoded, opts, tokens, places, formIndex(loaded.model.vocab, phrases), hear);
    for (const p of places) {
      const alone = (await phrasesHeard(loaded.model, loaded.clip.encoded, opts, tokens, [p], formIndex(loaded.model.vocab, phrases), hear)).get(p)!;
      const both = together.get(p)!;
      expect(both.map((h) => h.phrase)).toEqual(alone.map((h) => h.phrase));
      // runs of other shapes quantize activations otherwise (see above)
      both.forEach((h, i) => expect(Math.abs(h.logprob - alone[i]!.logprob)).toBeLessThan(0.5));
    }
    // each place hears its own next words, not another's
    expect(together.get(places[1]!)![0]!.phrase).toBe('country can do');
    expect(together.get(places[0]!)!.map((h) => h.phrase)).toContain('ask not');
  }, 300_000);
});

describe('phrasesHeard after a plural less its s (real whisper-tiny)', () => {
  it('hears each phrase after the word less its s, scored as a run over both alone, from the word on', async () => {
    const opts = { language: 'en', wantAttention: false, audioSeconds: loaded.clip.seconds };
    const v = loaded.model.vocab;
    const tokens = (await decodeWindow(loaded.model, loaded.clip.encoded, opts)).tokens;
    const americans = tokens.findIndex((t) => v.isText(t.id) && v.decode([t.id]) === ' Americans');
    expect(americans).toBeGreaterThan(0);
    const heard = (await phrasesHeard(loaded.model, loaded.clip.encoded, opts, tokens, [americans + 1], formIndex(v, ['Express', 'flag']), { floor: -60 })).get(americans)!;
    const stem = v.encode(' American');
    expect(heard.map((h) => v.decode(h.ids)).sort()).toEqual([' American Express', ' American flag']);
    const prefix = [...loaded.model.framing(loaded.clip.encoded, opts).prompt, ...tokens.slice(0, americans).map((t) => t.id)];
    for (const h of heard) {
      expect(h.ids.slice(0, stem.length)).toEqual(stem);
      expect(h.logprob).toBeCloseTo(sum(h.logprobs), 5);
      const expected = await alone(prefix, h.ids);
      // the word less its s is likely where the pass wrote the plural; its log-probability is counted in
      expect(Math.abs(h.logprobs[0]! - expected[0]!)).toBeLessThan(0.2);
      expect(Math.abs(h.logprob - sum(expected))).toBeLessThan(3);
    }
  }, 300_000);
});

describe('treeLayout with sees (trees after different prefixes of one cache)', () => {
  it('masks each root to its own prefix of the cache, its descendants alike, and places them after it', () => {
    // 4 cached positions; token 0 a root seeing 2 of them, token 1 its child, token 2 a root seeing all 4
    const { mask, positions } = treeLayout(4, 3, [-1, 0, -1], [2, 0, 4]);
    const row = (i: number) => Array.from(mask.subarray(i * 7, (i + 1) * 7), (x) => (x === 0 ? 1 : 0));
    expect(row(0)).toEqual([1, 1, 0, 0, 1, 0, 0]);
    expect(row(1)).toEqual([1, 1, 0, 0, 1, 1, 0]);
    expect(row(2)).toEqual([1, 1, 1, 1, 0, 0, 1]);
    expect([...positions]).toEqual([2n, 3n, 4n]);
    expect(() => treeLayout(4, 1, [-1], [5])).toThrow(RangeError);
  });
});
