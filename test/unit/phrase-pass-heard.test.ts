import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { generateBiasSet } from '../../bench/bias-set/generate.mjs';
import { encodeClip, loadNodeWhisper, readAudio } from '../../bench/bias-set/node-model';
import { madeUpPhrases } from '../../bench/bias-set/phrase-list';
import { biasPlan, decodeWithPhrases } from '../../engine/biasing/phrases/phrase-pass';
import { DEFAULT_BIAS_STRENGTH } from '../../engine/protocol';
import { decodeWindow } from '../../engine/decoding/fallback';
import type { WhisperModel } from '../../engine/whisper/model';

/**
 * Phrases the model hears where the unbiased pass wrote other words (phrase-pass.ts weighHeard), with the
 * real whisper-base (the default model) in Node, on the bias set's flite clips, among 250 listed phrases.
 */
let model: WhisperModel;

beforeAll(async () => {
  model = await loadNodeWhisper('whisper-base');
}, 120_000);

async function passes(file: string, terms: readonly string[]) {
  const { dir } = generateBiasSet();
  const clip = await encodeClip(model, readAudio(join(dir, file)));
  const opts = { language: 'en', wantAttention: false, audioSeconds: clip.seconds };
  const text = (g: { tokens: readonly { id: number }[] }) => model.vocab.decode(g.tokens.map((t) => t.id)).trim();
  try {
    const first = await decodeWindow(model, clip.encoded, opts);
    const phrases = [...terms, ...madeUpPhrases(250 - terms.length)];
    const biased = await decodeWithPhrases(model, clip.encoded, opts, first, phrases, biasPlan(DEFAULT_BIAS_STRENGTH)!);
    return { firstText: text(first), text: text(biased) };
  } finally {
    clip.encoded.hidden.dispose();
  }
}

describe('phrases heard where the unbiased pass wrote other words (real whisper-base)', () => {
  it('hears a name after the word before it less the s it lent that word', async () => {
    // "My cousin Saoirse studies marine biology in Galway.": the name's first sound became a plural
    const { firstText, text } = await passes('phrase-saoirse-rms.wav', ['Saoirse', 'Galway']);
    expect(firstText).toMatch(/^My cousins year-student/);
    expect(text).toMatch(/^My cousin Saoirse studies marine biology in Galway\.$/);
  }, 300_000);

  it('hears a name again where a name kept before it rewrote the words it was heard in', async () => {
    // "Krzysztof presented the new Zigbee thermostat.": Krzysztof, kept first, rewrote the words where
    // Zigbee was heard ("entered the music") as "presented a music-beath"
    const { firstText, text } = await passes('phrase-zigbee-kal.wav', ['Krzysztof', 'Zigbee']);
    expect(firstText).not.toMatch(/Krzysztof|Zigbee/);
    expect(text).toMatch(/^Krzysztof presented a Zigbee thermostat\.$/);
  }, 300_000);

  it('tries a listed name where the pass pieced together another name, sure of each piece but not of the whole', async () => {
    // "The login page talks to Supabase through a small proxy.": " Super" (-0.31) + "bus" (-0.38)
    const { firstText, text } = await passes('phrase-supabase-rms.wav', ['Supabase']);
    expect(firstText).toMatch(/talks to Superbus through/);
    expect(text).toMatch(/talks to Supabase through a small proxy\.$/);
  }, 300_000);
});
