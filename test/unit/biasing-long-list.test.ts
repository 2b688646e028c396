import { describe, expect, it } from 'vitest';
import { encodeClip, loadNodeWhisper } from '../../bench/bias-set/node-model';
import { madeUpPhrases } from '../../bench/bias-set/phrase-list';
import { biasPlan, DEFAULT_STRENGTH, decodeWithPhrases, listSurcharge, phrasesGained } from '../../worker/biasing/phrase-pass';
import { decodeWindow } from '../../worker/decode-window';
import { loadEvalClip } from './helpers/audio';

describe('a custom model at its 10,000-phrase limit', () => {
  it('asks more of a phrase the model heard the longer the list is, from the inline limit on', () => {
    expect(listSurcharge(1)).toBe(0);
    expect(listSurcharge(250)).toBe(0);
    expect(listSurcharge(10_000)).toBeCloseTo(Math.log(40), 9);
    expect(listSurcharge(1_000)).toBeLessThan(listSurcharge(10_000));
  });

  // without the surcharge, tiny heard "Drugal" in "My name is Andrew, we're here" and kept it
  it('writes none of 10,000 made-up names into meeting speech (real whisper-tiny, ami_dev00)', async () => {
    const model = await loadNodeWhisper('whisper-tiny');
    const clip = await encodeClip(model, loadEvalClip('diar/ami_dev00.wav'));
    const opts = { language: 'en', wantAttention: false, audioSeconds: clip.seconds };
    const first = await decodeWindow(model, clip.encoded, opts);
    const phrases = ['ComfyUI', ...madeUpPhrases(9_999)];
    const biased = await decodeWithPhrases(model, clip.encoded, opts, first, phrases, biasPlan(DEFAULT_STRENGTH)!);
    const text = (gen: typeof first) => model.vocab.decode(gen.tokens.map((t) => t.id).filter((id) => model.vocab.isText(id)));
    expect(text(first)).toMatch(/My name is Andrew/);
    expect(phrasesGained(text(first), text(biased), phrases)).toEqual([]);
  }, 120_000);
});
