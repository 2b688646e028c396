/**
 * Answers a request whose work may outlast Chromium's cap on one fetch event (5 minutes from dispatch;
 * the worker is stopped when `respondWith`'s promise is still pending then).
 *
 * If the work settles within `streamAfterMs`, the answer is the ordinary one: its own status and body
 * (a failure is thrown, and becomes that error's status). Otherwise a 200 is answered at once with a
 * body that is a ReadableStream: the fetch event ends there, and the stream stays open until the work
 * settles. Then the body is exactly the JSON the work produced, or, if it failed, the stream errors, so
 * the client's `res.json()` / `res.text()` rejects (a network error in fetch): a status already sent
 * cannot be changed, and a 200 with an error document would be a lie. Cancelling the stream (the client
 * aborted its fetch or dropped the body) calls `onCancel`.
 */
export interface LateAnswerOptions {
  streamAfterMs: number;
  headers: Record<string, string>;
  onCancel: () => void;
}

export async function answerWhenSettled(work: Promise<string>, options: LateAnswerOptions): Promise<Response> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), options.streamAfterMs);
  });
  try {
    const first = await Promise.race([work, late]);
    if (first !== 'late') return new Response(first, { status: 200, headers: options.headers });
  } finally {
    clearTimeout(timer);
  }
  const body = new ReadableStream<Uint8Array>({
    async start(controller) {
      try {
        const json = await work;
        controller.enqueue(new TextEncoder().encode(json));
        controller.close();
      } catch (err) {
        controller.error(err);
      }
    },
    cancel() {
      options.onCancel();
    },
  });
  return new Response(body, { status: 200, headers: options.headers });
}
