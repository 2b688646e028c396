import { afterAll, describe, expect, it } from 'vitest';
import { createTranscriber } from '../../src/index';
import { engineWorkerOf } from '../../src/transcriber';
import { ApiError } from '../../src/api/errors';
import { SEGMENTATION_MODEL_PATH, SEGMENTATION_MODEL_SHA256 } from '../../config/shared-models';
import { diarizationError, parseRttm } from '../../bench/score/der';
import { evalBytes } from './helpers/clips';

// The real pyannote segmentation-3.0 int8 model, served from ../shared/models (STS_MODELS_DIR) at /__models/.
const MODEL_URL = `/__models/${SEGMENTATION_MODEL_PATH}`;

const withModel = createTranscriber({ model: 'whisper-tiny', segmentationModel: { url: MODEL_URL, sha256: SEGMENTATION_MODEL_SHA256 } });
const wrongHash = createTranscriber({ model: 'whisper-tiny', segmentationModel: { url: MODEL_URL, sha256: 'ab'.repeat(32) } });
const builtIn = createTranscriber({ model: 'whisper-tiny' });
afterAll(() => Promise.all([withModel.dispose(), wrongHash.dispose(), builtIn.dispose()]));

const turnsOf = (segments: Array<{ speaker_id: number; start_ms?: number; duration_ms?: number }>) =>
  segments.map((s) => ({ speaker: String(s.speaker_id), start: s.start_ms! / 1000, end: (s.start_ms! + s.duration_ms!) / 1000 }));

describe('a user-supplied segmentation model', () => {
  it('is refused when its SHA-256 differs, with both hashes in the error, and the engine keeps working', async () => {
    const bytes = await evalBytes('diar/pyannote_sample.wav');
    const err = await wrongHash.transcribe(bytes.slice(0), { language: 'en', diarize: true }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(500);
    expect((err as ApiError).detail).toContain(`expected ${'ab'.repeat(32)}, got ${SEGMENTATION_MODEL_SHA256}`);
    const worker = engineWorkerOf(wrongHash);
    expect(worker).toBeDefined();
    const plain = await wrongHash.transcribe(bytes.slice(0), { language: 'en' });
    expect(plain.text.length).toBeGreaterThan(20);
    expect(engineWorkerOf(wrongHash)).toBe(worker);
  });

  it('rejects a malformed hash when the transcriber is made', () => {
    expect(() => createTranscriber({ segmentationModel: { url: MODEL_URL, sha256: 'd582f4b4' } })).toThrow(/64 hex digits/);
  });

  it('diarizes the two-speaker clip into two speakers with turns close to the reference', async () => {
    const bytes = await evalBytes('diar/pyannote_sample.wav');
    const reference = parseRttm(new TextDecoder().decode(await evalBytes('diar/pyannote_sample.rttm')));
    const out = await withModel.transcribe(bytes, { language: 'en', diarize: true, include_timestamps: true });
    const speakers = new Set(out.segments!.map((s) => s.speaker_id));
    expect([...speakers].sort()).toEqual([0, 1]);
    for (const s of out.segments!) {
      expect(s.duration_ms!).toBeGreaterThan(0);
      expect(s.start_ms! + s.duration_ms!).toBeLessThanOrEqual(out.duration_ms! + 1);
    }
    const der = diarizationError(reference, turnsOf(out.segments!), { collar: 0.25, from: 0, to: out.duration_ms! / 1000 });
    expect(der.der).toBeLessThan(0.15);
  });

  it('finds both speakers of an AMI meeting excerpt with overlapping speech (eval ami_dev01)', async () => {
    const bytes = await evalBytes('diar/ami_dev01.wav');
    const reference = parseRttm(new TextDecoder().decode(await evalBytes('diar/ami_dev01.rttm')));
    const out = await withModel.transcribe(bytes, { language: 'en', diarize: true, include_timestamps: true });
    expect(new Set(out.segments!.map((s) => s.speaker_id)).size).toBeGreaterThan(1);
    const der = diarizationError(reference, turnsOf(out.segments!), { collar: 0.25, from: 0, to: out.duration_ms! / 1000 });
    expect(der.der).toBeLessThan(0.3);
  });

  it('changes nothing when diarization is not asked for', async () => {
    const bytes = await evalBytes('diar/ami_dev00.wav');
    const params = { language: 'en', include_timestamps: true, include_words: true };
    const a = await withModel.transcribe(bytes.slice(0), params);
    const b = await builtIn.transcribe(bytes.slice(0), params);
    expect(a).toEqual(b);
  });
});
