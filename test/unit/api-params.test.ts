import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/api/errors';
import { WHISPER_LANGUAGES } from '../../src/api/languages';
import {
  DEFAULT_TRANSCRIPTION_PARAMS,
  parseTranscriptionParams,
  toQueryString,
  type TranscriptionParams,
} from '../../src/api/params';

const ctx = { supportedLanguages: WHISPER_LANGUAGES };
const parse = (q: string) => parseTranscriptionParams(new URLSearchParams(q), ctx);

function errorOf(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(ApiError);
    return e as ApiError;
  }
  throw new Error('expected an ApiError, nothing was thrown');
}

describe('defaults', () => {
  it('an empty query gives the spec defaults', () => {
    expect(parse('')).toEqual({
      encoding: 'auto',
      sample_rate: 16000,
      channels: 1,
      language: null,
      phrases: null,
      custom_model_id: null,
      bias_strength: 0.45,
      include_timestamps: false,
      include_words: false,
      include_language: false,
      include_confidence: false,
      diarize: false,
      max_speakers: null,
      patterns: null,
      filler_mode: 'natural',
    });
    expect(parseTranscriptionParams({}, ctx)).toEqual(DEFAULT_TRANSCRIPTION_PARAMS);
  });
});

type Valid = [query: string, expected: Partial<TranscriptionParams>];

const valid: Valid[] = [
  ...['auto', 'm4a', 'm4v', 'mp4', 'mov', '3gp', '3g2', 'pcm_s16le', 'mulaw', 'alaw'].map(
    (e): Valid => [`encoding=${e}`, { encoding: e as TranscriptionParams['encoding'] }],
  ),
  ['sample_rate=8000', { sample_rate: 8000 }],
  ['sample_rate=1000', { sample_rate: 1000 }],
  ['sample_rate=384000', { sample_rate: 384000 }],
  ['sample_rate=016000', { sample_rate: 16000 }],
  ['channels=1', { channels: 1 }],
  ['channels=10', { channels: 10 }],
  ['language=en', { language: ['en'] }],
  ['language=EN', { language: ['en'] }],
  ['language=haw', { language: ['haw'] }],
  ['language=en,de,fr', { language: ['en', 'de', 'fr'] }],
  ['language=en,+de+,+en', { language: ['en', 'de'] }],
  ['phrases=ComfyUI', { phrases: ['ComfyUI'] }],
  ['phrases=ComfyUI,+Jane+Doe+,ComfyUI', { phrases: ['ComfyUI', 'Jane Doe'] }],
  ['phrases=Zürich,東京', { phrases: ['Zürich', '東京'] }],
  [
    `phrases=${Array.from({ length: 250 }, (_, i) => `p${i}`).join(',')}`,
    { phrases: Array.from({ length: 250 }, (_, i) => `p${i}`) },
  ],
  [`phrases=${'x'.repeat(100)}`, { phrases: ['x'.repeat(100)] }],
  ['custom_model_id=cm_1a2B-3c', { custom_model_id: 'cm_1a2B-3c' }],
  ['bias_strength=0', { bias_strength: 0 }],
  ['bias_strength=0.0', { bias_strength: 0 }],
  ['bias_strength=1', { bias_strength: 1 }],
  ['bias_strength=2.5', { bias_strength: 2.5 }],
  ['bias_strength=.5', { bias_strength: 0.5 }],
  ['bias_strength=1e-3', { bias_strength: 0.001 }],
  ['bias_strength=1000', { bias_strength: 1000 }],
  ['include_timestamps=true', { include_timestamps: true }],
  ['include_timestamps=false', { include_timestamps: false }],
  ['include_words=true', { include_words: true }],
  ['include_language=true', { include_language: true }],
  ['include_confidence=true', { include_confidence: true }],
  ['diarize=true', { diarize: true }],
  ['diarize=false', { diarize: false }],
  ['max_speakers=1', { max_speakers: 1 }],
  ['max_speakers=4', { max_speakers: 4 }],
  ['max_speakers=2&diarize=true', { max_speakers: 2, diarize: true }],
  ['patterns=AMZ[0-9]{3}', { patterns: ['AMZ[0-9]{3}'] }],
  ['patterns=[A-Z]{2,3}-[0-9]{1,4},[0-9]{6}', { patterns: ['[A-Z]{2,3}-[0-9]{1,4}', '[0-9]{6}'] }],
  ['patterns=[A-Z]{2}+[0-9]{3}(-[A-Z])%3F', { patterns: ['[A-Z]{2} [0-9]{3}(-[A-Z])?'] }],
  ['filler_mode=clean', { filler_mode: 'clean' }],
  ['filler_mode=natural', { filler_mode: 'natural' }],
  ['filler_mode=verbatim', { filler_mode: 'verbatim' }],
  ['custom_model_id=abc&phrases=x,y', { custom_model_id: 'abc', phrases: ['x', 'y'] }],
];

