import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { generateBiasSet } from '../../bench/bias-set/generate.mjs';
import { encodeClip, loadNodeWhisper, readAudio } from '../../bench/bias-set/node-model';
import { compilePattern } from '../../src/api/patterns';
import { decodeWithPatterns } from '../../engine/biasing/patterns/pattern-pass';
import { applyPatterns } from '../../engine/biasing/patterns/spoken-patterns';
import { spokenCodes, writtenCodes, type CodeForm, type CodeState } from '../../engine/biasing/patterns/code-forms';
import { PatternMatcher } from '../../engine/biasing/patterns/pattern-matcher';
import { decodeWindow } from '../../engine/decoding/fallback';
import type { WhisperModel } from '../../engine/whisper/model';
import { loadEvalClip } from './helpers/audio';

/**
 * The pattern-constrained second pass with the real whisper-tiny (onnxruntime-web's wasm build in Node), on
 * the export's own integer arithmetic: the cases below rest on what tiny mishears with it.
 */
let model: WhisperModel;

beforeAll(async () => {
  model = await loadNodeWhisper('whisper-tiny', { floatArithmetic: [] });
}, 120_000);

const PATTERNS = ['AMZ[0-9]{3}', '[A-Z]{2}[0-9]{3}', 'TK-[0-9]{4}', '[A-Z]{2}[0-9]{2} [A-Z]{3}', '[A-Z][0-9]{3}[A-Z]', 'XR[0-9]{3}'].map(compilePattern);

async function passes(audio: Float32Array, wantAttention: boolean, patterns = PATTERNS) {
  const clip = await encodeClip(model, audio);
  const opts = { language: 'en', wantAttention, audioSeconds: clip.seconds };
  try {
    const first = await decodeWindow(model, clip.encoded, opts);
    const gen = await decodeWithPatterns(model, clip.encoded, opts, first, patterns, 0.45);
    const text = (g: typeof first) => model.vocab.decode(g.tokens.map((t) => t.id)).trim();
    return { first, gen, firstText: text(first), text: text(gen) };
  } finally {
    clip.encoded.hidden.dispose();
  }
}

describe('decodeWithPatterns (real whisper-tiny)', () => {
  it('decodes a code spoken letter by letter as the written code the pattern describes', async () => {
    const { dir } = generateBiasSet();
    // "Flight U, A, nine one six, leaves at noon." — tiny's first pass: "Flight you 8, 9, 1, 6, …"
    const { first, gen, firstText, text } = await passes(readAudio(join(dir, 'code-flight-slt.wav')), true);
    expect(applyPatterns(firstText, PATTERNS)).not.toContain('UA916');
    expect(text).toMatch(/^Flight UA916\b/);
    expect(gen).not.toBe(first);
    for (const t of gen.tokens) expect(t.logprob).toBeLessThanOrEqual(0);
    // one attention row per token, and the end of text's where the window ended with one (as the first
    // pass: both end the same way, at the end of the audio)
    expect(gen.attention).toHaveLength(gen.tokens.length + (first.attention!.length - first.tokens.length));
    expect(gen.attention![0]!.length).toBe(first.attention![0]!.length);
  }, 300_000);

  it('writes a code out as spoken words where the model hears "double" that its written code lost', async () => {
    const { dir } = generateBiasSet();
    // "Your confirmation code is B, seven double five, Q." — tiny writes "B725Q", a code the pattern matches
    const { firstText, text } = await passes(readAudio(join(dir, 'code-confirm-kal.wav')), false);
    expect(applyPatterns(firstText, PATTERNS)).toContain('B725Q');
    expect(text).toMatch(/\bseven double five\b/i);
    expect(applyPatterns(text, PATTERNS)).toMatch(/^Your confirmation code is B755Q\.$/);
  }, 300_000);

  it('does not take a pass that writes a code and stops before the speech does', async () => {
    const { dir } = generateBiasSet();
    // "Flight U, A, nine one six, leaves at noon." in kal's voice, which tiny hears as "So, I do like
    // nine, one, six, leave that new.": under a pattern for "I936" a pass writes "So, I936." and ends,
    // likelier for being shorter
    const { firstText, text } = await passes(readAudio(join(dir, 'code-flight-kal.wav')), false, [compilePattern('I[0-9]{3}[A-Z]?')]);
    expect(firstText).toMatch(/leave that new\.$/);
    expect(text).toMatch(/leave that new\.$/);
  }, 300_000);

  it('steps a code a token at a time to the state its next tokens were listed with (the constraint replays hypotheses so)', () => {
    const matcher = new PatternMatcher(PATTERNS);
    const agrees = <S extends CodeState>(form: CodeForm<S>) => {
      let state = form.start;
      for (const first of [true, false, false]) {
        const next = form.next(state, first, () => true);
        expect(next.length).toBeGreaterThan(0);
        for (const n of next) expect(form.step(state, n.id, first)).toEqual(n.state);
        state = next.find((n) => n.state.open)!.state;
      }
      expect(form.step(form.start, model.vocab.eot, true)).toBeNull();
    };
    agrees(writtenCodes(model.vocab, matcher));
    agrees(spokenCodes(model.vocab, matcher));
    // a written code's first token follows a space
    const written = writtenCodes(model.vocab, matcher);
    expect(written.step(written.start, model.vocab.encode('AMZ')[0]!, true)).toBeNull();
    expect(written.step(written.start, model.vocab.encode(' AMZ')[0]!, true)).not.toBeNull();
  });

  it('returns the first pass itself for speech without a code', async () => {
    const { first, gen } = await passes(loadEvalClip('en/jfk.flac'), false);
    expect(gen).toBe(first);
  }, 300_000);
});
