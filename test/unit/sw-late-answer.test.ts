import { describe, expect, it } from 'vitest';
import { answerWhenSettled } from '../../src/sw/late-answer';

const HEADERS = { 'Content-Type': 'application/json' };
const after = <T>(ms: number, value: T) => new Promise<T>((resolve) => setTimeout(() => resolve(value), ms));
const failAfter = (ms: number, err: Error) => new Promise<string>((_, reject) => setTimeout(() => reject(err), ms));

describe('answerWhenSettled', () => {
  it('answers the ordinary response when the work settles before streamAfterMs', async () => {
    const res = await answerWhenSettled(after(5, '{"text":"a"}'), { streamAfterMs: 1000, headers: HEADERS, onCancel: () => undefined });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('{"text":"a"}');
  });

  it('throws the early failure, so its own status is answered', async () => {
    const err = new Error('400 invalid_audio');
    await expect(answerWhenSettled(failAfter(5, err), { streamAfterMs: 1000, headers: HEADERS, onCancel: () => undefined })).rejects.toBe(err);
  });

  it('answers 200 before late work settles, then streams exactly its JSON', async () => {
    const t0 = Date.now();
    const res = await answerWhenSettled(after(300, '{"text":"late"}'), { streamAfterMs: 20, headers: HEADERS, onCancel: () => undefined });
    expect(Date.now() - t0).toBeLessThan(250);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(await res.json()).toEqual({ text: 'late' });
  });

  it('errors the body when late work fails, so reading it rejects', async () => {
    const res = await answerWhenSettled(failAfter(100, new Error('engine crashed')), { streamAfterMs: 10, headers: HEADERS, onCancel: () => undefined });
    expect(res.status).toBe(200);
    await expect(res.json()).rejects.toThrow('engine crashed');
  });

  it('calls onCancel when the body is cancelled', async () => {
    let cancelled = 0;
    const res = await answerWhenSettled(after(1000, '{}'), { streamAfterMs: 10, headers: HEADERS, onCancel: () => cancelled++ });
    await res.body!.cancel();
    expect(cancelled).toBe(1);
  });
});
