/** Thrown when a body is larger than allowed; the caller answers 413 (or 400 for JSON endpoints). */
export class BodyTooLarge extends Error {
  constructor(readonly limit: number) {
    super(`request body is larger than ${limit} bytes`);
    this.name = 'BodyTooLarge';
  }
}

/** Rejects by Content-Length before reading, when the header is present. */
export function checkContentLength(request: Request, limit: number): void {
  const header = request.headers.get('content-length');
  if (header !== null && /^\d+$/.test(header) && Number(header) > limit) throw new BodyTooLarge(limit);
}

/**
 * Reads the body into one ArrayBuffer, stopping (and cancelling the stream) as soon as it passes
 * `limit`, so a body without Content-Length (or with a false one) cannot exhaust memory.
 */
export async function readBodyWithLimit(request: Request, limit: number): Promise<ArrayBuffer> {
  checkContentLength(request, limit);
  if (!request.body) return new ArrayBuffer(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      await reader.cancel().catch(() => undefined);
      throw new BodyTooLarge(limit);
    }
    chunks.push(value);
  }
  const out = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out.buffer;
}
