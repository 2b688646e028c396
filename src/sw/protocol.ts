/**
 * Messages between the service worker and a page that hosts the engine (see bridge.ts, register.ts).
 *
 * page → SW (postMessage to the registration's worker):
 *   { type: 'localscribe:host' }      this page can transcribe
 *   { type: 'localscribe:unhost' }    it no longer can (transcriber disposed, page hiding)
 * SW → page (client.postMessage):
 *   { type: 'localscribe:probe' } + port          answered with { type: 'host' } on the port by hosts
 *   { type: 'localscribe:transcribe', ... } + port, the body bytes transferred
 * page → SW on the job's port: 'accepted' at once, then exactly one 'result' or 'error'.
 * SW → page on the job's port: 'cancel' when the HTTP client went away.
 */
export const HOST = 'localscribe:host';
export const UNHOST = 'localscribe:unhost';
export const PROBE = 'localscribe:probe';
export const TRANSCRIBE = 'localscribe:transcribe';

export interface TranscribeJob {
  type: typeof TRANSCRIBE;
  /** The request's query string, without '?'. */
  query: string;
  body: ArrayBuffer;
}

export type JobReply =
  | { type: 'accepted' }
  | {
      type: 'result';
      /** The Transcript the JS API returned, serialized once on the page so both doors give the same bytes. */
      json: string;
      /** Audio duration, debited from the credit. */
      audioSeconds: number;
    }
  | { type: 'error'; status: number; code: string | undefined; detail: string };

export type JobControl = { type: 'cancel' };

export type ProbeReply = { type: 'host' };
