import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { proposalLoopRepeats, recites, settledProposal } from '../../engine/biasing/phrases/phrase-pass';
import { passWords } from '../../engine/biasing/phrases/splice';
import { biasProcessor, TOKEN_BOOST } from '../../engine/biasing/phrases/processor';
import { phrasePrompt } from '../../engine/biasing/phrases/prompt';
import { buildPhraseTrie, phraseVariants, TokenTrie } from '../../engine/biasing/phrases/trie';
import { WhisperVocabulary } from '../../engine/whisper/tokenizer';
import { repeatsTail, type Generation } from '../../engine/whisper/generate';
import { madeUpPhrases } from '../../bench/bias-set/phrase-list';

const dir = 'public/models/whisper-tiny';
const json = (f: string) => JSON.parse(readFileSync(`${dir}/${f}`, 'utf8'));
const vocab = new WhisperVocabulary(json('tokenizer.json'), json('tokenizer_config.json'), json('generation_config.json'));
const VOCAB_SIZE = 51865;
const ids = (text: string) => vocab.encode(text);
const row = () => new Float32Array(VOCAB_SIZE).map((_, i) => Math.sin(i) * 3);

describe('phrase spellings', () => {
  it('lists the forms Whisper emits: leading space or not, first letter capitalised or not', () => {
    expect(phraseVariants('ComfyUI')).toEqual([' ComfyUI', 'ComfyUI', ' comfyUI', 'comfyUI']);
    expect(phraseVariants('  siobhan   nguyen ')).toEqual([' siobhan nguyen', 'siobhan nguyen', ' Siobhan nguyen', 'Siobhan nguyen']);
    expect(phraseVariants('42')).toEqual([' 42', '42']);
    expect(phraseVariants('  ')).toEqual([]);
  });

  it('puts every spelling in the trie as the tokenizer splits it', () => {
    const trie = buildPhraseTrie(vocab, ['ozempic']);
    for (const form of [' Ozempic', 'Ozempic', ' ozempic', 'ozempic']) {
      let node = 0;
      for (const id of ids(form)) {
        node = trie.child(node, id);
        expect(node).toBeGreaterThan(0);
      }
      expect(trie.isEnd(node)).toBe(true);
    }
    expect(trie.child(0, ids(' OZEMPIC')[0]!)).toBe(-1);
  });
});

describe('token trie', () => {
  it('shares prefixes, counts depth and knows which part a shorter phrase already claimed', () => {
    const trie = new TokenTrie();
    trie.insert([5, 6]);
    trie.insert([5, 6, 7, 8]);
    trie.insert([5, 9]);
    expect(trie.nodeCount).toBe(6);
    const a = trie.child(0, 5);
    const ab = trie.child(a, 6);
    const abcd = trie.child(trie.child(ab, 7), 8);
    expect([trie.depth(a), trie.depth(ab), trie.depth(abcd)]).toEqual([1, 2, 4]);
    expect([trie.isEnd(a), trie.isEnd(ab), trie.isEnd(abcd)]).toEqual([false, true, true]);
    expect([trie.bankedDepth(a), trie.bankedDepth(ab), trie.bankedDepth(trie.child(ab, 7))]).toEqual([0, 2, 2]);
    expect([...trie.childTokens(a)].sort()).toEqual([6, 9]);
    expect(trie.child(a, 7)).toBe(-1);
  });
});

