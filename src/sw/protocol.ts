/**
 * Messages between the service worker and a page that hosts the engine (see bridge.ts, register.ts).
 *
 * page → SW (postMessage to the registration's worker):
 *   { type: 'localscribe:host' }      this page can transcribe
 *   { type: 'localscribe:unhost' }    it no longer can (transcriber disposed, page hiding)
 *   { type: 'localscribe:keepalive' } sent every KEEPALIVE_MS while a job runs: each message event
 *                                     restarts the worker's idle timer, so the worker that streams the
 *                                     answer is not stopped while the engine works
 * SW → page (client.postMessage):
 *   { type: 'localscribe:probe' } + port          answered with { type: 'host' } on the port by hosts
 *   { type: 'localscribe:transcribe', query } + port; the body follows on the port ('body', its bytes
 *   transferred), so the acknowledgement does not wait for a large body to cross (tens of MB can take
 *   seconds on a loaded machine)
 * page → SW on the job's port: 'accepted' at once, 'alive' for each 'ping', 'progress' each time the
 * engine reports progress on the job (the first one means it left the queue), then exactly one 'result'
 * or 'error'.
 * SW → page on the job's port: 'body' once, 'ping' until the first 'progress' (a page whose thread is
 * blocked cannot answer), 'cancel' when the HTTP client went away.
 */
export const HOST = 'localscribe:host';
export const UNHOST = 'localscribe:unhost';
export const PROBE = 'localscribe:probe';
export const TRANSCRIBE = 'localscribe:transcribe';
export const KEEPALIVE = 'localscribe:keepalive';
/** Below Chromium's 30 s service-worker idle timeout, with room for a busy page's timer to run late. */
export const KEEPALIVE_MS = 10_000;

export interface TranscribeJob {
  type: typeof TRANSCRIBE;
  /** The request's query string, without '?'. */
  query: string;
}

export type JobReply =
  | { type: 'accepted' }
  | { type: 'alive' }
  | { type: 'progress' }
  | {
      type: 'result';
      /** The Transcript the JS API returned, serialized once on the page so both doors give the same bytes. */
      json: string;
      /** Audio duration, debited from the credit. */
      audioSeconds: number;
    }
  | { type: 'error'; status: number; code: string | undefined; detail: string };

export type JobControl = { type: 'body'; body: ArrayBuffer } | { type: 'ping' } | { type: 'cancel' };

export type ProbeReply = { type: 'host' };
