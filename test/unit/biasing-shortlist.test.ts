import { describe, expect, it } from 'vitest';
import { occurrences, phrasesGained } from '../../engine/biasing/phrases/hunks';
import { heardText, rankPhrases, soundKey, soundMatch, type HeardWords } from '../../engine/biasing/phrases/shortlist';
import { madeUpPhrases } from '../../bench/bias-set/phrase-list';
import { candidateMinSim } from '../../engine/biasing/phrases/phrase-pass';

describe('phrase shortlist (sound-alike ranking against an unbiased transcription)', () => {
  it('folds spellings of one sound together', () => {
    expect(soundKey('Hetzner')).toBe('hetsner');
    expect(soundKey('Sophie')).toBe(soundKey('Sofie'));
    expect(soundKey('Katz')).toBe(soundKey('Cats'));
    expect(soundKey('Comfy UI!')).toBe(soundKey('ComfyUI'));
    expect(soundKey('Appple')).toBe('aple');
    expect(soundKey('play right')).toBe(soundKey('Playwright'));
    expect(soundKey('—')).toBe('');
  });

  it('ranks the phrase an unbiased pass misheard first among 250', () => {
    const list = [...madeUpPhrases(249), 'Hetzner'];
    expect(rankPhrases(heardText('We deploy the service with Terraform on Hasner.'), list)[0]).toBe('Hetzner');
    const comfy = [...madeUpPhrases(249), 'ComfyUI'];
    expect(rankPhrases(heardText('Then open the Comp Fuey folder and load the workflow.'), comfy).slice(0, 3)).toContain('ComfyUI');
  });

  it('matches a multi-word phrase across the words an unbiased pass split it into', () => {
    const list = [...madeUpPhrases(249), 'Siobhan Nguyen'];
    expect(rankPhrases(heardText('Please forward the invoice to Shabon NGU IDN by Friday.'), list).slice(0, 10)).toContain('Siobhan Nguyen');
  });

  it('does not match a phrase across a word without letters ("|")', () => {
    expect(rankPhrases(heardText('on ter aform today'), ['Tar', 'Terraform'])[0]).toBe('Terraform');
    expect(rankPhrases(heardText('on ter | aform today'), ['Tar', 'Terraform'])[0]).toBe('Tar');
  });

  it('matches only runs that hold a word the pass was unsure of', () => {
    const keys = 'the service runs on Hasner today'.split(' ').map(soundKey);
    const at = (word: number): HeardWords => ({ keys, unsure: keys.map((_, i) => i === word) });
    expect(rankPhrases(at(4), ['Hetzner', 'Servis'], 0.6)).toEqual(['Hetzner']);
    expect(rankPhrases(at(1), ['Hetzner', 'Servis'], 0.6)).toEqual(['Servis']);
    // a long phrase reaches the sure words around the unsure one
    expect(soundMatch('runs on Hetzner today', at(4))).toEqual({ sim: 8 / 9, start: 2, end: 6 }); // hetsner: two letters of hasner
    expect(soundMatch('Hetzner', { keys, unsure: keys.map(() => false) }).sim).toBe(0);
  });

  it('asks a longer list for a closer match: the floor rises with ln(size) past 250, as the credit falls', () => {
    expect(candidateMinSim(1)).toBe(candidateMinSim(250));
    const [a, b, c] = [250, 1_000, 4_000].map(candidateMinSim);
    expect(b! - a!).toBeGreaterThan(0);
    expect(c! - b!).toBeCloseTo(b! - a!, 10);
  });

  it('keeps list order among equals and drops nothing', () => {
    const list = ['Zeta', 'Alpha', 'Beta'];
    expect(rankPhrases(heardText(''), list)).toEqual(list);
    expect(rankPhrases(heardText('alpha'), list)[0]).toBe('Alpha');
    expect([...rankPhrases(heardText('beta'), list)].sort()).toEqual([...list].sort());
  });

  it('with a limit, gives the head of the full ranking, ties in list order', () => {
    const list = [...madeUpPhrases(2_000), 'Hetzner', 'Hetsner', 'Siobhan Nguyen'];
    const text = 'Shabon NGU IDN said | the service runs on Hasner | in my thing';
    for (const limit of [1, 2, 7, 60]) expect(rankPhrases(heardText(text), list, 0.4, limit)).toEqual(rankPhrases(heardText(text), list, 0.4).slice(0, limit));
    expect(rankPhrases(heardText(text), ['Hetsner', 'Hetzner'], 0.4, 1)).toEqual(['Hetsner']);
    expect(rankPhrases(heardText(text), ['Hetzner', 'Hetsner'], 0.4, 1)).toEqual(['Hetzner']);
    expect(rankPhrases(heardText(''), ['Zeta', 'Alpha', 'Beta'], 0, 2)).toEqual(['Zeta', 'Alpha']);
  });

  it('ranks as matching every phrase against every run of words would', () => {
    const list = [...madeUpPhrases(3_000), 'Hetzner', 'Siobhan Nguyen', 'Comfy UI'];
    const text = 'Shabon NGU IDN said | the service runs on Hasner | Kalmar and Texas | I go for it Any red Any red | comp fuey';
    const sims = new Map(list.map((p) => [p, soundMatch(p, heardText(text)).sim]));
    const expected = list.filter((p) => sims.get(p)! >= 0.4).sort((a, b) => sims.get(b)! - sims.get(a)!);
    expect(expected.length).toBeGreaterThan(100);
    expect(rankPhrases(heardText(text), list, 0.4)).toEqual(expected);
    expect(rankPhrases(heardText(text), list, 0.4, 60)).toEqual(expected.slice(0, 60));
  });
});

describe('phrase occurrences (what a biased pass gained)', () => {
  it('counts whole words, ignoring case and punctuation', () => {
    expect(occurrences('Then open the ComfyUI folder, again in the comfyui.', 'ComfyUI')).toBe(2);
    expect(occurrences('Grafanas are not Grafana', 'Grafana')).toBe(1);
    expect(occurrences('to Siobhan  Nguyen, by Friday', 'Siobhan Nguyen')).toBe(1);
    expect(occurrences('Terraform on Hetzner', '')).toBe(0);
    expect(occurrences('Café Zürich', 'café zürich')).toBe(1);
  });
});

describe('phrases a candidate gained and lost (what the judge credits and debits)', () => {
  const first = 'Krzysztof presented the news IGBI thermostat.';
  const listed = ['Krzysztof', 'Zigbee', 'Grafana'];

  it('a candidate that turns a listed name into another word loses it', () => {
    const proposal = 'Khrushkhoff presented the new Zigbee thermostat.';
    expect(phrasesGained(first, proposal, listed)).toEqual(['Zigbee']);
    expect(phrasesGained(proposal, first, listed)).toEqual(['Krzysztof']);
  });

  it('a candidate that keeps every listed name loses none, and one that writes a name once less loses it', () => {
    expect(phrasesGained('Krzysztof presented the news Zigbee thermostat.', first, listed)).toEqual([]);
    expect(phrasesGained('Grafana and a graph', 'Grafana and grafana', listed)).toEqual(['Grafana']);
  });
});