describe('bias processor', () => {
  const phrase = ids(' ComfyUI'); // ' Com', 'fy', 'UI'
  const bias = biasProcessor(vocab, ['ComfyUI'], 0.5)!;
  const b = 0.5 * TOKEN_BOOST;

  it('boosts the first token of every spelling at the root and nothing else', () => {
    const before = row();
    const after = before.slice();
    bias(after, []);
    const starts = new Set([' ComfyUI', 'ComfyUI', ' comfyUI', 'comfyUI'].map((f) => ids(f)[0]!));
    const changed = new Map<number, number>();
    for (let i = 0; i < VOCAB_SIZE; i++) if (after[i] !== before[i]) changed.set(i, Math.round((after[i]! - before[i]!) * 1e4) / 1e4);
    expect(changed).toEqual(new Map([...starts].map((t) => [t, b])));
  });

  it('starts a spelling without a leading space only where no word runs on', () => {
    const glued = ids('ComfyUI')[0]!;
    const spaced = phrase[0]!;
    const afterWord = row();
    const base = afterWord.slice();
    bias(afterWord, [ids(' the')[0]!]);
    expect(afterWord[spaced]! - base[spaced]!).toBeCloseTo(b, 5);
    expect(afterWord[glued]).toBe(base[glued]);
    const afterParen = base.slice();
    bias(afterParen, [ids(' (')[0]!]);
    expect(afterParen[glued]! - base[glued]!).toBeCloseTo(b, 5);
    // and a glued start inside a word does not open a match: its continuation is not boosted
    const continuation = ids('ComfyUI')[1]!;
    const inWord = base.slice();
    bias(inWord, [ids(' the')[0]!, glued]);
    expect(inWord[continuation]).toBe(base[continuation]);
    const afterParenStart = base.slice();
    bias(afterParenStart, [ids(' (')[0]!, glued]);
    expect(afterParenStart[continuation]! - base[continuation]!).toBeCloseTo(2 * b, 5);
  });

  it('boosts the continuation by what abandoning would give back', () => {
    const before = row();
    const after1 = before.slice();
    bias(after1, [phrase[0]!]);
    expect(after1[phrase[1]!]! - before[phrase[1]!]!).toBeCloseTo(2 * b, 5);
    const after2 = before.slice();
    bias(after2, [phrase[0]!, phrase[1]!]);
    expect(after2[phrase[2]!]! - before[phrase[2]!]!).toBeCloseTo(3 * b, 5);
    expect(after2[ids(' the')[0]!]).toBe(before[ids(' the')[0]!]);
  });

  it('gives nothing back for an abandoned match once it is left, and starts afresh after a completed phrase', () => {
    const atRoot = row();
    bias(atRoot, [ids(' the')[0]!]);
    for (const pass of [[...phrase], [phrase[0]!, phrase[1]!, ids(' table')[0]!]]) {
      const after = row();
      bias(after, pass);
      expect(after).toEqual(atRoot);
    }
  });

  it('does not count the part of a longer match that a shorter phrase completed as open', () => {
    const nested = biasProcessor(vocab, ['Comfy', 'ComfyUI'], 0.5)!;
    const before = row();
    const after = before.slice();
    nested(after, ids(' Comfy'));
    // abandoning here would give nothing back ("Comfy" is complete), so the continuation gains b only
    const next = ids(' ComfyUI')[2]!;
    expect(after[next]! - before[next]!).toBeCloseTo(b, 5);
  });

  it('follows a greedy pass step by step and starts over on a new pass', () => {
    const p = biasProcessor(vocab, ['ComfyUI'], 0.5)!;
    const pass = [ids(' the')[0]!, phrase[0]!];
    const a = row();
    p(a, []);
    p(a.fill(0), pass.slice(0, 1));
    p(a.fill(0), pass);
    expect(a[phrase[1]!]).toBeCloseTo(2 * b, 5);
    // a temperature fallback restarts from no tokens: back at the root
    p(a.fill(0), []);
    expect(a[phrase[1]!]).toBe(0);
    // and an unrelated history is replayed rather than assumed
    p(a.fill(0), [phrase[0]!, phrase[1]!]);
    expect(a[phrase[2]!]).toBeCloseTo(3 * b, 5);
  });

  it('is none at strength 0 and without phrases', () => {
    expect(biasProcessor(vocab, ['ComfyUI'], 0)).toBeNull();
    expect(biasProcessor(vocab, [], 1)).toBeNull();
    expect(biasProcessor(vocab, ['  ', ''], 1)).toBeNull();
  });

  it('leaves masked (-Infinity) tokens masked', () => {
    const r = row();
    r.fill(-Infinity, 0, 50257);
    bias(r, [phrase[0]!]);
    expect(r[phrase[1]!]).toBe(-Infinity);
  });
});

describe('phrase prompt', () => {
  it('lists phrases comma-separated within the token budget', () => {
    const prompt = phrasePrompt(vocab, ['ComfyUI', 'Ozempic', 'Grafana'], 120).ids;
    expect(vocab.decode(prompt)).toBe(' ComfyUI, Ozempic, Grafana');
    const short = phrasePrompt(vocab, ['ComfyUI', 'Ozempic', 'Grafana'], 7).ids;
    expect(vocab.decode(short)).toBe(' ComfyUI, Ozempic');
  });
});

describe('10,000 phrases (a custom model at its limit)', () => {
  it('builds and adjusts a decoder step cheaply (printed, not asserted on time)', () => {
    const phrases = madeUpPhrases(10_000);
    let t = performance.now();
    const bias = biasProcessor(vocab, phrases, 0.45)!;
    const buildMs = performance.now() - t;
    const r = row();
    // a realistic pass: mostly plain tokens, sometimes inside a partial match
    const first = ids(` ${phrases[17]}`);
    const history: number[] = [];
    const steps = 2000;
    t = performance.now();
    for (let i = 0; i < steps; i++) {
      history.push(i % 10 === 3 ? first[0]! : ids(' the')[0]!);
      bias(r, history.length > 200 ? history.splice(0) : history);
    }
    const stepUs = ((performance.now() - t) / steps) * 1000;
    // the work every step already does: one pass over the row (the timestamp rules do several)
    t = performance.now();
    let sink = 0;
    for (let i = 0; i < steps; i++) for (let k = 0; k < r.length; k++) sink += r[k]!;
    const scanUs = ((performance.now() - t) / steps) * 1000;
    console.log(
      `10,000 phrases: build ${buildMs.toFixed(0)} ms, a step ${stepUs.toFixed(1)} µs/step ` +
        `(one scan of the logits row: ${scanUs.toFixed(1)} µs; ${sink > 0 ? '' : ' '}whisper-tiny decoder step: tens of ms)`,
    );
    // a completed phrase is left behind: the row is boosted as after any other word
    const [afterPhrase, afterWord] = [row(), row()];
    bias(afterPhrase, first);
    bias(afterWord, ids(' the'));
    expect(afterPhrase).toEqual(afterWord);
  }, 60_000);
});

