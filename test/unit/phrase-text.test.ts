import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/api/errors';
import { WHISPER_LANGUAGES } from '../../src/api/languages';
import { parseTranscriptionParams } from '../../src/api/params';
import { phraseTextProblem } from '../../src/api/phrase-text';
import { normalizePhrase, validatePhraseList } from '../../src/store/custom-model-rules';

const ctx = { supportedLanguages: WHISPER_LANGUAGES };

/** Every added token of the model's tokenizer: the 107 special tokens and the 1501 timestamps. */
const ADDED_TOKENS = (JSON.parse(readFileSync('public/models/whisper-tiny/tokenizer.json', 'utf8')) as {
  added_tokens: { content: string }[];
}).added_tokens.map((t) => t.content);

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => String.fromCharCode(from + i));
const CONTROLS = [...range(0x00, 0x1f), '\u007f', ...range(0x80, 0x9f)];
const BIDI = ['\u061c', '\u200e', '\u200f', ...range(0x202a, 0x202e), ...range(0x2066, 0x2069)];
const OTHER_INVISIBLE = ['\u2028', '\u2029', '\ufeff', '\ufdd0', '\ufffe', '\uffff', '\u{10ffff}', '\ud800', '\udfff'];

/** The error each door gives, or null when it takes the phrase. */
function inline(phrase: string): ApiError | null {
  try {
    parseTranscriptionParams({ phrases: [phrase] }, ctx);
    return null;
  } catch (e) {
    expect(e).toBeInstanceOf(ApiError);
    return e as ApiError;
  }
}
function customModel(phrase: string): ApiError | null {
  try {
    validatePhraseList(['fine', phrase]);
    return null;
  } catch (e) {
    expect(e).toBeInstanceOf(ApiError);
    return e as ApiError;
  }
}

function expectRefusedByBoth(phrase: string, detail: RegExp): void {
  const a = inline(phrase);
  expect(a, JSON.stringify(phrase)).not.toBeNull();
  expect(a!.status).toBe(400);
  expect(a!.code).toBe('invalid_query_parameter');
  expect(a!.detail).toMatch(/^phrases: phrase 1 contains /);
  expect(a!.detail).toMatch(detail);
  const b = customModel(phrase);
  expect(b, JSON.stringify(phrase)).not.toBeNull();
  expect(b!.status).toBe(400);
  expect(b!.code).toBe('INVALID_REQUEST');
  expect(b!.detail).toMatch(/^"phrases\[1\]" contains /);
  expect(b!.detail).toMatch(detail);
}

describe('phrase text: one rule for inline phrases and custom models', () => {
  it(`refuses each of the tokenizer's ${ADDED_TOKENS.length} special and timestamp tokens written in a phrase`, () => {
    expect(ADDED_TOKENS.length).toBeGreaterThan(1600);
    for (const token of ADDED_TOKENS) {
      expect(token).toMatch(/^<\|.*\|>$/);
      expectRefusedByBoth(`Ada ${token} Lovelace`, /special-token text "<\|/);
      expectRefusedByBoth(`${token}Ada`, /special-token text/);
    }
    // any <|…|>, not only the tokenizer's own
    expectRefusedByBoth('a <|made up|> b', /"<\|made up\|>"/);
    expectRefusedByBoth('<||>', /special-token text/);
  });

  it('refuses control characters, naming the code point', () => {
    for (const c of CONTROLS) {
      const phrase = `Ada${c}Lovelace`;
      // the custom-model door first turns whitespace (tab, newline …) into a space, so those pass there
      const normalized = normalizePhrase(phrase);
      if (normalized !== phrase) {
        expect(normalized).toBe('Ada Lovelace');
        expect(inline(phrase)?.detail).toMatch(/the control character U\+00[01]/);
        expect(customModel(phrase)).toBeNull();
        continue;
      }
      expectRefusedByBoth(phrase, new RegExp(`the control character U\\+${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}$`));
    }
  });

  it('refuses bidirectional formatting characters (Trojan Source) and other invisible ones', () => {
    for (const c of BIDI) expectRefusedByBoth(`user${c}admin`, /the bidirectional formatting character U\+(061C|200[EF]|202[A-E]|206[6-9])$/);
    for (const c of ['\ufdd0', '\ufffe', '\uffff', '\u{10ffff}']) expectRefusedByBoth(`x${c}y`, /the noncharacter U\+/);
    for (const c of ['\ud800', '\udfff']) expectRefusedByBoth(`x${c}y`, /the unpaired surrogate U\+D[8F]/);
    for (const c of ['\u2028', '\u2029', '\ufeff']) {
      expect(inline(`x${c}y`)?.detail).toMatch(/the invisible separator U\+(2028|2029|FEFF)$/);
      expect(customModel(`x${c}y`)).toBeNull(); // whitespace to JavaScript: collapsed to a space
    }
  });

  it('accepts the text of real phrases in any script', () => {
    for (const phrase of [
      'Zigbee', 'AMZ-471', 'Café Müller', 'Saoirse Ó Súilleabháin', '東京タワー', 'Кржижановский',
      'שלום עליכם', 'مرحبا بالعالم', 'می‌خواهم', 'क्षत्रिय', '👩‍👩‍👧', 'a < b | c > d', 'x|>y<|z', 'C++ and C#',
    ]) {
      expect(phraseTextProblem(phrase), phrase).toBeNull();
      expect(inline(phrase), phrase).toBeNull();
      expect(customModel(phrase), phrase).toBeNull();
    }
  });

  it('lets a delete list name a phrase stored before the rule', () => {
    expect(validatePhraseList(['old\u202ephrase', '<|en|>'], { toStore: false })).toEqual(['old\u202ephrase', '<|en|>']);
  });

  it('refuses every hostile string tried at both doors', () => {
    const hostile = [...ADDED_TOKENS, ...CONTROLS, ...BIDI, ...OTHER_INVISIBLE].map((x) => `a${x}b`);
    let refused = 0;
    let spaced = 0;
    for (const phrase of hostile) {
      expect(inline(phrase), JSON.stringify(phrase)).not.toBeNull();
      if (normalizePhrase(phrase) === 'a b') {
        // whitespace to JavaScript (tab, LF, VT, FF, CR, U+2028, U+2029, U+FEFF): the custom-model door
        // stores it as a space, as it did before
        expect(customModel(phrase)).toBeNull();
        spaced++;
      } else {
        expect(customModel(phrase), JSON.stringify(phrase)).not.toBeNull();
        refused++;
      }
    }
    expect(spaced).toBe(8);
    expect(refused + spaced).toBe(hostile.length);
    console.log(`phrase text: ${hostile.length} hostile phrases, ${hostile.length} refused inline, ${refused} refused and ${spaced} spaced in custom models`);
  });
});
