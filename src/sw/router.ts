/**
 * Matches a request path (relative to the API's base path, starting at /v1) against a route table.
 * Paths are matched exactly (no trailing-slash folding); path parameters are percent-decoded.
 */
export type Family = 'transcription' | 'custom-model' | 'auth';

export interface Route<H> {
  pattern: RegExp;
  family: Family;
  methods: Partial<Record<string, H>>;
}

export type RouteMatch<H> =
  | { kind: 'match'; handler: H; params: string[]; family: Family }
  | { kind: 'method-not-allowed'; allow: string[]; family: Family }
  | { kind: 'not-found'; family: Family };

/** The family whose error format a path's 404 uses: transcription paths answer in problem+json. */
export function familyOfPath(path: string): Family {
  if (path.startsWith('/v1/speech-to-text')) return 'transcription';
  if (path.startsWith('/v1/auth')) return 'auth';
  return 'custom-model';
}

export function matchRoute<H>(routes: readonly Route<H>[], method: string, path: string): RouteMatch<H> {
  for (const route of routes) {
    const m = route.pattern.exec(path);
    if (!m) continue;
    let params: string[];
    try {
      params = m.slice(1).map((p) => decodeURIComponent(p));
    } catch {
      return { kind: 'not-found', family: route.family };
    }
    const handler = route.methods[method.toUpperCase()];
    if (!handler) return { kind: 'method-not-allowed', allow: Object.keys(route.methods), family: route.family };
    return { kind: 'match', handler, params, family: route.family };
  }
  return { kind: 'not-found', family: familyOfPath(path) };
}

/**
 * The path of `url` relative to `basePath` when it lies under `<basePath>/v1`, else null (the request
 * is not ours and must pass through untouched).
 */
export function apiPath(url: URL, origin: string, basePath: string): string | null {
  if (url.origin !== origin) return null;
  if (!url.pathname.startsWith(basePath)) return null;
  const rest = url.pathname.slice(basePath.length);
  return rest === '/v1' || rest.startsWith('/v1/') ? rest : null;
}

/** '' for the origin root; otherwise a path starting with '/' and without a trailing '/'. */
export function normalizeBasePath(raw: string | null | undefined): string {
  const trimmed = (raw ?? '').trim().replace(/\/+$/, '');
  if (trimmed === '') return '';
  return trimmed.startsWith('/') ? trimmed : `/${trimmed}`;
}