describe('a proposal reciting its prompt (phrase-pass.ts recites)', () => {
  const loops = recites(vocab, ['Dandlisk', 'Zintan', 'Drarstior', 'ComfyUI', 'Siobhan Nguyen']);

  it('stops where a run of listed phrases holds one twice', () => {
    expect(loops(ids(' Dandlisk, Zintan, Drarstior'))).toBe(false);
    expect(loops(ids(' Dandlisk, Zintan, Drarstior, Zintan'))).toBe(true);
    expect(loops(ids(' I think, Siobhan Nguyen, Zintan, Siobhan Nguyen.'))).toBe(true);
    expect(loops(ids(' Then Zintan, Zintan'))).toBe(true);
  });

  it('lets speech say a name twice with other words between', () => {
    expect(loops(ids(' Then you go into your ComfyUI folder, and again, in the ComfyUI'))).toBe(false);
    expect(loops(ids(' Zintan said hello, Zintan'))).toBe(false);
  });
});

describe('a proposal saying something twice (phrase-pass.ts proposalLoopRepeats)', () => {
  const pass = (text: string): Generation => ({
    tokens: [vocab.timestampBegin, ...ids(text)].map((id) => ({ id, logprob: -0.1 })),
    avgLogprob: -0.1,
    noSpeechProb: 0,
    temperature: 0,
    looped: false,
    attention: null,
  });

  it('is looped at the second time where the unbiased pass said nothing twice in a row', () => {
    const first = pass(' Hello. I think there is something for Chicago. Well, there is something for Chicago.');
    expect(proposalLoopRepeats(vocab, first)).toBe(2);
    expect(repeatsTail(ids(" Lothbrel, I think I've got a lot of details. I've got a lot of details."), proposalLoopRepeats(vocab, first))).toBe(true);
  });

  it('may say twice what the unbiased pass said twice, and is looped at the third time', () => {
    const first = pass(" We have any group. I don't think so. I don't think so. Yeah, go for it.");
    expect(proposalLoopRepeats(vocab, first)).toBe(3);
    const twice = " We have, in the group. I don't think so. I don't think so.";
    expect(repeatsTail(ids(twice), proposalLoopRepeats(vocab, first))).toBe(false);
    expect(repeatsTail(ids(`${twice} I don't think so.`), proposalLoopRepeats(vocab, first))).toBe(true);
  });
});

describe('a proposal back on the first pass for good (phrase-pass.ts settledProposal)', () => {
  // "Seersha" unsure, every other word sure
  const first = {
    tokens: [vocab.timestampBegin, ...ids(' My cousin'), ...ids(' Seersha'), ...ids(' studies marine biology.')].map((id, i, all) => ({
      id,
      logprob: i > ids(' My cousin').length && i <= all.length - ids(' studies marine biology.').length - 1 ? -2 : -0.1,
    })),
  };
  const words = passWords(vocab, first.tokens);

  it('stops a proposal that repeated the first pass through the word after its last unsure word, and one token on', () => {
    const until = settledProposal(vocab, first, words, false)!;
    expect(until(ids(' My cousin Seersha'))).toBe(false);
    expect(until(ids(' My cousin Seersha studies'))).toBe(false);
    expect(until(ids(' My cousin Seersha studies marine'))).toBe(true);
    // a proposal that wrote a name there goes on
    expect(until(ids(' My cousin Saoirse studies marine'))).toBe(false);
  });

  it('never stops one where a phrase sounds the same as words the pass split apart, or the pass ends unsure', () => {
    expect(settledProposal(vocab, first, words, true)).toBeUndefined();
    const ending = { tokens: first.tokens.map((t, i) => (i >= first.tokens.length - 2 ? { ...t, logprob: -3 } : t)) };
    expect(settledProposal(vocab, ending, passWords(vocab, ending.tokens), false)).toBeUndefined();
  });

  it('never stops one where the pass was sure of every word', () => {
    const sure = { tokens: first.tokens.map((t) => ({ ...t, logprob: -0.1 })) };
    expect(settledProposal(vocab, sure, passWords(vocab, sure.tokens), false)).toBeUndefined();
  });
});