describe('valid values', () => {
  it.each(valid)('%s', (query, expected) => {
    expect(parse(query)).toEqual({ ...DEFAULT_TRANSCRIPTION_PARAMS, ...expected });
  });

  it.each(valid)('%s survives toQueryString', (query) => {
    const p = parse(query);
    expect(parse(toQueryString(p))).toEqual(p);
  });
});

type Invalid = [query: string, param: string, detail: RegExp];

const invalid: Invalid[] = [
  ['encoding=wav', 'encoding', /"wav" is not one of auto, m4a/],
  ['encoding=AUTO', 'encoding', /not one of/],
  ['encoding=', 'encoding', /"" is not one of/],
  ['encoding=+auto', 'encoding', /not one of/],
  ['sample_rate=', 'sample_rate', /decimal digits/],
  ['sample_rate=+', 'sample_rate', /decimal digits/],
  ['sample_rate=16000.0', 'sample_rate', /decimal digits, got "16000.0"/],
  ['sample_rate=1.6e4', 'sample_rate', /decimal digits/],
  ['sample_rate=0x3E80', 'sample_rate', /decimal digits/],
  ['sample_rate=-16000', 'sample_rate', /decimal digits/],
  ['sample_rate=%2B16000', 'sample_rate', /decimal digits/],
  ['sample_rate=NaN', 'sample_rate', /decimal digits/],
  ['sample_rate=Infinity', 'sample_rate', /decimal digits/],
  ['sample_rate=0', 'sample_rate', /from 1000 to 384000, got "0"/],
  ['sample_rate=999', 'sample_rate', /from 1000 to 384000/],
  ['sample_rate=384001', 'sample_rate', /from 1000 to 384000/],
  ['sample_rate=99999999999999999999999', 'sample_rate', /from 1000 to 384000/],
  ['channels=0', 'channels', /from 1 to 10/],
  ['channels=11', 'channels', /from 1 to 10/],
  ['channels=1.0', 'channels', /decimal digits/],
  ['channels=-0', 'channels', /decimal digits/],
  ['channels=two', 'channels', /decimal digits/],
  ['language=', 'language', /must not be empty/],
  ['language=+', 'language', /must not be empty/],
  ['language=xx', 'language', /unsupported code "xx"; valid codes: af, am, ar/],
  ['language=fy', 'language', /unsupported code "fy"/],
  ['language=en,,de', 'language', /item 2 is empty/],
  ['language=en,', 'language', /item 2 is empty/],
  ['language=english', 'language', /unsupported code "english"/],
  ['phrases=', 'phrases', /must not be empty/],
  ['phrases=a,,b', 'phrases', /item 2 is empty/],
  ['phrases=a,%20', 'phrases', /item 2 is empty/],
  [`phrases=${Array.from({ length: 251 }, (_, i) => `p${i}`).join(',')}`, 'phrases', /251 phrases given; at most 250/],
  [`phrases=${'x'.repeat(101)}`, 'phrases', /phrase 1 is 101 characters long; at most 100/],
  ['phrases=a%00b', 'phrases', /control character/],
  [`phrases=${'a'.repeat(70000)}`, 'phrases', /70000 characters long; at most 65536/],
  ['custom_model_id=', 'custom_model_id', /1 to 128 printable ASCII/],
  ['custom_model_id=a+b', 'custom_model_id', /without spaces, got "a b"/],
  [`custom_model_id=${'a'.repeat(129)}`, 'custom_model_id', /1 to 128/],
  ['bias_strength=', 'bias_strength', /expected a decimal number, got ""/],
  ['bias_strength=+', 'bias_strength', /expected a decimal number, got " "/],
  ['bias_strength=-1', 'bias_strength', /non-negative, got "-1"/],
  ['bias_strength=-0', 'bias_strength', /non-negative, got "-0"/],
  ['bias_strength=-0.0', 'bias_strength', /non-negative/],
  ['bias_strength=NaN', 'bias_strength', /decimal number, got "NaN"/],
  ['bias_strength=Infinity', 'bias_strength', /decimal number, got "Infinity"/],
  ['bias_strength=1e309', 'bias_strength', /must be finite, got "1e309"/],
  ['bias_strength=0x10', 'bias_strength', /decimal number, got "0x10"/],
  ['bias_strength=1,5', 'bias_strength', /decimal number/],
  ['bias_strength=.', 'bias_strength', /decimal number/],
  ['bias_strength=%2B1', 'bias_strength', /decimal number/],
  ['include_timestamps=1', 'include_timestamps', /expected true or false, got "1"/],
  ['include_timestamps=', 'include_timestamps', /expected true or false, got ""/],
  ['include_timestamps', 'include_timestamps', /expected true or false/],
  ['include_words=TRUE', 'include_words', /expected true or false/],
  ['include_language=yes', 'include_language', /expected true or false/],
  ['include_confidence=0', 'include_confidence', /expected true or false/],
  ['diarize=on', 'diarize', /expected true or false/],
  ['diarize=true+', 'diarize', /expected true or false/],
  ['max_speakers=0', 'max_speakers', /from 1 to 4/],
  ['max_speakers=5', 'max_speakers', /from 1 to 4/],
  ['max_speakers=2.5', 'max_speakers', /decimal digits/],
  ['max_speakers=', 'max_speakers', /decimal digits/],
  ['patterns=', 'patterns', /must not be empty/],
  ['patterns=[0-9]{3},', 'patterns', /item 2 is empty/],
  ['patterns=[0-9]{40}', 'patterns', /exceeds 32/],
  ['patterns=[a-z]{3}', 'patterns', /position 2/],
  ['patterns=(AB', 'patterns', /unclosed '\(' at position 1/],
  [`patterns=${Array.from({ length: 51 }, (_, i) => `A${i}`).join(',')}`, 'patterns', /51 patterns given; at most 50/],
  ['filler_mode=none', 'filler_mode', /"none" is not one of clean, natural, verbatim/],
  ['filler_mode=Clean', 'filler_mode', /not one of/],
];

