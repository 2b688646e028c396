// Drives the bench page (page.html, built by bench/webgpu/vite.config.ts) from the plan that
// bench/webgpu/serve.py holds: no Node and no Playwright on the GPU machine, only Python and Chromium.
// The page reads its run from ?run=ID, loads that side's driver (bench/pages/ours.ts or peer.ts),
// reports the WebGPU adapter it sees, loads the model, transcribes each clip (the first one twice: the
// first pass compiles shaders and is reported apart), posts every result as it comes, then asks the
// server for the next run.
import type { LoadOptions, TranscribeJob } from '../pages/driver';

interface RunSpec {
  id: string;
  page: 'ours' | 'peer';
  load: LoadOptions;
  clips: Array<TranscribeJob & { key: string }>;
}

async function post(path: string, body: unknown): Promise<void> {
  await fetch(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
}

async function adapterInfo(): Promise<unknown> {
  const gpu = (navigator as Navigator & { gpu?: { requestAdapter(o?: object): Promise<any> } }).gpu;
  if (!gpu) return { gpu: false };
  const adapter = await gpu.requestAdapter({ powerPreference: 'high-performance' }).catch((e: Error) => ({ error: String(e) }));
  if (!adapter || 'error' in adapter) return { gpu: true, adapter: adapter ?? null };
  const info = adapter.info ?? {};
  return {
    gpu: true,
    vendor: info.vendor,
    architecture: info.architecture,
    device: info.device,
    description: info.description,
    fallback: info.isFallbackAdapter ?? adapter.isFallbackAdapter ?? null,
    features: [...(adapter.features ?? [])].sort(),
    maxBufferSize: adapter.limits?.maxBufferSize,
    maxStorageBufferBindingSize: adapter.limits?.maxStorageBufferBindingSize,
  };
}

async function runOne(spec: RunSpec): Promise<void> {
  await (spec.page === 'ours' ? import('../pages/ours') : import('../pages/peer'));
  const driver = window.benchDriver;
  if (!driver) throw new Error(`bench driver missing: ${window.benchDriverError ?? 'not loaded'}`);
  await post('/__gpu/result', { run: spec.id, kind: 'adapter', adapter: await adapterInfo() });
  const load = await driver.load(spec.load);
  await post('/__gpu/result', { run: spec.id, kind: 'load', load });
  for (const [i, clip] of spec.clips.entries()) {
    const passes = i === 0 ? ['warmup', 'clip'] : ['clip'];
    for (const kind of passes) {
      try {
        const { key, ...job } = clip;
        const out = await driver.transcribe(job);
        await post('/__gpu/result', { run: spec.id, kind, clip: key, text: out.transcript.text, wall_ms: out.wall_ms, audio_ms: out.audio_ms });
      } catch (error) {
        await post('/__gpu/result', { run: spec.id, kind, clip: clip.key, error: String(error) });
      }
    }
  }
  const memory = (performance as Performance & { memory?: { usedJSHeapSize: number } }).memory;
  await post('/__gpu/result', { run: spec.id, kind: 'end', jsHeap: memory?.usedJSHeapSize ?? null });
}

export async function autorun(): Promise<void> {
  const id = new URLSearchParams(location.search).get('run');
  if (!id) return;
  try {
    const spec = (await (await fetch(`/__gpu/run/${encodeURIComponent(id)}`)).json()) as RunSpec;
    await runOne(spec);
  } catch (error) {
    await post('/__gpu/result', { run: id, kind: 'failed', error: String(error) }).catch(() => {});
  }
  location.href = '/__gpu/go';
}
