/**
 * Fetches model files listed in the base URL's manifest.json, reporting progress and checking sha256.
 *
 * Verified files are kept in Cache Storage (MODEL_CACHE, keyed by URL). A cached file is checked
 * against the manifest's sha256 again before use; a corrupt entry is deleted and fetched afresh.
 * manifest.json is cached too and used when the network fails, so a page reloaded offline still
 * loads the models it loaded before.
 */
export interface ManifestEntry {
  path: string;
  bytes: number;
  sha256: string;
}

export type LoadProgress = (file: string, loaded: number, total: number) => void;

/** The Cache Storage cache holding verified model files (and the manifests they were listed in). */
export const MODEL_CACHE = 'localscribe-models-v1';

export interface ModelFilesOptions {
  /** Keep verified files in Cache Storage and reuse them (default true). */
  cache?: boolean;
}

export class ModelFileError extends Error {
  constructor(
    readonly file: string,
    reason: string,
  ) {
    super(`model file ${file}: ${reason}`);
    this.name = 'ModelFileError';
  }
}

export class ModelFiles {
  private constructor(
    private readonly baseUrl: string,
    private readonly entries: Map<string, ManifestEntry>,
    private readonly cache: Cache | null,
  ) {}

  static async open(baseUrl: string, options: ModelFilesOptions = {}): Promise<ModelFiles> {
    const base = baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`;
    const cache = options.cache === false ? null : await openCache();
    const url = new URL('manifest.json', base).href;
    let res: Response | undefined;
    let failure: string;
    try {
      res = await fetch(url);
      failure = res.ok ? '' : `HTTP ${res.status} at ${url}`;
    } catch (err) {
      failure = `cannot fetch ${url} (${(err as Error).message})`;
    }
    if (failure) {
      // Offline (or the host is down): the manifest saved by an earlier load still names the files.
      const cached = await cache?.match(url).catch(() => undefined);
      if (!cached) throw new ModelFileError('manifest.json', failure);
      res = cached;
    }
    let text: string;
    let manifest: { files?: ManifestEntry[] };
    try {
      text = await res!.text();
      manifest = JSON.parse(text);
    } catch {
      throw new ModelFileError('manifest.json', `not JSON at ${url}`);
    }
    if (!Array.isArray(manifest.files)) throw new ModelFileError('manifest.json', 'has no "files" list');
    if (cache && !failure) await putQuietly(cache, url, text, 'application/json');
    return new ModelFiles(base, new Map(manifest.files.map((e) => [e.path, e])), cache);
  }

  /** Total bytes of the given files, for an overall progress bar. */
  totalBytes(paths: readonly string[]): number {
    return paths.reduce((sum, p) => sum + (this.entries.get(p)?.bytes ?? 0), 0);
  }

  async bytes(path: string, onProgress?: LoadProgress): Promise<Uint8Array> {
    const entry = this.entries.get(path);
    if (!entry) throw new ModelFileError(path, 'not listed in manifest.json');
    const url = new URL(path, this.baseUrl).href;
    const cached = await this.fromCache(url, entry);
    if (cached) {
      onProgress?.(path, cached.length, entry.bytes);
      return cached;
    }
    const out = await this.download(path, url, entry, onProgress);
    if (this.cache) await putQuietly(this.cache, url, out, 'application/octet-stream');
    return out;
  }

  async json<T>(path: string, onProgress?: LoadProgress): Promise<T> {
    const bytes = await this.bytes(path, onProgress);
    try {
      return JSON.parse(new TextDecoder().decode(bytes)) as T;
    } catch {
      throw new ModelFileError(path, 'not valid JSON');
    }
  }

  /** The cached copy when its size and sha256 match the manifest; a copy that does not is deleted. */
  private async fromCache(url: string, entry: ManifestEntry): Promise<Uint8Array | null> {
    if (!this.cache) return null;
    try {
      const hit = await this.cache.match(url);
      if (!hit) return null;
      const bytes = new Uint8Array(await hit.arrayBuffer());
      if (bytes.length === entry.bytes && (await sha256(bytes)) === entry.sha256) return bytes;
      await this.cache.delete(url);
    } catch {
      // An unreadable cache is a miss: the network copy replaces it.
    }
    return null;
  }

  private async download(path: string, url: string, entry: ManifestEntry, onProgress?: LoadProgress): Promise<Uint8Array> {
    let res: Response;
    try {
      res = await fetch(url);
    } catch (err) {
      throw new ModelFileError(path, `cannot fetch ${url} (${(err as Error).message})`);
    }
    if (!res.ok || !res.body) throw new ModelFileError(path, `HTTP ${res.status} at ${url}`);
    const out = new Uint8Array(entry.bytes);
    let loaded = 0;
    const reader = res.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (loaded + value.length > out.length) throw new ModelFileError(path, `larger than the ${entry.bytes} bytes in manifest.json`);
      out.set(value, loaded);
      loaded += value.length;
      onProgress?.(path, loaded, entry.bytes);
    }
    if (loaded !== entry.bytes) throw new ModelFileError(path, `truncated: ${loaded} of ${entry.bytes} bytes`);
    const digest = await sha256(out);
    if (digest !== entry.sha256) throw new ModelFileError(path, `corrupt: sha256 ${digest}, expected ${entry.sha256}`);
    return out;
  }
}

export interface ModelCacheInfo {
  /** Cached responses (model files and manifests). */
  entries: number;
  /** Their total size in bytes. */
  bytes: number;
  /** Their URLs. */
  urls: string[];
}

/** Deletes every cached model file; the next load fetches them again. Resolves true if there was a cache. */
export async function clearModelCache(): Promise<boolean> {
  if (typeof caches === 'undefined') return false;
  return caches.delete(MODEL_CACHE);
}

/** What the model cache holds (entries and bytes), e.g. to show before offering clearModelCache(). */
export async function modelCacheInfo(): Promise<ModelCacheInfo> {
  const info: ModelCacheInfo = { entries: 0, bytes: 0, urls: [] };
  if (typeof caches === 'undefined' || !(await caches.has(MODEL_CACHE))) return info;
  const cache = await caches.open(MODEL_CACHE);
  for (const request of await cache.keys()) {
    const res = await cache.match(request);
    if (!res) continue;
    info.entries++;
    info.bytes += (await res.blob()).size;
    info.urls.push(request.url);
  }
  return info;
}

/** Cache Storage exists only in secure contexts (https, localhost); elsewhere files are not cached. */
async function openCache(): Promise<Cache | null> {
  if (typeof caches === 'undefined') return null;
  return caches.open(MODEL_CACHE).catch(() => null);
}

/** A full disk or quota must not fail a load whose bytes are already verified in memory. */
async function putQuietly(cache: Cache, url: string, body: Uint8Array | string, type: string): Promise<void> {
  const bytes = typeof body === 'string' ? body : (body as Uint8Array<ArrayBuffer>);
  await cache.put(url, new Response(bytes, { headers: { 'Content-Type': type } })).catch(() => undefined);
}

/** Hex SHA-256 of `bytes` (WebCrypto: also in workers and node). */
export async function sha256(bytes: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>);
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
}