describe('invalid values give 400 invalid_query_parameter naming the parameter', () => {
  it.each(invalid)('%s', (query, param, detail) => {
    const err = errorOf(() => parse(query));
    expect(err.status).toBe(400);
    expect(err.code).toBe('invalid_query_parameter');
    expect(err.detail.startsWith(`${param}: `)).toBe(true);
    expect(err.detail).toMatch(detail);
    expect(err.detail.length).toBeLessThan(1200);
  });
});

describe('unknown and repeated parameters', () => {
  it('rejects an unknown parameter by name', () => {
    const err = errorOf(() => parse('include_word=true'));
    expect(err.code).toBe('invalid_query_parameter');
    expect(err.detail).toMatch(/^"include_word": unknown parameter; known parameters: encoding, sample_rate/);
  });

  it('rejects a repeated parameter, even with the same value', () => {
    for (const q of ['diarize=true&diarize=true', 'language=en&language=de']) {
      const err = errorOf(() => parse(q));
      expect(err.code).toBe('invalid_query_parameter');
      expect(err.detail).toMatch(/given more than once/);
    }
  });

  it('truncates a huge unknown name in the detail', () => {
    const err = errorOf(() => parse(`${'z'.repeat(5000)}=1`));
    expect(err.detail.length).toBeLessThan(400);
    expect(err.detail).toMatch(/5000 characters/);
  });
});

describe('session_rejected combinations', () => {
  it.each([
    ['patterns=[0-9]{4}&phrases=hello', /phrases/],
    ['patterns=[0-9]{4}&custom_model_id=m1', /custom_model_id/],
  ])('%s', (query, detail) => {
    const err = errorOf(() => parse(query));
    expect(err.status).toBe(400);
    expect(err.code).toBe('session_rejected');
    expect(err.detail).toMatch(detail);
  });

  it('an invalid value wins over a forbidden combination', () => {
    expect(errorOf(() => parse('patterns=[0-9]{4}&phrases=a,,b')).code).toBe('invalid_query_parameter');
  });
});

