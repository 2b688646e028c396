import { describe, expect, it } from 'vitest';
import { beamLoop, decodeLoop, endedWithEot, passDraft, passProcessors, passStops } from '../../engine/whisper/generate';
import { KvCache } from '../../engine/whisper/kv-cache';
import { beamLayout, treeLayout } from '../../engine/whisper/model';
import { tinyOnJfk } from './helpers/tiny-on-jfk';

describe('beamLayout', () => {
  it('lets each hypothesis see the shared start, its own cached tokens and itself, at its own depth', () => {
    // 3 shared positions, then 4 cached positions of two hypotheses (0: [3, 5], 1: [4, 6]); two new tokens
    const { mask, positions } = beamLayout(7, 3, [[3, 5], [4]]);
    const keys = 9;
    const seen = (k: number) => [...mask.subarray(k * keys, (k + 1) * keys)].map((x) => (x === 0 ? 1 : 0));
    expect(seen(0)).toEqual([1, 1, 1, 1, 0, 1, 0, 1, 0]);
    expect(seen(1)).toEqual([1, 1, 1, 0, 1, 0, 0, 0, 1]);
    expect([...positions]).toEqual([5n, 4n]);
  });
});

describe('treeLayout', () => {
  it('lets each node see its own path wherever the run holds it, at its depth', () => {
    // a root 0, its child 1; two branches after 1: [2, 3] and [4]; laid out as 0, 2, 4, 1, 3
    const { mask, positions } = treeLayout([-1, 0, 1, 2, 1], [0, 2, 4, 1, 3]);
    const keys = 5;
    const seen = (r: number) => [...mask.subarray(r * keys, (r + 1) * keys)].map((x) => (x === 0 ? 1 : 0));
    expect(seen(0)).toEqual([1, 0, 0, 0, 0]);
    expect(seen(1)).toEqual([1, 1, 0, 1, 0]);
    expect(seen(2)).toEqual([1, 0, 1, 1, 0]);
    expect(seen(3)).toEqual([1, 0, 0, 1, 0]);
    expect(seen(4)).toEqual([1, 1, 0, 1, 1]);
    expect([...positions]).toEqual([0n, 2n, 2n, 1n, 3n]);
    // a node whose parent is not in the run cannot be laid out
    expect(() => treeLayout([-1, 0], [1])).toThrow(RangeError);
  });
});

describe('KvCache', () => {
  // one layer, width 2: position p holds [p, -p] as keys and [10p, -10p] as values
  const cross = { keys: [], values: [] };
  const rows = (from: number, count: number, scale = 1) => [Float32Array.from({ length: count * 2 }, (_, i) => (from + (i >> 1)) * scale * (i % 2 ? -1 : 1))];
  const append = (cache: KvCache, count: number) => cache.appended(rows(cache.length, count), rows(cache.length, count, 10), count);
  const keys = (cache: KvCache) => [...cache.layer(0).key];

  it('appends position-major, and a cache is a view of its positions', () => {
    const a = append(append(KvCache.empty(cross, 1, 2), 3), 2);
    expect(a.length).toBe(5);
    expect(keys(a)).toEqual([0, -0, 1, -1, 2, -2, 3, -3, 4, -4]);
    expect([...a.layer(0).value]).toEqual([0, -0, 10, -10, 20, -20, 30, -30, 40, -40]);
  });

  it('forks of one prefix that both append never see each other\'s positions', () => {
    const start = append(KvCache.empty(cross, 1, 2), 2);
    const fork = start.fork();
    const a = start.appended([Float32Array.of(7, 7)], [Float32Array.of(7, 7)], 1);
    const b = fork.appended([Float32Array.of(9, 9)], [Float32Array.of(9, 9)], 1);
    expect(keys(a)).toEqual([0, -0, 1, -1, 7, 7]);
    expect(keys(b)).toEqual([0, -0, 1, -1, 9, 9]);
    expect(keys(start)).toEqual([0, -0, 1, -1]);
  });

  it('grows past its first room and gathers positions in the order asked', () => {
    let cache = KvCache.empty(cross, 1, 2);
    for (let i = 0; i < 150; i++) cache = append(cache, 1);
    expect(cache.length).toBe(150);
    expect(cache.layer(0).key.slice(298, 300)).toEqual(Float32Array.of(149, -149));
    const gathered = cache.gather([4, 1, 149]);
    expect(keys(gathered)).toEqual([4, -4, 1, -1, 149, -149]);
    expect(keys(append(gathered, 1))).toEqual([4, -4, 1, -1, 149, -149, 3, -3]);
  });

  it('cannot be used once released', () => {
    const cache = append(KvCache.empty(cross, 1, 2), 1);
    const fork = cache.fork();
    cache.release();
    cache.release();
    expect(keys(fork)).toEqual([0, -0]);
    expect(() => cache.layer(0)).toThrow(/after release/);
    expect(() => append(cache, 1)).toThrow(/after release/);
  });
});

