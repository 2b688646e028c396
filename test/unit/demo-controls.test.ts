import { describe, expect, it } from 'vitest';
import { WHISPER_LANGUAGES } from '../../src/api/languages';
import { DEFAULT_TRANSCRIPTION_PARAMS, parseTranscriptionParams } from '../../src/api/params';
import { paramsFromControls, type ControlValues } from '../../demo/controls';

const untouched: ControlValues = {
  model: 'whisper-base',
  backend: 'auto',
  language: '',
  phrases: '',
  customModelId: '',
  patterns: '',
  biasStrength: '0.45',
  diarize: false,
  maxSpeakers: '',
  timestamps: true,
  words: true,
  confidence: false,
  includeLanguage: false,
  fillerMode: 'natural',
};

const parse = (v: ControlValues) => parseTranscriptionParams(paramsFromControls(v).params, { supportedLanguages: WHISPER_LANGUAGES });

describe('demo controls → transcription parameters', () => {
  it('leave empty fields out, so the service defaults apply', () => {
    const { model, backend, params } = paramsFromControls(untouched);
    expect([model, backend]).toEqual(['whisper-base', 'auto']);
    expect(params).not.toHaveProperty('language');
    expect(params).not.toHaveProperty('phrases');
    expect(params).not.toHaveProperty('custom_model_id');
    expect(params).not.toHaveProperty('patterns');
    expect(params).not.toHaveProperty('max_speakers');
    expect(parse(untouched)).toEqual({ ...DEFAULT_TRANSCRIPTION_PARAMS, include_timestamps: true, include_words: true });
  });

  it('pass every control through the one validator', () => {
    const p = parse({
      ...untouched,
      language: 'en, de,FR',
      phrases: '  flat white \n\ncortado\n',
      customModelId: 'abc-123',
      biasStrength: '0.8',
      diarize: true,
      maxSpeakers: '2',
      confidence: true,
      includeLanguage: true,
      fillerMode: 'verbatim',
    });
    expect(p.language).toEqual(['en', 'de', 'fr']);
    expect(p.phrases).toEqual(['flat white', 'cortado']);
    expect(p.custom_model_id).toBe('abc-123');
    expect(p.bias_strength).toBe(0.8);
    expect([p.diarize, p.max_speakers]).toEqual([true, 2]);
    expect([p.include_confidence, p.include_language, p.filler_mode]).toEqual([true, true, 'verbatim']);
  });

  it('send max speakers only with diarization, and patterns in their wire form', () => {
    expect(paramsFromControls({ ...untouched, maxSpeakers: '3' }).params).not.toHaveProperty('max_speakers');
    expect(parse({ ...untouched, patterns: ' AMZ[0-9]{6}, [A-Z]{2,3} ' }).patterns).toEqual(['AMZ[0-9]{6}', '[A-Z]{2,3}']);
  });

  it('let the validator refuse what the service would refuse', () => {
    expect(() => parse({ ...untouched, language: 'xx' })).toThrow(/language/);
    expect(() => parse({ ...untouched, phrases: 'a, b' })).toThrow(/phrases/);
  });
});
