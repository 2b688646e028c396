/** Fetches model files listed in the base URL's manifest.json, reporting progress and checking sha256. */
export interface ManifestEntry {
  path: string;
  bytes: number;
  sha256: string;
}

export type LoadProgress = (file: string, loaded: number, total: number) => void;

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
  ) {}

  static async open(baseUrl: string): Promise<ModelFiles> {
    const base = baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`;
    const url = new URL('manifest.json', base).href;
    let res: Response;
    try {
      res = await fetch(url);
    } catch (err) {
      throw new ModelFileError('manifest.json', `cannot fetch ${url} (${(err as Error).message})`);
    }
    if (!res.ok) throw new ModelFileError('manifest.json', `HTTP ${res.status} at ${url}`);
    let manifest: { files?: ManifestEntry[] };
    try {
      manifest = await res.json();
    } catch {
      throw new ModelFileError('manifest.json', `not JSON at ${url}`);
    }
    if (!Array.isArray(manifest.files)) throw new ModelFileError('manifest.json', 'has no "files" list');
    return new ModelFiles(base, new Map(manifest.files.map((e) => [e.path, e])));
  }

  /** Total bytes of the given files, for an overall progress bar. */
  totalBytes(paths: readonly string[]): number {
    return paths.reduce((sum, p) => sum + (this.entries.get(p)?.bytes ?? 0), 0);
  }

  async bytes(path: string, onProgress?: LoadProgress): Promise<Uint8Array> {
    const entry = this.entries.get(path);
    if (!entry) throw new ModelFileError(path, 'not listed in manifest.json');
    const url = new URL(path, this.baseUrl).href;
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
    const digest = hex(await crypto.subtle.digest('SHA-256', out));
    if (digest !== entry.sha256) throw new ModelFileError(path, `corrupt: sha256 ${digest}, expected ${entry.sha256}`);
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
}

function hex(buf: ArrayBuffer): string {
  return [...new Uint8Array(buf)].map((b) => b.toString(16).padStart(2, '0')).join('');
}