describe('the decoding loop (real whisper-tiny on jfk.flac)', () => {
  const loaded = tinyOnJfk();
  const opts = () => ({ language: 'en', temperature: 0, wantAttention: false, audioSeconds: loaded.clip.seconds });

  async function loopOptions() {
    const { model, clip } = loaded;
    const f = model.framing(clip.encoded, opts());
    return { f, loop: { processors: passProcessors(model.vocab, f.maxTsIndex, {}), stops: passStops(model.vocab, f.maxTsIndex, {}), maxTokens: f.maxTokens } };
  }

  it('one beam in the shared-cache layout chooses exactly the greedy tokens', async () => {
    const { model, clip } = loaded;
    const { loop } = await loopOptions();
    const greedy = await model.generate(clip.encoded, opts());
    const start = await model.startAfter(clip.encoded, opts(), []);
    const beam = await beamLoop(model, clip.encoded, { ...start, attention: null, tokens: [] }, { ...loop, beams: 1 });
    expect(beam.tokens.map((t) => t.id)).toEqual(greedy.tokens.map((t) => t.id));
    expect(beam.stop).toBe(greedy.tokens.length > 0 && endedWithEot(greedy.tokens.map((t) => t.id), model.vocab, model.framing(clip.encoded, opts())) ? 'end-of-text' : 'end-of-audio');
  });

  it('a draft changes how many decoder runs a pass takes, not what it chooses here', async () => {
    const { model, clip } = loaded;
    const { loop } = await loopOptions();
    const greedy = (await model.generate(clip.encoded, opts())).tokens;
    const greedyIds = greedy.map((t) => t.id);
    // a draft that is the pass itself, one that diverges in the middle (a word changed), and one of other text
    const changed = [...greedyIds];
    const at = changed.findIndex((id, i) => i > 8 && model.vocab.isText(id));
    changed.splice(at, 2, ...model.vocab.encode(' banana'));
    const other = [model.vocab.timestampBegin, ...model.vocab.encode(' Four score and seven years ago our fathers brought forth')];
    let runs = 0;
    const counting = { decoderForward: (...a: Parameters<typeof model.decoderForward>) => (runs++, model.decoderForward(...a)) };
    const counted = new Proxy(model, { get: (t, k) => (k === 'decoderForward' ? counting.decoderForward : Reflect.get(t, k)) });
    const runsOf: number[] = [];
    for (const draft of [greedyIds, changed, other]) {
      const start = await model.startAfter(clip.encoded, opts(), []);
      runs = 0;
      const out = await decodeLoop(counted, clip.encoded, { ...start, attention: null, tokens: [] }, { ...loop, temperature: 0, wantAttention: false, draft: passDraft(draft, 16) });
      runsOf.push(runs);
      expect(out.tokens.map((t) => t.id)).toEqual(greedyIds);
      // the q8 decoder quantizes activations per run, with a scale from the run's own values, so a run
      // over many tokens rounds a little differently
      out.tokens.forEach((t, i) => expect(Math.abs(t.logprob - greedy[i]!.logprob)).toBeLessThan(0.2));
    }
    // step by step is one run per token: a right draft covers 17 tokens a run, one that diverges once
    // rejoins two tokens after, and other text saves next to nothing
    expect(runsOf[0]).toBeLessThanOrEqual(Math.ceil(greedyIds.length / 17) + 1);
    expect(runsOf[1]).toBeLessThan(greedyIds.length / 2);
    expect(runsOf[2]).toBeGreaterThan(0.8 * greedyIds.length);
  });

  it('forced tokens are kept and decoding goes on after them', async () => {
    const { model, clip } = loaded;
    const { loop } = await loopOptions();
    const forced = model.vocab.encode(' And so, my dear');
    const ts = model.vocab.timestampBegin;
    const start = await model.startAfter(clip.encoded, opts(), [ts, ...forced]);
    const tokens = [ts, ...forced].map((id) => ({ id, logprob: 0 }));
    const out = await decodeLoop(model, clip.encoded, { ...start, attention: null, tokens }, { ...loop, temperature: 0, wantAttention: false });
    const text = model.vocab.decode(out.tokens.filter((t) => model.vocab.isText(t.id)).map((t) => t.id));
    expect(text.startsWith(' And so, my dear')).toBe(true);
    expect(text).toMatch(/ask not what your country can do for you/);
  });

  it('a constraint restricts the choices without renormalizing: chosen tokens keep the model log-probabilities', async () => {
    const { model, clip } = loaded;
    const { loop } = await loopOptions();
    const greedy = await model.generate(clip.encoded, opts());
    const path = greedy.tokens.slice(0, 6).map((t) => t.id);
    // only the greedy path's next token may come, and after six tokens only the end of text, at log-probability 0
    const onPath = (row: Float32Array, generated: readonly number[]) => {
      const next = generated.length < path.length ? path[generated.length]! : model.vocab.eot;
      const kept = generated.length < path.length ? row[next]! : 0;
      row.fill(-Infinity);
      row[next] = kept;
    };
    const start = await model.startAfter(clip.encoded, opts(), []);
    const out = await beamLoop(model, clip.encoded, { ...start, attention: null, tokens: [] }, { ...loop, beams: 2, constraints: [onPath], lengthPenalty: 0 });
    expect(out.stop).toBe('end-of-text');
    expect(out.tokens.map((t) => t.id)).toEqual(path);
    out.tokens.forEach((t, i) => expect(t.logprob).toBeCloseTo(greedy.tokens[i]!.logprob, 2));
    expect(Math.min(...out.tokens.map((t) => t.logprob))).toBeLessThan(-1e-3);
  });

  it('a beam with nothing to choose (every token masked, or all below its floor) ends with its start tokens', async () => {
    const { model, clip } = loaded;
    const { loop } = await loopOptions();
    const none = (row: Float32Array) => row.fill(-Infinity);
    const masked = await model.startAfter(clip.encoded, opts(), []);
    const out = await beamLoop(model, clip.encoded, { ...masked, attention: null, tokens: [] }, { ...loop, beams: 3, constraints: [none] });
    expect(out).toMatchObject({ tokens: [], stop: 'no-token' });
    const floored = await model.startAfter(clip.encoded, opts(), []);
    const low = await beamLoop(model, clip.encoded, { ...floored, attention: null, tokens: [] }, { ...loop, beams: 3, floor: 0 });
    expect(low).toMatchObject({ tokens: [], stop: 'no-token' });
  });

  it('a cache cut down to the positions a token sees gives that token the same logits (beam compaction)', async () => {
    const { model, clip } = loaded;
    const ids = model.vocab.encode(' And so, my fellow');
    const start = await model.startAfter(clip.encoded, opts(), ids);
    const shared = start.cache.length - ids.length;
    // the next token sees the prompt and ids 0 and 2 only, as a hypothesis beside others would
    const own = [shared, shared + 2];
    const next = [ids[ids.length - 1]!];
    const whole = await model.decoderForward(next, start.cache, clip.encoded, { layout: beamLayout(start.cache.length, shared, [own]) });
    const gathered = model.gatherCache(start.cache, [...Array.from({ length: shared }, (_, i) => i), ...own]);
    expect(gathered.length).toBe(shared + own.length);
    const cut = await model.decoderForward(next, gathered, clip.encoded, { layout: beamLayout(gathered.length, shared, [[shared, shared + 1]]) });
    const [a, b] = [whole.logits.data as Float32Array, cut.logits.data as Float32Array];
    let maxDiff = 0;
    for (let i = 0; i < a.length; i++) maxDiff = Math.max(maxDiff, Math.abs(a[i]! - b[i]!));
    expect(maxDiff).toBeLessThan(1e-4);
    // and a position it does see matters: dropping one changes the logits
    const without = model.gatherCache(start.cache, [...Array.from({ length: shared }, (_, i) => i), shared + 2]);
    const fewer = await model.decoderForward(next, without, clip.encoded, { layout: beamLayout(without.length, shared, [[shared]]) });
    const c = fewer.logits.data as Float32Array;
    let changed = 0;
    for (let i = 0; i < a.length; i++) changed = Math.max(changed, Math.abs(a[i]! - c[i]!));
    expect(changed).toBeGreaterThan(1e-2);
    for (const out of [whole, cut, fewer]) {
      out.logits.dispose();
      out.cache.release();
    }
    for (const cache of [start.cache, gathered, without]) cache.release();
  });

  it('5 beams find a transcription at least as likely per token as greedy decoding', async () => {
    const { model, clip } = loaded;
    const greedy = await model.generate(clip.encoded, opts());
    const beam = await model.generate(clip.encoded, { ...opts(), beams: 5, wantAttention: true });
    expect(beam.avgLogprob).toBeGreaterThanOrEqual(greedy.avgLogprob);
    expect(model.vocab.decode(beam.tokens.filter((t) => model.vocab.isText(t.id)).map((t) => t.id)).toLowerCase()).toMatch(/ask not what your country can do for you,? ask what you can do for your country/);
    // the winner's alignment rows come from one teacher-forced run: one per token, and the end of text's if it ended so
    const f = model.framing(clip.encoded, opts());
    const ids = beam.tokens.map((t) => t.id);
    expect(beam.attention).toHaveLength(ids.length + (endedWithEot(ids, model.vocab, f) ? 1 : 0));
  });

  it('chosen targets of transcriptions scored together score as if each were scored alone', async () => {
    const { model, clip } = loaded;
    const frame = { language: 'en' };
    const a = model.vocab.encode(' And so, my fellow Americans, ask not what your country can do for you.');
    const b = model.vocab.encode(' And so, my fellow Americans, ask not what your county can do for you.');
    const change = a.findIndex((id, i) => id !== b[i]);
    expect(change).toBeGreaterThan(5);
    const near = [change, change + 1, change + 2];
    const [first, second] = await model.scoreTargets(clip.encoded, frame, [a, b], [[0, ...near], near]);
    const alone = [await model.score(clip.encoded, frame, a), await model.score(clip.encoded, frame, b)];
    // per target, apart from each run's rounding of its activations: a sequence that saw the other's
    // tokens would be far off; targets not asked for are NaN
    for (const [k, scores] of [first!, second!].entries()) {
      expect(scores).toHaveLength((k ? b : a).length + 1);
      scores.forEach((lp, i) => {
        if ((k ? near : [0, ...near]).includes(i)) expect(Math.abs(lp - alone[k]![i]!), `sequence ${k}, target ${i}`).toBeLessThan(1);
        else expect(lp).toBeNaN();
      });
    }
    // the misheard word costs its sequence, and the same row scored both
    expect(second![change]!).toBeLessThan(first![change]! - 1);
    // within one run a sequence's scores do not depend on where it sits
    const thrice = await model.scoreTargets(clip.encoded, frame, [a, b, a], [near, near, near]);
    expect(thrice[2]).toEqual(thrice[0]);
    await expect(model.scoreTargets(clip.encoded, frame, [a], [[a.length + 1]])).rejects.toThrow(RangeError);
    // nothing wanted: no run, every target NaN
    expect((await model.scoreTargets(clip.encoded, frame, [a], [[]]))[0]!.every(Number.isNaN)).toBe(true);
  });
});
