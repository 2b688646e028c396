import { beforeEach, describe, expect, it } from 'vitest';
import { clearModelCache, createTranscriber, MODEL_CACHE, modelCacheInfo } from '../../src/index';
import { ModelFiles } from '../../engine/runtime/model-files';
import { VAD_MODEL_PATH } from '../../engine/vad/silero';

// The real model files from public/models/, fetched from the other loopback name of the test server:
// a cross-origin modelBaseUrl (CORS) under the page's cross-origin isolation.
const crossHost = location.hostname === 'localhost' ? '127.0.0.1' : 'localhost';
const BASE = `${location.protocol}//${crossHost}:${location.port}/models/`;
const VAD = VAD_MODEL_PATH;
const CONFIG = 'whisper-tiny/config.json';
// Nothing listens on port 9 (discard): every fetch there fails, as it would offline.
const UNREACHABLE = 'http://127.0.0.1:9/models/';

performance.setResourceTimingBufferSize(100_000);
/** Network fetches of `url` so far (Cache Storage hits leave no resource timing entry). */
const fetchesOf = (url: string) => performance.getEntriesByType('resource').filter((e) => e.name === url).length;
/** Byte equality (expect().toEqual walks megabytes element by element). */
const same = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((v, i) => v === b[i]);

beforeEach(async () => {
  await clearModelCache();
});

describe('model files in Cache Storage (real Chromium, real model files)', () => {
  it('is cross-origin: the test base URL is another origin than the page', () => {
    expect(new URL(BASE).origin).not.toBe(location.origin);
    expect(crossOriginIsolated).toBe(true);
  });

  it('caches verified files and serves the second load from the cache, not the network', async () => {
    const first = await ModelFiles.open(BASE);
    const vad = await first.bytes(VAD);
    const config = await first.json<{ d_model: number }>(CONFIG);
    expect(config.d_model).toBe(384);
    const vadUrl = new URL(VAD, BASE).href;
    const fetched = fetchesOf(vadUrl);
    expect(fetched).toBeGreaterThanOrEqual(1);

    const info = await modelCacheInfo();
    expect(info.urls.sort()).toEqual([new URL('manifest.json', BASE).href, new URL(CONFIG, BASE).href, vadUrl].sort());
    expect(info.entries).toBe(3);
    expect(info.bytes).toBeGreaterThan(vad.length);

    const progress: number[] = [];
    const second = await ModelFiles.open(BASE);
    const again = await second.bytes(VAD, (_file, loaded) => progress.push(loaded));
    expect(fetchesOf(vadUrl)).toBe(fetched);
    expect(same(again, vad)).toBe(true);
    expect(progress).toEqual([vad.length]);
  });

  it('detects a corrupted cache entry, deletes it and fetches the file again', async () => {
    const vadUrl = new URL(VAD, BASE).href;
    const good = await (await ModelFiles.open(BASE)).bytes(VAD);
    const corrupt = good.slice();
    corrupt[1000] = good[1000]! ^ 0xff;
    const cache = await caches.open(MODEL_CACHE);
    await cache.put(vadUrl, new Response(corrupt));
    const before = fetchesOf(vadUrl);

    const loaded = await (await ModelFiles.open(BASE)).bytes(VAD);
    expect(same(loaded, good)).toBe(true);
    expect(fetchesOf(vadUrl)).toBe(before + 1);
    const repaired = new Uint8Array(await (await cache.match(vadUrl))!.arrayBuffer());
    expect(same(repaired, good)).toBe(true);
    expect(same(repaired, corrupt)).toBe(false);
  });

  it('loads from the cache with the network down when manifest.json was cached too', async () => {
    await expect(ModelFiles.open(UNREACHABLE)).rejects.toThrow(/manifest\.json: cannot fetch/);

    // What an earlier, online load from that URL would have left in the cache.
    const cache = await caches.open(MODEL_CACHE);
    for (const path of ['manifest.json', VAD]) {
      const res = await fetch(new URL(path, BASE));
      await cache.put(new URL(path, UNREACHABLE).href, new Response(await res.arrayBuffer()));
    }
    const offline = await ModelFiles.open(UNREACHABLE);
    const vad = await offline.bytes(VAD);
    expect(vad.length).toBe(offline.totalBytes([VAD]));
    // A file that was never cached still fails, naming the file.
    await expect(offline.bytes(CONFIG)).rejects.toThrow(/whisper-tiny\/config\.json: cannot fetch/);
  });

  it('caches nothing when caching is off', async () => {
    const explicit = await ModelFiles.open(BASE, { cache: false });
    await explicit.bytes(CONFIG);
    expect((await modelCacheInfo()).entries).toBe(0);
  });

  it('clearModelCache empties the cache', async () => {
    await (await ModelFiles.open(BASE)).bytes(CONFIG);
    expect((await modelCacheInfo()).entries).toBe(2);
    expect(await clearModelCache()).toBe(true);
    expect(await modelCacheInfo()).toEqual({ entries: 0, bytes: 0, urls: [] });
    expect(await caches.has(MODEL_CACHE)).toBe(false);
  });

  it('the transcriber option reaches the engine worker: cache false loads without caching, the default caches', async () => {
    const uncached = createTranscriber({ model: 'whisper-tiny', modelBaseUrl: BASE, cache: false });
    await uncached.load();
    await uncached.dispose();
    expect((await modelCacheInfo()).entries).toBe(0);

    const cached = createTranscriber({ model: 'whisper-tiny', modelBaseUrl: BASE });
    await cached.load();
    await cached.dispose();
    const info = await modelCacheInfo();
    expect(info.entries).toBe(8); // manifest.json, 6 whisper-tiny files, the VAD
    expect(info.urls).toContain(new URL('whisper-tiny/onnx/encoder_model_quantized.onnx', BASE).href);
  });
});