describe('object form (JS API)', () => {
  it('takes native values', () => {
    expect(
      parseTranscriptionParams(
        {
          encoding: 'pcm_s16le',
          sample_rate: 8000,
          channels: 2,
          language: ['EN', 'de'],
          phrases: ['ComfyUI', ' Jane Doe '],
          bias_strength: 1,
          include_timestamps: true,
          include_words: true,
          include_language: true,
          include_confidence: true,
          diarize: true,
          max_speakers: 3,
          filler_mode: 'verbatim',
          custom_model_id: undefined,
          patterns: null,
        },
        ctx,
      ),
    ).toEqual({
      encoding: 'pcm_s16le',
      sample_rate: 8000,
      channels: 2,
      language: ['en', 'de'],
      phrases: ['ComfyUI', 'Jane Doe'],
      custom_model_id: null,
      bias_strength: 1,
      include_timestamps: true,
      include_words: true,
      include_language: true,
      include_confidence: true,
      diarize: true,
      max_speakers: 3,
      patterns: null,
      filler_mode: 'verbatim',
    });
  });

  it('accepts the wire strings too, with the same result as the query form', () => {
    const q = 'language=en,fr&include_words=true&max_speakers=2&bias_strength=0.7&patterns=[0-9]{2,3}';
    const asObject = Object.fromEntries(new URLSearchParams(q));
    expect(parseTranscriptionParams(asObject, ctx)).toEqual(parse(q));
  });

  it('a patterns array keeps commas inside {m,n}', () => {
    expect(parseTranscriptionParams({ patterns: ['[0-9]{2,3}', 'AB[0-9]'] }, ctx).patterns).toEqual([
      '[0-9]{2,3}',
      'AB[0-9]',
    ]);
  });

  it.each<[Record<string, unknown>, string, RegExp]>([
    [{ sample_rate: 16000.5 }, 'sample_rate', /integer/],
    [{ sample_rate: Number.NaN }, 'sample_rate', /integer.*NaN/],
    [{ channels: Infinity }, 'channels', /integer/],
    [{ channels: -0 }, 'channels', /from 1 to 10, got -0/],
    [{ bias_strength: -0 }, 'bias_strength', /non-negative, got -0/],
    [{ bias_strength: Number.NaN }, 'bias_strength', /expected a number, got NaN/],
    [{ bias_strength: Infinity }, 'bias_strength', /finite/],
    [{ bias_strength: -0.1 }, 'bias_strength', /non-negative/],
    [{ bias_strength: true }, 'bias_strength', /expected a number, got a boolean/],
    [{ diarize: 1 }, 'diarize', /true or false, got 1/],
    [{ diarize: 'yes' }, 'diarize', /true or false/],
    [{ language: [] }, 'language', /empty list/],
    [{ language: ['en', 5] }, 'language', /item 2 must be a string/],
    [{ language: ['en,de'] }, 'language', /item 1 contains a comma/],
    [{ phrases: ['a, b'] }, 'phrases', /item 1 contains a comma/],
    [{ phrases: [''] }, 'phrases', /must not be empty/],
    [{ phrases: 42 }, 'phrases', /comma-separated string or an array/],
    [{ patterns: ['[0-9]{2},[A-Z]'] }, 'patterns', /item 1 contains a comma/],
    [{ encoding: ['auto'] }, 'encoding', /expected a string, got an array/],
    [{ custom_model_id: 7 }, 'custom_model_id', /expected a string/],
    [{ max_speakers: 4.0000001 }, 'max_speakers', /integer/],
  ])('%o', (input, param, detail) => {
    const err = errorOf(() => parseTranscriptionParams(input, ctx));
    expect(err.code).toBe('invalid_query_parameter');
    expect(err.detail.startsWith(`${param}: `)).toBe(true);
    expect(err.detail).toMatch(detail);
  });

  it('rejects unknown keys and non-objects', () => {
    expect(errorOf(() => parseTranscriptionParams({ diarise: true }, ctx)).detail).toMatch(/"diarise": unknown/);
    expect(errorOf(() => parseTranscriptionParams([] as unknown as Record<string, unknown>, ctx)).code).toBe(
      'invalid_query_parameter',
    );
    expect(
      errorOf(() => parseTranscriptionParams(new Map() as unknown as Record<string, unknown>, ctx)).detail,
    ).toMatch(/plain object/);
  });

  it('session_rejected applies to the object form as well', () => {
    expect(errorOf(() => parseTranscriptionParams({ patterns: '[0-9]{3}', phrases: ['x'] }, ctx)).code).toBe(
      'session_rejected',
    );
  });
});

describe('supported languages come from the context', () => {
  it('rejects a code the loaded model does not support and lists the valid ones', () => {
    const err = errorOf(() => parseTranscriptionParams({ language: 'de' }, { supportedLanguages: ['en', 'fr'] }));
    expect(err.detail).toBe('language: unsupported code "de"; valid codes: en, fr');
  });
});

describe('toQueryString', () => {
  it('is empty for the defaults and canonical otherwise', () => {
    expect(toQueryString(DEFAULT_TRANSCRIPTION_PARAMS)).toBe('');
    const p = parseTranscriptionParams(
      { diarize: true, language: ['en', 'de'], include_words: true, phrases: ['Jane Doe'], encoding: 'mp4' },
      ctx,
    );
    expect(toQueryString(p)).toBe('encoding=mp4&language=en%2Cde&phrases=Jane+Doe&include_words=true&diarize=true');
  });
});
