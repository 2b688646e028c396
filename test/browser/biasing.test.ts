import { beforeAll, describe, expect, it } from 'vitest';
import { compilePattern } from '../../src/api/patterns';
import { decodeAudio } from '../../src/audio';
import { biasPlan, decodeWithPhrases } from '../../engine/biasing/phrases/phrase-pass';
import { applyPatterns } from '../../engine/biasing/patterns/spoken-patterns';
import { decodeWindow } from '../../engine/decoding/fallback';
import { FULL_FRAMES, logMelSpectrogram } from '../../engine/whisper/features';
import { DEFAULT_BIAS_STRENGTH, SAMPLE_RATE } from '../../engine/protocol';
import { ModelFiles } from '../../engine/runtime/model-files';
import { steeringFor } from '../../engine/decoding/steering';
import { loadRuntime, sessionOptions } from '../../engine/runtime/backend';
import { loadWhisper } from '../../engine/whisper/loader';
import type { EncodedWindow, WhisperModel } from '../../engine/whisper/model';
import { evalBytes } from './helpers/clips';

/**
 * Biasing with the real whisper-tiny in Chromium, through a small harness (the model loaded as the
 * engine loads it, one 30 s window decoded by the engine's decode loop) rather than the engine.
 */
let model: WhisperModel;

beforeAll(async () => {
  const files = await ModelFiles.open(new URL('/models/', location.href).href);
  const { ort } = await loadRuntime('wasm', new URL('/ort/', location.href).href, 1);
  model = await loadWhisper(ort, files, 'whisper-tiny', sessionOptions('wasm'));
});

async function encodeBytes(bytes: ArrayBuffer): Promise<{ encoded: EncodedWindow; seconds: number }> {
  const audio = await decodeAudio(bytes, { encoding: 'auto', sampleRate: SAMPLE_RATE, channels: 1 });
  const clip = audio.subarray(0, SAMPLE_RATE * 30);
  return { encoded: await model.encode(logMelSpectrogram(clip, FULL_FRAMES), FULL_FRAMES), seconds: clip.length / SAMPLE_RATE };
}

/** The unbiased pass, as the engine decodes a window. */
async function decode(clip: { encoded: EncodedWindow; seconds: number }) {
  const gen = await decodeWindow(model, clip.encoded, { language: 'en', wantAttention: false, audioSeconds: clip.seconds });
  const ids = gen.tokens.map((t) => t.id);
  return { ids, text: model.vocab.decode(ids).trim() };
}

/** What `run` returns, and how many decoding passes (WhisperModel.generate) it ran. */
async function countingDecodes<T>(run: () => Promise<T>): Promise<{ result: T; decodes: number }> {
  const generate = model.generate.bind(model);
  let decodes = 0;
  model.generate = (...args) => {
    decodes++;
    return generate(...args);
  };
  try {
    return { result: await run(), decodes };
  } finally {
    model.generate = generate;
  }
}

async function fixture(path: string): Promise<ArrayBuffer> {
  const res = await fetch(`/__fixtures/bias-set/${path}`);
  if (!res.ok) throw new Error(`missing ${path}: generate the bias set first (node bench/bias-set/generate.mjs)`);
  return res.arrayBuffer();
}

