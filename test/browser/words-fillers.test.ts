import { afterAll, describe, expect, it } from 'vitest';
import { createTranscriber } from '../../src/index';
import { isFiller } from '../../engine/postprocess/fillers';
import { evalBytes } from './helpers/clips';

const transcriber = createTranscriber({ model: 'whisper-tiny' });
afterAll(() => transcriber.dispose());

const bare = (w: string) => w.toLowerCase().replace(/[\p{P}]/gu, '');
const fillersIn = (words: string[]) => words.filter((w) => isFiller(w, 'en'));

describe('filler_mode with whisper-tiny', () => {
  it('on a conversation (../shared/eval/diar): clean writes no filler and keeps every other word of natural, verbatim writes more fillers', async () => {
    const bytes = await evalBytes('diar/pyannote_sample.wav');
    const words: Record<string, string[]> = {};
    for (const mode of ['natural', 'clean', 'verbatim'] as const) {
      const out = await transcriber.transcribe(bytes.slice(0), { language: 'en', filler_mode: mode, include_words: true });
      words[mode] = out.words!.map((w) => w.text);
      console.log(`${mode}: fillers [${fillersIn(words[mode]!).join(' ')}] «${out.text}»`);
    }
    expect(fillersIn(words['clean']!)).toEqual([]);
    // clean is natural without its fillers: no real word lost or changed
    expect(words['clean']!.map(bare)).toEqual(words['natural']!.filter((w) => !isFiller(w, 'en')).map(bare));
    expect(fillersIn(words['verbatim']!).length).toBeGreaterThan(fillersIn(words['natural']!).length);
  });

  it('verbatim adds no fillers to fluent read speech', async () => {
    const out = await transcriber.transcribe(await evalBytes('en/jfk.flac'), { language: 'en', filler_mode: 'verbatim', include_words: true });
    expect(fillersIn(out.words!.map((w) => w.text))).toEqual([]);
    expect(out.text.toLowerCase()).toContain('ask not what your country can do for you');
  });
});
