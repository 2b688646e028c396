import { describe, expect, it } from 'vitest';
import { beamSearch, type DecoderStepper } from '../../worker/biasing/beam';
import { createBiasProcessor } from '../../worker/biasing/processor';

/**
 * The search itself, on a table of next-token log-probabilities (the real decoder step does not exist
 * yet; see beam.ts). Tokens: 8 eot (text ids sit below it, as in Whisper), 1 " Conf", 2 "ucius", 3 " Com", 4 "fy", 5 "UI", 6 " folder", 7 "ort".
 */
const EOT = 8;
const TEXT: Record<number, string> = { 1: ' Conf', 2: 'ucius', 3: ' Com', 4: 'fy', 5: 'UI', 6: ' folder', 7: 'ort' };
const vocab = {
  eot: EOT,
  decode: (ids: readonly number[]) => ids.map((i) => TEXT[i] ?? '').join(''),
  encode: (text: string) => {
    const ids: number[] = [];
    let rest = text;
    while (rest) {
      const hit = Object.entries(TEXT).find(([, t]) => rest.startsWith(t));
      if (!hit) return [99];
      ids.push(Number(hit[0]));
      rest = rest.slice(hit[1].length);
    }
    return ids;
  },
};
/** log p(next | history), keyed by the history joined with ','; anything absent is -20. */
const TABLE: Record<string, Record<number, number>> = {
  '': { 1: Math.log(0.55), 3: Math.log(0.45) },
  '1': { 2: Math.log(0.9), 7: Math.log(0.1) },
  '1,2': { 6: Math.log(0.9) },
  '1,7': { 6: Math.log(0.9) },
  '3': { 4: Math.log(0.7), 7: Math.log(0.3) },
  '3,4': { 5: Math.log(0.8) },
  '3,4,5': { 6: Math.log(0.9) },
  '3,7': { 6: Math.log(0.9) },
};
const stepper: DecoderStepper<number[]> = {
  start: async () => ({ state: [], logits: row([]) }),
  step: async (state, token) => ({ state: [...state, token], logits: row([...state, token]) }),
  release: () => undefined,
};
function row(history: number[]): Float32Array {
  const r = new Float32Array(9).fill(-20);
  const entry = TABLE[history.join(',')];
  if (!entry) r[EOT] = 0;
  else for (const [t, lp] of Object.entries(entry)) r[Number(t)] = lp;
  return r;
}
const opts = { beamSize: 3, maxTokens: 6, eot: EOT, rules: () => undefined };

describe('beam search with biasing', () => {
  it('returns the model\'s best path without biasing', async () => {
    const out = await beamSearch(stepper, { ...opts, bias: createBiasProcessor(vocab, ['ComfyUI'], 0) });
    expect(vocab.decode(out.tokens)).toBe(' Confucius folder');
    expect(out.biasScore).toBe(0);
  });

  it('follows the phrase to its end when biased, and keeps the gain of the completed phrase', async () => {
    const bias = createBiasProcessor(vocab, ['ComfyUI'], 0.1);
    const out = await beamSearch(stepper, { ...opts, bias });
    expect(vocab.decode(out.tokens)).toBe(' ComfyUI folder');
    expect(out.biasScore).toBeCloseTo(3 * bias.boost, 5);
  });

  it('reports the model\'s (unbiased) log-probability per token and how the winner ended', async () => {
    const bias = createBiasProcessor(vocab, ['ComfyUI'], 0.1);
    const out = await beamSearch(stepper, { ...opts, bias });
    expect(out.tokens).toEqual([3, 4, 5, 6]);
    // log-softmax of the table's row for each prefix (rows are not normalised: absent tokens sit at -20)
    const expected = out.tokens.map((t, i) => {
      const r = row(out.tokens.slice(0, i));
      return r[t]! - Math.log(r.reduce((sum, x) => sum + Math.exp(x), 0));
    });
    expect(expected[0]).toBeCloseTo(Math.log(0.45), 3);
    out.logprobs.forEach((lp, i) => expect(lp).toBeCloseTo(expected[i]!, 4));
    expect(out.endedWithEot).toBe(true);
    // the eot's own log-probability is in the total, not in the per-token list
    expect(out.logprob).toBeLessThan(out.logprobs.reduce((a, b) => a + b, 0) + 1e-9);
    const cut = await beamSearch(stepper, { ...opts, bias, stopsAfter: (g) => g.length === 2 });
    expect(cut.tokens.length).toBe(2);
    expect(cut.endedWithEot).toBe(false);
  });

  it('releases every state it was given, once', async () => {
    const live = new Set<number[]>();
    let released = 0;
    const counting: DecoderStepper<number[]> = {
      start: async () => {
        const s: number[] = [];
        live.add(s);
        return { state: s, logits: row([]) };
      },
      step: async (state, token) => {
        if (!live.has(state)) throw new Error('stepped a released state');
        const s = [...state, token];
        live.add(s);
        return { state: s, logits: row(s) };
      },
      release: (state) => {
        if (!live.delete(state)) throw new Error('released twice');
        released++;
      },
    };
    await beamSearch(counting, { ...opts, bias: createBiasProcessor(vocab, ['ComfyUI'], 0.1) });
    expect(live.size).toBe(0);
    expect(released).toBeGreaterThan(3);
  });

  it('gives back the gain of a match the best path abandons', async () => {
    // " Comfort" shares " Com" with the phrase and then leaves it: its bias score ends at 0
    const bias = createBiasProcessor(vocab, ['ComfyUI'], 0.1);
    let s = 0;
    let total = 0;
    for (const t of [3, 7, 6]) {
      const m = bias.advance(s, t);
      [s, total] = [m.state, total + m.delta];
    }
    expect(total + bias.finish(s)).toBeCloseTo(0, 5);
  });
});