describe('vocabulary biasing with whisper-tiny (real model, real Chromium)', () => {
  /** The engine's biased decoding (engine/biasing/phrases/phrase-pass.ts) after an unbiased pass. */
  async function decodeBiased(clip: { encoded: EncodedWindow; seconds: number }, phrases: string[], strength: number, wantAttention = false) {
    const opts = { language: 'en', wantAttention, audioSeconds: clip.seconds };
    const first = await decodeWindow(model, clip.encoded, opts);
    const gen = await decodeWithPhrases(model, clip.encoded, opts, first, phrases, biasPlan(strength)!);
    if (wantAttention) {
      // a winning proposal is aligned afterwards: a row per token (and the end of text's), over every frame
      expect(gen.attention!.length - gen.tokens.length).toBeGreaterThanOrEqual(0);
      expect(gen.attention!.length - gen.tokens.length).toBeLessThanOrEqual(1);
      for (const row of gen.attention!) expect(row.length % clip.encoded.frames).toBe(0);
    }
    return model.vocab.decode(gen.tokens.map((t) => t.id)).trim();
  }

  it('recovers "ComfyUI" in a real recording that the unbiased model misses', async () => {
    const clip = await encodeBytes(await evalBytes('bias/fw_hotwords.mp3'));
    const plain = await decode(clip);
    const biased = await decodeBiased(clip, ['ComfyUI', 'Ozempic', 'Grafana'], 1);
    console.log(`plain «${plain.text}»\nbiased «${biased}»`);
    expect(plain.text).not.toContain('ComfyUI');
    expect(biased).toContain('ComfyUI');
    // the rest of the sentence survives
    expect(biased).toMatch(/go into your/i);
  });

  it.each([
    { how: 'a rare name the unbiased pass misheard', file: 'phrase-grafana-slt.wav', phrase: 'Grafana', plain: /dashboard into/, biased: /dashboard into Grafana/ },
    // "play right": the pass was sure of both words; the listed spelling is spliced over them
    { how: 'a name the unbiased pass split into words that sound the same', file: 'phrase-vitest-slt.wav', phrase: 'Playwright', plain: /run play right/, biased: /run playwright/i },
  ])('recovers $how at the default strength, with 249 unrelated phrases listed', async ({ file, phrase, plain: heard, biased: recovered }) => {
    const clip = await encodeBytes(await fixture(file));
    const plain = await decode(clip);
    const others = Array.from({ length: 249 }, (_, i) => `Zorblax${i}`);
    const biased = await decodeBiased(clip, [...others, phrase], DEFAULT_BIAS_STRENGTH, true);
    console.log(`plain «${plain.text}»\nbiased «${biased}»`);
    expect(plain.text).toMatch(heard);
    expect(plain.text.toLowerCase()).not.toContain(phrase.toLowerCase());
    expect(biased).toMatch(recovered);
    expect(biased).not.toMatch(/Zorblax/);
  });

  it('leaves unrelated speech as the unbiased pass hears it at the default strength', async () => {
    for (const file of ['unrelated-garden-slt.wav', 'unrelated-folder-slt.wav']) {
      const clip = await encodeBytes(await fixture(file));
      const plain = await decode(clip);
      expect(await decodeBiased(clip, ['Grafana', 'Galway', 'Zigbee', 'Ozempic', 'Hetzner', 'Folderol'], DEFAULT_BIAS_STRENGTH)).toBe(plain.text);
    }
  });

  it('gives no second look to a window whose every word the unbiased pass was sure of', async () => {
    const clip = await encodeBytes(await fixture('unrelated-folder-slt.wav'));
    const opts = { language: 'en', wantAttention: false, audioSeconds: clip.seconds };
    const first = await decodeWindow(model, clip.encoded, opts);
    // the near miss "folder" is listed: a second look would find it, but the pass was sure of every word
    const phrases = ['Folderol', 'Desktopia', ...Array.from({ length: 248 }, (_, i) => `Zorblax${i}`)];
    const { result, decodes } = await countingDecodes(() => decodeWithPhrases(model, clip.encoded, opts, first, phrases, biasPlan(1)!));
    expect(result).toBe(first);
    expect(decodes).toBe(0);
  });

  it('weighs a same-sounding spelling in a window it was sure of, and keeps what the audio bears out', async () => {
    const clip = await encodeBytes(await fixture('unrelated-folder-slt.wav'));
    const opts = { language: 'en', wantAttention: true, audioSeconds: clip.seconds };
    const first = await decodeWindow(model, clip.encoded, opts);
    expect(model.vocab.decode(first.tokens.map((t) => t.id))).toMatch(/her photos in a folder/);
    const compared: string[] = [];
    // "Inafolder" sounds the same as "in a folder", written as more words: worth a splice, though the
    // pass was sure of every word ("Fotos" for "photos" is a word for word respelling: not looked at)
    const phrases = ['Inafolder', 'Fotos', 'Zorblax'];
    const result = await decodeWithPhrases(model, clip.encoded, opts, first, phrases, biasPlan(DEFAULT_BIAS_STRENGTH)!, (c) => compared.push(`${c.how}: ${c.cost.toFixed(1)}`));
    console.log(compared);
    expect(compared).toContainEqual(expect.stringMatching(/^splice over "in a folder"/));
    // the model hears "in a folder" far likelier than the name: the pass is kept
    expect(result).toBe(first);
  });

  it('strength 0 decodes exactly as without biasing', async () => {
    const clip = await encodeBytes(await evalBytes('bias/fw_hotwords.mp3'));
    const plain = await decode(clip);
    const request = {
      audio: new Float32Array(0),
      languages: ['en'],
      phrases: ['ComfyUI', 'Ozempic', 'folder'],
      biasStrength: 0,
      patterns: [],
      fillerMode: 'natural' as const,
      wantWordTimes: false,
      diarize: false,
      maxSpeakers: null,
    };
    const zero = await steeringFor(model, request).decode(clip.encoded, { language: 'en', wantAttention: false, audioSeconds: clip.seconds });
    expect(zero.tokens.map((t) => t.id)).toEqual(plain.ids);
    const on = await steeringFor(model, { ...request, biasStrength: 1 }).decode(clip.encoded, { language: 'en', wantAttention: false, audioSeconds: clip.seconds });
    expect(on.tokens.map((t) => t.id)).not.toEqual(plain.ids);
  });

  it('recovers a spoken code that matches a pattern, and only then', async () => {
    const clip = await encodeBytes(await fixture('code-amz-slt.wav'));
    const { text } = await decode(clip);
    const recovered = applyPatterns(text, [compilePattern('AMZ[0-9]{3}')]);
    console.log(`plain «${text}» → «${recovered}»`);
    expect(text).not.toContain('AMZ471');
    expect(recovered).toContain('AMZ471');
    expect(applyPatterns(text, [compilePattern('XR[0-9]{3}')])).toBe(text);
  });
});
