import { afterAll, describe, expect, it } from 'vitest';
import { createTranscriber } from '../../src/index';
import { errorRateOf, evalBytes, manifest } from './helpers/clips';

// WebGPU here is SwiftShader, a software adapter about 50x slower than WASM (../shared/ENVIRONMENT.md):
// this shows that the WebGPU path loads and transcribes, never how fast it is (bench/webgpu/ measures
// that on a real GPU). One short clip only.
const transcriber = createTranscriber({ model: 'whisper-tiny', backend: 'webgpu' });
afterAll(() => transcriber.dispose());

describe('the WebGPU backend (real whisper-tiny, SwiftShader)', () => {
  it('loads on WebGPU (both graphs in float arithmetic there) and transcribes a clip word for word', async () => {
    const info = await transcriber.load();
    expect(info.backend).toBe('webgpu');
    const clip = (await manifest('en')).find((c) => c.file === '1089-134691-0000.flac')!;
    const out = await transcriber.transcribe(await evalBytes('en/1089-134691-0000.flac'), { language: 'en' });
    console.log(`whisper-tiny on WebGPU: «${out.text}»`);
    expect(await errorRateOf(clip.text, out.text, 'en')).toBe(0);
  });
});
