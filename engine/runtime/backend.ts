import type * as OrtModule from 'onnxruntime-web';
import type { BackendChoice } from '../protocol';

export type Ort = typeof OrtModule;
export type Backend = 'wasm' | 'webgpu';

/** A WebGPU adapter that is real hardware, not a software fallback such as SwiftShader. */
async function hasHardwareGpu(): Promise<boolean> {
  const gpu = (navigator as Navigator & { gpu?: { requestAdapter(): Promise<GPUAdapterLike | null> } }).gpu;
  if (!gpu) return false;
  try {
    const adapter = await gpu.requestAdapter();
    if (!adapter) return false;
    const info = adapter.info ?? {};
    const text = `${info.vendor ?? ''} ${info.architecture ?? ''} ${info.description ?? ''}`;
    return !(info.isFallbackAdapter ?? adapter.isFallbackAdapter) && !/swiftshader|llvmpipe|software/i.test(text);
  } catch {
    return false;
  }
}

interface GPUAdapterLike {
  isFallbackAdapter?: boolean;
  info?: { vendor?: string; architecture?: string; description?: string; isFallbackAdapter?: boolean };
}

async function hasAnyGpu(): Promise<boolean> {
  const gpu = (navigator as Navigator & { gpu?: { requestAdapter(): Promise<unknown> } }).gpu;
  return !!gpu && !!(await gpu.requestAdapter().catch(() => null));
}

/**
 * Loads the onnxruntime-web build for the chosen backend: WebGPU when asked (and an adapter exists)
 * or, on 'auto', when a hardware adapter exists; otherwise WASM, multi-threaded when cross-origin isolated.
 */
export async function loadRuntime(
  choice: BackendChoice,
  wasmBaseUrl: string,
  numThreads: number | undefined,
): Promise<{ ort: Ort; backend: Backend; threads: number }> {
  const wantGpu = choice === 'webgpu' ? await hasAnyGpu() : choice === 'auto' ? await hasHardwareGpu() : false;
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
