import { describe, expect, it } from 'vitest';
import { BodyTooLarge, checkContentLength, readBodyWithLimit } from '../../src/sw/read-body';
import { InFlight } from '../../src/sw/concurrency';

function streamed(chunks: number[]): { request: Request; pulled: () => number } {
  let pulls = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      const size = chunks[pulls++];
      if (size === undefined) controller.close();
      else controller.enqueue(new Uint8Array(size).fill(pulls));
    },
  });
  const request = new Request('http://x/', { method: 'POST', body, duplex: 'half' } as RequestInit);
  return { request, pulled: () => pulls };
}

describe('readBodyWithLimit', () => {
  it('returns the bytes in order when within the limit', async () => {
    const { request } = streamed([2, 3]);
    const bytes = new Uint8Array(await readBodyWithLimit(request, 5));
    expect([...bytes]).toEqual([1, 1, 2, 2, 2]);
  });

  it('stops reading as soon as the limit is passed', async () => {
    const { request, pulled } = streamed([4, 4, 4, 4, 4, 4]);
    await expect(readBodyWithLimit(request, 6)).rejects.toBeInstanceOf(BodyTooLarge);
    expect(pulled()).toBeLessThan(5);
  });

  it('rejects by Content-Length before reading', () => {
    const request = new Request('http://x/', { method: 'POST', body: 'abcdef', headers: { 'content-length': '6' } });
    expect(() => checkContentLength(request, 5)).toThrow(BodyTooLarge);
    expect(() => checkContentLength(request, 6)).not.toThrow();
  });

  it('gives an empty buffer for a request without a body', async () => {
    expect((await readBodyWithLimit(new Request('http://x/', { method: 'POST' }), 5)).byteLength).toBe(0);
  });
});

describe('InFlight', () => {
  it('admits up to the limit and frees slots on release', () => {
    const slots = new InFlight();
    expect(slots.tryAcquire(2)).toBe(true);
    expect(slots.tryAcquire(2)).toBe(true);
    expect(slots.tryAcquire(2)).toBe(false);
    slots.release();
    expect(slots.current).toBe(1);
    expect(slots.tryAcquire(2)).toBe(true);
  });
});
