import { afterAll, describe, expect, it } from 'vitest';
import { createTranscriber } from '../../src/index';
import { evalBytes } from './helpers/clips';

const transcriber = createTranscriber({ model: 'whisper-tiny' });
afterAll(() => transcriber.dispose());

const fixture = async (path: string) => (await fetch(`/__fixtures/${path}`)).arrayBuffer();

describe('diarization through the JS API (whisper-tiny transcribes, truncated whisper-base gives speaker features)', () => {
  it('splits the two-speaker reference clip into two speakers, and into one with max_speakers=1', async () => {
    const bytes = await evalBytes('diar/pyannote_sample.wav');
    const two = await transcriber.transcribe(bytes.slice(0), { language: 'en', diarize: true, max_speakers: 2 });
    expect(Object.keys(two)).toEqual(['text', 'segments']); // rule 2: text and segments only
    const speakers = new Set(two.segments!.map((s) => s.speaker_id));
    expect([...speakers].sort()).toEqual([0, 1]);
    expect(two.segments![0]!.speaker_id).toBe(0); // numbered in order of first appearance
    for (const s of two.segments!) expect(Object.keys(s)).toEqual(['text', 'speaker_id']);

    const one = await transcriber.transcribe(bytes.slice(0), { language: 'en', diarize: true, max_speakers: 1, include_timestamps: true });
    expect(new Set(one.segments!.map((s) => s.speaker_id))).toEqual(new Set([0]));
    // rule 3: top-level times stay beside the segments
    expect(one.start_ms).toBe(0);
    expect(one.duration_ms).toBeGreaterThan(20_000);
    for (const s of one.segments!) expect(s.start_ms).toBeGreaterThanOrEqual(0);
  });
});

describe('vocabulary biasing and patterns through the JS API', () => {
  it('recovers a rare term with phrases, and strength 0 equals no biasing', async () => {
    const clip = await fixture('bias-set/phrase-grafana-slt.wav');
    const plain = await transcriber.transcribe(clip.slice(0), { language: 'en' });
    expect(plain.text).not.toContain('Grafana');
    const biased = await transcriber.transcribe(clip.slice(0), { language: 'en', phrases: 'Grafana,Kubernetes,Ozempic', bias_strength: 1 });
    expect(biased.text).toContain('Grafana');
    const off = await transcriber.transcribe(clip.slice(0), { language: 'en', phrases: 'Grafana,Kubernetes,Ozempic', bias_strength: 0 });
    expect(off).toEqual(plain);
  });

  it('writes a spoken code in its pattern form only when a pattern matches', async () => {
    const clip = await fixture('bias-set/code-amz-slt.wav');
    const matched = await transcriber.transcribe(clip.slice(0), { language: 'en', patterns: 'AMZ[0-9]{3}' });
    expect(matched.text).toMatch(/AMZ\d{3}/);
    const unmatched = await transcriber.transcribe(clip.slice(0), { language: 'en', patterns: 'XR[0-9]{3}' });
    expect(unmatched.text).not.toMatch(/AMZ\d{3}/);
  });

  it('rejects patterns combined with phrases', async () => {
    await expect(transcriber.transcribe(new Float32Array(16000), { phrases: 'a', patterns: '[0-9]{3}' })).rejects.toMatchObject({
      status: 400,
      code: 'session_rejected',
    });
  });
});
