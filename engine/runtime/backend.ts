import type * as OrtModule from 'onnxruntime-web';
import type { ModelWithData } from '../onnx/protobuf';
import type { BackendChoice } from '../protocol';

export type Ort = typeof OrtModule;
export type Backend = 'wasm' | 'webgpu';

async function hasAnyGpu(): Promise<boolean> {
  const gpu = (navigator as Navigator & { gpu?: { requestAdapter(): Promise<unknown> } }).gpu;
  return !!gpu && !!(await gpu.requestAdapter().catch(() => null));
}

/**
 * Loads the onnxruntime-web build for the chosen backend: WebGPU only when asked (and an adapter exists),
 * otherwise WASM, multi-threaded when cross-origin isolated. 'auto' is WASM: with the q8 weights the
 * packages ship, WebGPU ran 5-10x slower than WASM even on a data-centre GPU (bench/webgpu/README.md).
 */
export async function loadRuntime(
  choice: BackendChoice,
  wasmBaseUrl: string,
  numThreads: number | undefined,
): Promise<{ ort: Ort; backend: Backend; threads: number }> {
  const wantGpu = choice === 'webgpu' && (await hasAnyGpu());
  const ort: Ort = wantGpu ? await import('onnxruntime-web/webgpu') : await import('onnxruntime-web/wasm');
  const isolated = (globalThis as { crossOriginIsolated?: boolean }).crossOriginIsolated === true;
  const cores = navigator.hardwareConcurrency || 1;
  const threads = isolated ? Math.max(1, Math.min(numThreads ?? Math.min(4, cores), 16)) : 1;
  ort.env.wasm.numThreads = threads;
  // Only the .wasm is fetched: the JS glue is bundled into the onnxruntime-web entry we imported. Without a
  // base URL onnxruntime-web finds it next to itself (new URL(..., import.meta.url)), which bundlers emit.
  if (wasmBaseUrl) {
    const base = wasmBaseUrl.endsWith('/') ? wasmBaseUrl : `${wasmBaseUrl}/`;
    ort.env.wasm.wasmPaths = { wasm: `${base}${wantGpu ? 'ort-wasm-simd-threaded.asyncify.wasm' : 'ort-wasm-simd-threaded.wasm'}` };
  }
  ort.env.logLevel = 'error';
  return { ort, backend: wantGpu ? 'webgpu' : 'wasm', threads };
}

export function sessionOptions(backend: Backend): OrtModule.InferenceSession.SessionOptions {
  return { executionProviders: [backend], graphOptimizationLevel: 'all' };
}

/**
 * A session of the model `make` returns, made just now so that its graph lives only while the session is
 * created. Its callers hand the weights over as external files (withExternalInitializers, before they
 * patch): onnxruntime-web then copies each weight once into its heap, where the whole model and a
 * parsed copy of it would otherwise sit side by side (bench/README.md).
 */
export async function createSession(ort: Ort, make: () => ModelWithData, options: OrtModule.InferenceSession.SessionOptions): Promise<OrtModule.InferenceSession> {
  const { model, externalData } = make();
  return ort.InferenceSession.create(model, { ...options, externalData });
}
