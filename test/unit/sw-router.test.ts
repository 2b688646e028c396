import { describe, expect, it } from 'vitest';
import { apiPath, familyOfPath, matchRoute, normalizeBasePath, type Route } from '../../src/sw/router';

const routes: Route<string>[] = [
  { pattern: /^\/v1\/custom-model$/, family: 'custom-model', methods: { GET: 'list', POST: 'create' } },
  { pattern: /^\/v1\/custom-model\/([^/]+)\/phrases$/, family: 'custom-model', methods: { GET: 'phrases' } },
  { pattern: /^\/v1\/speech-to-text\/prerecorded$/, family: 'transcription', methods: { POST: 'transcribe' } },
];

describe('matchRoute', () => {
  it('matches method and path and decodes parameters', () => {
    expect(matchRoute(routes, 'get', '/v1/custom-model/a%20b/phrases')).toEqual({
      kind: 'match',
      handler: 'phrases',
      params: ['a b'],
      family: 'custom-model',
    });
  });

  it('reports the allowed methods for a known path', () => {
    expect(matchRoute(routes, 'DELETE', '/v1/custom-model')).toEqual({
      kind: 'method-not-allowed',
      allow: ['GET', 'POST'],
      family: 'custom-model',
    });
  });

  it('treats undecodable parameters and unknown paths as not found', () => {
    expect(matchRoute(routes, 'GET', '/v1/custom-model/%E0%A4%A/phrases').kind).toBe('not-found');
    expect(matchRoute(routes, 'GET', '/v1/custom-model/')).toEqual({ kind: 'not-found', family: 'custom-model' });
    expect(matchRoute(routes, 'POST', '/v1/speech-to-text/x')).toEqual({ kind: 'not-found', family: 'transcription' });
  });

  it('assigns families by prefix', () => {
    expect(familyOfPath('/v1/auth/x')).toBe('auth');
    expect(familyOfPath('/v1/other')).toBe('custom-model');
  });
});

describe('apiPath', () => {
  const origin = 'https://app.test';
  it('keeps only same-origin paths under <base>/v1', () => {
    expect(apiPath(new URL('https://app.test/v1/custom-model'), origin, '')).toBe('/v1/custom-model');
    expect(apiPath(new URL('https://app.test/v1'), origin, '')).toBe('/v1');
    expect(apiPath(new URL('https://app.test/v1x'), origin, '')).toBeNull();
    expect(apiPath(new URL('https://other.test/v1/custom-model'), origin, '')).toBeNull();
    expect(apiPath(new URL('https://app.test/api/v1/auth/token'), origin, '/api')).toBe('/v1/auth/token');
    expect(apiPath(new URL('https://app.test/v1/auth/token'), origin, '/api')).toBeNull();
  });
});

describe('normalizeBasePath', () => {
  it('gives "" or a leading-slash path without a trailing slash', () => {
    expect(normalizeBasePath(undefined)).toBe('');
    expect(normalizeBasePath('/')).toBe('');
    expect(normalizeBasePath('api/')).toBe('/api');
    expect(normalizeBasePath('/a/b//')).toBe('/a/b');
  });
});
