/**
 * Requests a page's module graph from the dev server once before anything is timed, so that
 * Vite's on-demand transforms and dependency optimisation are not counted as model load time.
 * Follows static imports, dynamic imports and `new URL('...', import.meta.url)` (workers).
 */
export async function warmUp(baseUrl: string, entries: readonly string[], limit = 1000): Promise<number> {
  const seen = new Set<string>();
  const queue = [...entries];
  while (queue.length > 0 && seen.size < limit) {
    const batch = queue.splice(0, 8).filter((p) => !seen.has(p));
    batch.forEach((p) => seen.add(p));
    const bodies = await Promise.all(batch.map((p) => fetchText(baseUrl + p)));
    for (const [i, body] of bodies.entries()) {
      const from = batch[i]!;
      // Pre-bundled dependencies are single files already; paths in their text are only in comments.
      if (from.includes('/.vite')) continue;
      for (const spec of importsOf(body)) {
        const path = new URL(spec, baseUrl + from).pathname + (spec.includes('?') ? spec.slice(spec.indexOf('?')) : '');
        if (!seen.has(path) && !/\.(wasm|onnx|json)(\?|$)/.test(path)) queue.push(path);
      }
    }
  }
  return seen.size;
}

async function fetchText(url: string): Promise<string> {
  const response = await fetch(url);
  return response.ok && /javascript|typescript|html/.test(response.headers.get('content-type') ?? '') ? response.text() : '';
}

const IMPORT = /(?:\bfrom\s*|\bimport\s*\(?\s*|\bnew URL\(\s*(?:\/\*[^*]*\*\/\s*)?|<script[^>]*src=)["']([./][^"']*)["']/g;

function importsOf(code: string): string[] {
  return [...code.matchAll(IMPORT)].map((m) => m[1]!).filter((s) => s.startsWith('/') || s.startsWith('.'));
}
