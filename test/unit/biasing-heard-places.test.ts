import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { listSurcharge, placeIn, rewritten, unsurePlaces } from '../../engine/biasing/phrases/phrase-pass';
import { leadPlaces } from '../../engine/biasing/phrases/model-rank';
import { passWords } from '../../engine/biasing/phrases/splice';
import { WhisperVocabulary } from '../../engine/whisper/tokenizer';

describe('where the model is asked which listed phrase it hears (real whisper-tiny tokenizer)', () => {
  const dir = 'public/models/whisper-tiny';
  const json = (f: string) => JSON.parse(readFileSync(`${dir}/${f}`, 'utf8'));
  const vocab = new WhisperVocabulary(json('tokenizer.json'), json('tokenizer_config.json'), json('generation_config.json'));
  const ts = vocab.timestampBegin;
  /** A pass: a timestamp, then each word's tokens with that word's logprob. */
  const pass = (words: [string, number][]) => [{ id: ts, logprob: 0 }, ...words.flatMap(([w, lp]) => vocab.encode(w).map((id) => ({ id, logprob: lp })))];

  it('asks at every token of an unsure word and of the word before it, nowhere else', () => {
    const tokens = pass([[' My', -0.1], [" cousin's", -0.2], [' here', -1.9], [' to', -0.1], [' study', -0.1]]);
    const places = unsurePlaces(passWords(vocab, tokens));
    const text = places.map((p) => vocab.decode([tokens[p]!.id]));
    // "cousin's" is two tokens: the name may begin after " cousin"
    expect(text).toEqual([' cousin', "'s", ' here']);
    expect(unsurePlaces(passWords(vocab, pass([[' All', -0.1], [' sure', -0.3]])))).toEqual([]);
    // of many unsure words, the four least sure
    const many = pass([[' one', -0.7], [' two', -3], [' three', -0.1], [' four', -2], [' five', -0.1], [' six', -1], [' seven', -0.1], [' eight', -4], [' nine', -0.1], [' ten', -0.9]]);
    const asked = unsurePlaces(passWords(vocab, many)).map((p) => vocab.decode([many[p]!.id]).trim());
    expect(asked).toEqual(['one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight']);
  });

  it('also asks after a word before a place less its s, where a name may have lent it the s', () => {
    const tokens = pass([[' My', -0.1], [' cousins', -0.6], [' year', -1.9], [' studies', -0.5]]);
    const at = (word: string) => tokens.findIndex((t) => vocab.isText(t.id) && vocab.decode([t.id]) === word);
    expect(leadPlaces(vocab, tokens, [at(' year')])).toEqual([{ place: at(' cousins'), lead: vocab.encode(' cousin') }]);
    // each root once, however many places follow it; a word without a final s has none
    expect(leadPlaces(vocab, tokens, [at(' year'), at(' year')])).toHaveLength(1);
    expect(leadPlaces(vocab, tokens, [at(' cousins')])).toEqual([]);
    // a word that goes on ("news" + "letter") is not a plural; punctuation after one is no bar
    const newsletter = pass([[' the', -0.1], [' news', -0.2], ['letter', -1.5]]);
    expect(leadPlaces(vocab, newsletter, [newsletter.length - 1])).toEqual([]);
    const news = pass([[' the', -0.1], [' news', -0.2], ['.', -1.5]]);
    expect(leadPlaces(vocab, news, [news.length - 1])).toEqual([{ place: news.length - 2, lead: vocab.encode(' new') }]);
    // a timestamp before a place is no word
    expect(leadPlaces(vocab, tokens, [1])).toEqual([]);
  });

  it('finds a place of the first pass in a candidate that changed one stretch of it', () => {
    const tokens = pass([[' a', 0], [' b', 0], [' c', 0], [' d', 0], [' e', 0]]);
    const first = { tokens };
    // " c" written as two tokens
    const best = { tokens: [...tokens.slice(0, 3), ...pass([[' x', 0], [' y', 0]]).slice(1), ...tokens.slice(4)] };
    expect(placeIn(rewritten(first, best), 1)).toBe(1);
    expect(placeIn(rewritten(first, best), 3)).toBe(3);
    expect(placeIn(rewritten(first, best), 4)).toBe(5);
    expect(placeIn(rewritten(first, best), 5)).toBe(6);
    expect(placeIn(rewritten(first, first), 4)).toBe(4);
    // the stretch rewritten: tokens 3..4 of the first pass, 3..5 of the candidate
    expect(rewritten(first, best)).toEqual({ same: 3, firstEnd: 4, bestEnd: 5 });
    // inside what changed: no such place
    const changedTwo = { tokens: [...tokens.slice(0, 2), ...pass([[' x', 0]]).slice(1), ...tokens.slice(4)] };
    expect(placeIn(rewritten(first, changedTwo), 3)).toBeNull();
  });

  it('asks more of a phrase heard among more than the inline limit of 250, by the log of how many more', () => {
    expect(listSurcharge(1)).toBe(0);
    expect(listSurcharge(250)).toBe(0);
    expect(listSurcharge(10_000)).toBeCloseTo(Math.log(40), 9);
    expect(listSurcharge(1_000)).toBeLessThan(listSurcharge(10_000));
  });
});
