/**
 * Page side of the demo's offline support: once demo/sw.ts controls the page, tell it which files this
 * page loaded before it was in control (the HTML, scripts, styles), so they are cached too. Files
 * loaded later (the engine worker, onnxruntime's .wasm) pass through the worker and are cached as
 * they come; model files are cached by the library.
 */
import { CACHE_SHELL_MESSAGE, SHELL_CACHE } from './sw-protocol';

/** Same-origin URLs this page has loaded so far. */
export function loadedUrls(): string[] {
  const entries = [...performance.getEntriesByType('navigation'), ...performance.getEntriesByType('resource')];
  const urls = entries.map((e) => e.name).filter((u) => u.startsWith(location.origin));
  return [location.href, ...urls];
}

/** Asks the controlling service worker to cache the app shell; resolves with how many files are cached. */
export function cacheAppShell(timeoutMs = 60_000): Promise<number> {
  const worker = navigator.serviceWorker?.controller;
  if (!worker) return Promise.resolve(0);
  return new Promise((resolve) => {
    const channel = new MessageChannel();
    const timer = setTimeout(() => resolve(0), timeoutMs);
    channel.port1.onmessage = (event: MessageEvent<{ cached?: number }>) => {
      clearTimeout(timer);
      resolve(event.data?.cached ?? 0);
    };
    worker.postMessage({ type: CACHE_SHELL_MESSAGE, urls: loadedUrls() }, [channel.port2]);
  });
}

/** Number of files in the app-shell cache (0 where Cache Storage is unavailable). */
export async function shellCacheSize(): Promise<number> {
  if (!('caches' in self)) return 0;
  if (!(await caches.has(SHELL_CACHE))) return 0;
  return (await (await caches.open(SHELL_CACHE)).keys()).length;
}
