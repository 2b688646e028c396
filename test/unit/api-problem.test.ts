import { describe, expect, it } from 'vitest';
import {
  ApiError,
  internalError,
  invalidAudio,
  invalidParam,
  payloadTooLarge,
  sessionRejected,
  unauthorized,
} from '../../src/api/errors';
import { customModelErrorResponse, problemResponse, toApiError } from '../../src/api/problem';

async function read(res: Response) {
  return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
}

describe('problemResponse: every row of spec 7.2', () => {
  it.each<[ApiError, number, string | undefined, string]>([
    [invalidAudio('no audio stream'), 400, 'invalid_audio', 'Bad Request'],
    [invalidParam('channels: must be from 1 to 10, got "11"'), 400, 'invalid_query_parameter', 'Bad Request'],
    [sessionRejected('unknown custom_model_id "x"'), 400, 'session_rejected', 'Bad Request'],
    [unauthorized('missing Authorization header'), 401, 'unauthorized', 'Unauthorized'],
    [sessionRejected('credit exhausted', 402), 402, 'session_rejected', 'Payment Required'],
    [payloadTooLarge('body exceeds 104857600 bytes'), 413, undefined, 'Content Too Large'],
    [sessionRejected('too many concurrent transcriptions', 429), 429, 'session_rejected', 'Too Many Requests'],
    [internalError('engine crashed'), 500, 'internal_server_error', 'Internal Server Error'],
  ])('%s', async (err, status, code, title) => {
    const res = await read(problemResponse(err));
    expect(res.status).toBe(status);
    expect(res.type).toBe('application/problem+json');
    const expected = JSON.stringify({ type: 'about:blank', title, status, detail: err.detail, ...(code ? { code } : {}) });
    expect(res.text).toBe(expected);
  });

  it('413 has no code even if one was set', async () => {
    const body = JSON.parse((await read(problemResponse(new ApiError(413, 'invalid_audio', 'too big')))).text);
    expect('code' in body).toBe(false);
  });

  it('translates custom-model codes that have a transcription equivalent', async () => {
    const body = JSON.parse((await read(problemResponse(new ApiError(401, 'UNAUTHORIZED', 'bad key')))).text);
    expect(body.code).toBe('unauthorized');
  });

  it('adds caller headers and no-store', () => {
    const res = problemResponse(unauthorized('x'), { 'WWW-Authenticate': 'Bearer' });
    expect(res.headers.get('www-authenticate')).toBe('Bearer');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('content-type')).toBe('application/problem+json');
  });
});

describe('customModelErrorResponse: every row of spec 7.1', () => {
  it.each<[ApiError, number, string]>([
    [new ApiError(400, 'INVALID_REQUEST', 'phrases must not be empty'), 400, 'INVALID_REQUEST'],
    [new ApiError(401, 'UNAUTHORIZED', 'token expired'), 401, 'UNAUTHORIZED'],
    [new ApiError(404, 'NOT_FOUND', 'no custom model "abc"'), 404, 'NOT_FOUND'],
    [new ApiError(500, 'INTERNAL_ERROR', 'IndexedDB unavailable'), 500, 'INTERNAL_ERROR'],
    [unauthorized('missing header'), 401, 'UNAUTHORIZED'],
    [invalidParam('size: bad'), 400, 'INVALID_REQUEST'],
    [internalError('boom'), 500, 'INTERNAL_ERROR'],
    [new ApiError(405, undefined, 'use GET'), 405, 'INVALID_REQUEST'],
  ])('%s', async (err, status, code) => {
    const res = await read(customModelErrorResponse(err));
    expect(res.status).toBe(status);
    expect(res.type).toBe('application/json');
    expect(res.text).toBe(JSON.stringify({ code, message: err.detail }));
  });
});

describe('toApiError', () => {
  it('passes ApiError through', () => {
    const e = invalidAudio('x');
    expect(toApiError(e)).toBe(e);
  });

  it('wraps anything else as 500 without leaking message or stack', async () => {
    const secret = new Error('ENOENT /home/user/secret/path.onnx');
    for (const thrown of [secret, 'a string', 42, null, undefined, { status: 200, code: 'x', detail: 'y' }]) {
      const e = toApiError(thrown);
      expect(e.status).toBe(500);
      expect(e.code).toBe('internal_server_error');
      const text = await problemResponse(thrown).text();
      expect(text).not.toMatch(/secret|ENOENT|at /);
    }
  });

  it('rebuilds an ApiError that crossed postMessage as a plain object', () => {
    const cloned = structuredClone({ status: 400, code: 'invalid_audio', detail: 'cannot decode' });
    const e = toApiError(cloned);
    expect(e).toBeInstanceOf(ApiError);
    expect([e.status, e.code, e.detail]).toEqual([400, 'invalid_audio', 'cannot decode']);
    expect(toApiError({ status: 413, detail: 'too big' }).status).toBe(413);
    expect(toApiError({ status: 400, code: 'made_up', detail: 'x' }).status).toBe(500);
  });
});
