import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { hunks, nearPlaces, withHunks } from '../../engine/biasing/phrases/hunks';
import { WhisperVocabulary } from '../../engine/whisper/tokenizer';

describe('the places where a candidate differs from the first pass (real whisper-tiny tokenizer)', () => {
  const dir = 'public/models/whisper-tiny';
  const json = (name: string) => JSON.parse(readFileSync(`${dir}/${name}`, 'utf8'));
  const vocab = new WhisperVocabulary(json('tokenizer.json'), json('tokenizer_config.json'), json('generation_config.json'));
  const textOf = (ids: readonly number[]) => vocab.decode(ids.filter((id) => vocab.isText(id)));
  /** A text scored as if every token had `logprob`, except those listed in `at` (token index -> logprob). */
  const scored = (text: string, logprob: number, at: Record<number, number> = {}) => {
    const ids = vocab.encode(text);
    return { ids, logprobs: ids.map((_, i) => at[i] ?? logprob) };
  };

  it('gives each change its own cost and the phrases written there', () => {
    const first = scored(' We deploy it on Hasner and pay Strype today.', -0.1);
    const cand = scored(' We deploy it on Hetzner and pay Stripe today.', -0.1);
    const places = hunks(vocab, first, cand, ['Hetzner', 'Stripe'], []);
    expect(places.map((h) => h.gained)).toEqual([['Hetzner'], ['Stripe']]);
    // tokens the two spellings share ("ner") are not part of the change
    const written = places.map((h) => textOf(cand.ids.slice(...h.candidate)));
    expect(' Hetzner').toContain(written[0]);
    expect(' Stripe').toContain(written[1]);
    // equal log-probabilities per token: a change costs what its extra or missing tokens weigh
    places.forEach((h) => expect(h.cost).toBeCloseTo(-0.1 * ((h.first[1] - h.first[0]) - (h.candidate[1] - h.candidate[0])), 6));
  });

  it('charges a change for the tokens after it that it made less likely, up to the next change', () => {
    const first = scored(' the gold ring will please most any girl', -0.2);
    const cand = scored(' the Goldring will please most any girl', -0.2);
    const changed = hunks(vocab, first, cand, ['Goldring'], []);
    expect(changed).toHaveLength(1);
    const after = changed[0]!.candidate[1];
    const worse = { ...cand, logprobs: cand.logprobs.map((lp, i) => (i === after + 1 ? lp - 5 : lp)) };
    expect(hunks(vocab, first, worse, ['Goldring'], [])[0]!.cost).toBeCloseTo(changed[0]!.cost + 5, 6);
  });

  it('counts a listed phrase the candidate wrote over as lost where it was', () => {
    const first = scored(' pay Stripe for the servers we run on Hasner', -0.1);
    const cand = scored(' pay stripes for the servers we run on Hetzner', -0.1);
    const places = hunks(vocab, first, cand, ['Hetzner'], ['Stripe']);
    expect(places.map((h) => [h.gained, h.lost])).toEqual([
      [[], ['Stripe']],
      [['Hetzner'], []],
    ]);
  });

  it('joins two changes that a word kept by chance would split', () => {
    const first = scored(' tender churl makes waste in the good thing. Pity the world', -0.3);
    const cand = scored(' tender churl makes waste in niggarding, pity the world', -0.3);
    const places = hunks(vocab, first, cand, ['niggarding'], []);
    expect(places).toHaveLength(1);
    expect(places[0]!.gained).toEqual(['niggarding']);
    expect(textOf(first.ids.slice(...places[0]!.first))).toContain(' good thing. Pity');
    expect(textOf(cand.ids.slice(...places[0]!.candidate))).toContain(' niggarding, pity');
  });

  it('writes only the kept places into the first pass', () => {
    const first = scored(' We deploy it on Hasner and pay Strype today.', -0.1);
    const cand = scored(' We deploy it on Hetzner and pay Stripe today.', -0.1);
    const [hetzner, stripe] = hunks(vocab, first, cand, ['Hetzner', 'Stripe'], []);
    expect(textOf(withHunks(first.ids, cand.ids, [stripe!]))).toBe(' We deploy it on Hasner and pay Stripe today.');
    expect(textOf(withHunks(first.ids, cand.ids, [hetzner!]))).toBe(' We deploy it on Hetzner and pay Strype today.');
    expect(withHunks(first.ids, cand.ids, [hetzner!, stripe!])).toEqual(cand.ids);
    expect(withHunks(first.ids, cand.ids, [])).toEqual(first.ids);
  });

  it('names for a screen the targets near the places that gain a phrase, and scored there alone costs them as in full', () => {
    const first = scored(' pay Stripe for the servers we run on Hasner every month', -0.1);
    const cand = scored(' pay stripes for the servers we run on Hetzner every month', -0.1);
    const places = hunks(vocab, first, cand, ['Hetzner'], ['Stripe']);
    const near = nearPlaces(places, 2, first.ids.length);
    const hetzner = places[1]!;
    // the lost "Stripe" gains nothing: only the Hetzner place and two tokens after it
    expect(near.first).toEqual([...Array(hetzner.first[1] + 2 - hetzner.first[0]).keys()].map((i) => hetzner.first[0] + i));
    expect(near.candidate).toEqual([...Array(hetzner.candidate[1] + 2 - hetzner.candidate[0]).keys()].map((i) => hetzner.candidate[0] + i));
    // with every other target counted 0, the place costs what it does in full when nothing further moved
    const only = (s: typeof first, at: number[]) => ({ ids: s.ids, logprobs: s.logprobs.map((lp, i) => (at.includes(i) ? lp : 0)) });
    const screened = hunks(vocab, only(first, near.first), only(cand, near.candidate), ['Hetzner'], ['Stripe']);
    expect(screened[1]!.cost).toBeCloseTo(hetzner.cost, 6);
    // the tail stops at the window's end
    expect(Math.max(...nearPlaces(places, 50, first.ids.length).first)).toBe(first.ids.length - 1);
  });
});
