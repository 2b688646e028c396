import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { passWords, sameSoundPhrases, splicePhrase, tokenWords } from '../../engine/biasing/phrases/splice';
import { WhisperVocabulary } from '../../engine/whisper/tokenizer';

describe('splicing a phrase into a pass (real whisper-tiny tokenizer)', () => {
  const dir = 'public/models/whisper-tiny';
  const json = (f: string) => JSON.parse(readFileSync(`${dir}/${f}`, 'utf8'));
  const vocab = new WhisperVocabulary(json('tokenizer.json'), json('tokenizer_config.json'), json('generation_config.json'));
  const ts = (seconds: number) => vocab.timestampBegin + Math.round(seconds / 0.02);
  /** A pass as the decoder returns it: timestamps around the text, each token with a logprob. */
  const pass = (text: string, logprob = -0.1) =>
    [ts(0), ...vocab.encode(text), ts(2.4)].map((id) => ({ id, logprob: vocab.isText(id) ? logprob : 0 }));
  const textOf = (ids: number[]) => vocab.decode(ids.filter((id) => vocab.isText(id)));

  it('finds words in the tokens, punctuation and timestamps left out', () => {
    const words = tokenWords(vocab, pass(' We deploy it on Hasner.'));
    expect(words.map((w) => w.text.trim())).toEqual(['We', 'deploy', 'it', 'on', 'Hasner']);
    const last = words[words.length - 1]!;
    expect(vocab.decode(pass(' We deploy it on Hasner.').slice(last.start, last.end).map((t) => t.id))).toBe(' Hasner');
    // a hyphenated word is its parts: a pass hyphenates what it heard in pieces
    expect(tokenWords(vocab, pass(' peppered flour-fat and sauce.')).map((w) => w.text.trim())).toEqual(['peppered', 'flour', 'fat', 'and', 'sauce']);
  });

  it('writes the phrase over the run of words that sounds most like it, keeping timestamps and punctuation', () => {
    const tokens = pass(' Please forward the invoice to Shabon NGU IDN by Friday.', -1.5);
    const splice = splicePhrase(vocab, passWords(vocab, tokens), 'Siobhan Nguyen', 0.4)!;
    expect(textOf(splice.ids)).toBe(' Please forward the invoice to Siobhan Nguyen by Friday.');
    expect(splice.ids[0]).toBe(ts(0));
    expect(splice.ids[splice.ids.length - 1]).toBe(ts(2.4));
    expect(splice.replaced).toBe('Shabon NGU IDN');
    // each capitalised word counts as one token, its tokens' log-probabilities summed
    const replacedTokens = vocab.encode(' Shabon NGU IDN').length;
    expect(splice.replacedLogprob).toBeCloseTo((-1.5 * replacedTokens) / 3);
  });

  it('replaces a word at the start of a pass without a space the pass did not have', () => {
    const tokens = [ts(0), ...vocab.encode('Hasner is fast.'), ts(1)].map((id) => ({ id, logprob: -0.2 }));
    expect(textOf(splicePhrase(vocab, passWords(vocab, tokens), 'Hetzner', 0.4)!.ids)).toBe('Hetzner is fast.');
  });

  it('proposes nothing where no run sounds alike enough', () => {
    expect(splicePhrase(vocab, passWords(vocab, pass(' The garden was full of tomatoes.')), 'Xarelto', 0.6)).toBeNull();
    expect(splicePhrase(vocab, passWords(vocab, pass('')), 'Xarelto', 0)).toBeNull();
  });

  it('counts a name pieced from several tokens as sure as the whole name, other words as their tokens on average', () => {
    const tokens = pass(' The login page talks to Superbus through a small proxy. Superbus prudently replied.', -0.05);
    const words = tokenWords(vocab, tokens);
    const piecesOf = (i: number) => words[i]!.end - words[i]!.start;
    const [name, opening] = words.flatMap((w, i) => (w.text.trim() === 'Superbus' ? [i] : []));
    const ordinary = words.findIndex((w) => w.text.trim() === 'prudently');
    expect([piecesOf(name!), piecesOf(ordinary)].every((n) => n > 1)).toBe(true);
    for (const i of [name!, opening!, ordinary]) for (let t = words[i]!.start; t < words[i]!.end; t++) tokens[t]!.logprob = -0.35;
    const { sureness, unsure } = passWords(vocab, tokens);
    expect(sureness[name!]).toBeCloseTo(-0.35 * piecesOf(name!));
    // the same name opening a sentence, and a lower-case word, may be ordinary words
    expect(sureness[opening!]).toBeCloseTo(-0.35);
    expect(sureness[ordinary]).toBeCloseTo(-0.35);
    expect(words.flatMap((w, i) => (unsure[i] ? [w.text.trim()] : []))).toEqual(['Superbus']);
    // a run with the name in it: its other tokens as before, the name as one
    const run = splicePhrase(vocab, passWords(vocab, tokens), 'Supabase', 0.4)!;
    expect(run.replaced).toBe('Superbus');
    expect(run.replacedLogprob).toBeCloseTo(-0.35 * piecesOf(name!));
  });

  it('finds the listed phrases that sound the same as words written otherwise, however sure the pass was', () => {
    const list = ['Playwright', 'Krzysztof', 'Galway', 'Grafana'];
    const heard = passWords(vocab, pass(' K-R-Z-Y-S-Z-T-O-F runs play right in Galway.', -0.05));
    expect(sameSoundPhrases(vocab, heard, list).sort()).toEqual(['Krzysztof', 'Playwright']);
    // written as listed (case aside): nothing to mend; respelt word for word: the pass chose a real word
    expect(sameSoundPhrases(vocab, passWords(vocab, pass(' We run playwright in Galway.')), list)).toEqual([]);
    expect(sameSoundPhrases(vocab, passWords(vocab, pass(' Her photos took a lift.')), ['Fotos', 'Lyft'])).toEqual([]);
    // but a word written in several tokens is no real word: the name misspelt
    expect(vocab.encode(' gallway').length).toBeGreaterThan(1);
    expect(sameSoundPhrases(vocab, passWords(vocab, pass(' She studies biology in gallway.', -0.05)), list)).toEqual(['Galway']);
    // alike is not the same: "Graith and" is for the unsure-word splices to weigh
    expect(sameSoundPhrases(vocab, passWords(vocab, pass(' Every dashboard moved into Graith and.')), list)).toEqual([]);
  });
});
