import { describe, expect, it } from 'vitest';
import { ROOT } from '../../config/paths';
import { createEnglishNormalizer } from '../../bench/score/normalize-english';
import { loadSpellings } from '../../bench/score/spellings';

const normalize = createEnglishNormalizer(loadSpellings(ROOT));

describe('English normaliser', () => {
  it('lowercases and turns punctuation into spaces', () => {
    expect(normalize('And so, my fellow Americans: ask not!')).toBe('and so my fellow americans ask not');
  });

  it('strips diacritics, including letters Unicode does not decompose', () => {
    expect(normalize('Café naïve Ærøskøbing')).toBe('cafe naive aeroskobing');
  });

  it('drops bracketed spans and fillers', () => {
    expect(normalize('Um, the [laughter] uh cat (inaudible) sat <noise> hmm mhm')).toBe('the cat sat');
  });

  it('expands contractions, also with curly apostrophes, and deletes other apostrophes', () => {
    expect(normalize("I won't, they're here, we'll see, I've, I'm, isn't")).toBe(
      'i will not they are here we will see i have i am is not',
    );
    expect(normalize('He’s gone and can’t stay, I’d say')).toBe('hes gone and can not stay id say');
    expect(normalize("at five o'clock, 'quoted'")).toBe('at 5 oclock quoted');
  });

  it('turns symbols into words', () => {
    expect(normalize('$5 and 10% & £20 million')).toBe('5 dollars and 10 percent and 20000000 pounds');
    expect(normalize('1,000 people')).toBe('1000 people');
    expect(normalize('It costs 3.50.')).toBe('it costs 3.50');
  });

  it('splits hyphenated words and spells out titles', () => {
    expect(normalize('A cold-hearted Mr. Smith met Dr Jones on St John street')).toBe(
      'a cold hearted mister smith met doctor jones on saint john street',
    );
  });

  it('maps British spellings to American (normalizer.json)', () => {
    expect(normalize('His belly counselled him; the colour of the neighbour')).toBe(
      'his belly counseled him the color of the neighbor',
    );
  });

  it('turns spelled-out numbers into digits but keeps single-digit runs separate', () => {
    expect(normalize('One hundred and five')).toBe('105');
    expect(normalize('IN EIGHTEEN THIRTEEN')).toBe('in 1813');
    expect(normalize('five five')).toBe('5 5');
    expect(normalize('go forward ten meters')).toBe(normalize('Go forward 10 meters.'));
  });

  it('collapses whitespace and leaves no edge spaces', () => {
    expect(normalize('  a \t b\n\nc  ')).toBe('a b c');
    expect(normalize('[music]')).toBe('');
  });

  it('does not treat words that are Object properties as spellings', () => {
    expect(normalize('constructor toString')).toBe('constructor tostring');
  });
});
