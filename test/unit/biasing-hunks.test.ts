import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { hunks, withHunks } from '../../engine/biasing/phrases/hunks';
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
});
