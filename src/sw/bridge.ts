import { ApiError, type CustomModelErrorCode, type TranscriptionErrorCode } from '../api/errors';
import { PROBE, type JobControl, type JobReply, type ProbeReply, type TranscribeJob } from './protocol';

/**
 * The service worker's side of the bridge: hands a transcription to a window that hosts the engine
 * and waits for its answer, never forever.
 *
 * - No host page open: 503 problem+json (internal_server_error), answered after at most PROBE_TIMEOUT_MS.
 * - A host that does not acknowledge the job within ACK_TIMEOUT_MS: 503 and it is forgotten as a host.
 * - The host page closes or navigates away mid-request (checked every CLIENT_POLL_MS): 503.
 * - An engine that has started the job and then reports no progress for `stallTimeoutMs`: 504. A long job
 *   that keeps reporting progress meets no deadline.
 * - Before the engine starts (the job waits in the page's queue, or the page decodes its audio), the page
 *   is pinged on the job's port; a page that leaves the pings unanswered for `stallTimeoutMs` has a
 *   frozen thread (a synchronous loop in a demuxer, say): 504, and it is forgotten as a host. Waiting
 *   in the queue itself meets no deadline, since a live page answers.
 */
export const PROBE_TIMEOUT_MS = 500;
export const ACK_TIMEOUT_MS = 3000;
export const CLIENT_POLL_MS = 500;
/** Pings per `stallTimeoutMs` before the engine starts: a reply may come a few pings late on a busy page. */
const PINGS_PER_DEADLINE = 4;

export interface BridgeResult {
  json: string;
  audioSeconds: number;
}

const unavailable = (detail: string) => new ApiError(503, 'internal_server_error', detail);

export class EngineBridge {
  /** Client ids of host pages, the most recently announced last. */
  private hosts: string[] = [];

  constructor(private readonly clients: Clients) {}

  addHost(clientId: string): void {
    this.removeHost(clientId);
    this.hosts.push(clientId);
  }

  removeHost(clientId: string): void {
    this.hosts = this.hosts.filter((id) => id !== clientId);
  }

  private async findHost(): Promise<Client | undefined> {
    const windows = await this.clients.matchAll({ type: 'window', includeUncontrolled: true });
    const byId = new Map(windows.map((w) => [w.id, w]));
    this.hosts = this.hosts.filter((id) => byId.has(id));
    const known = this.hosts.at(-1);
    if (known) return byId.get(known);
    // A restarted service worker has forgotten its hosts: ask every window.
    const answers = await Promise.all(windows.map((w) => probe(w)));
    windows.forEach((w, i) => answers[i] && this.addHost(w.id));
    const found = this.hosts.at(-1);
    return found ? byId.get(found) : undefined;
  }

  /** Sends the job (its body is transferred after it) to a host page; resolves with the page's Transcript JSON. */
  async transcribe(
    job: Omit<TranscribeJob, 'type'> & { body: ArrayBuffer },
    options: { stallTimeoutMs: number; signal?: AbortSignal },
  ): Promise<BridgeResult> {
    const host = await this.findHost();
    if (!host) {
      throw unavailable('no page hosting the transcription engine is open; open the app (it calls registerLocalApi with a transcriber) and retry');
    }
    return this.send(host, job, options);
  }

  private send(
    host: Client,
    job: Omit<TranscribeJob, 'type'> & { body: ArrayBuffer },
    { stallTimeoutMs, signal }: { stallTimeoutMs: number; signal?: AbortSignal },
  ): Promise<BridgeResult> {
    const { port1, port2 } = new MessageChannel();
    return new Promise<BridgeResult>((resolve, reject) => {
      let settled = false;
      let accepted = false;
      let started = false;
      const cancel = () => port1.postMessage({ type: 'cancel' } satisfies JobControl);
      const finish = (outcome: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(ackTimer);
        clearTimeout(stall);
        clearInterval(poll);
        clearInterval(ping);
        signal?.removeEventListener('abort', onAbort);
        port1.close();
        outcome();
      };
      const onAbort = () => {
        cancel();
        finish(() => reject(new ApiError(500, 'internal_server_error', 'the client aborted the request')));
      };

      port1.onmessage = (event: MessageEvent<JobReply>) => {
        const reply = event.data;
        if (reply.type === 'accepted') {
          accepted = true;
          armStall();
        } else if (reply.type === 'alive') {
          if (!started) armStall();
        } else if (reply.type === 'progress') {
          started = true;
          clearInterval(ping);
          armStall();
        } else if (reply.type === 'result') {
          finish(() => resolve({ json: reply.json, audioSeconds: reply.audioSeconds }));
        } else if (reply.type === 'error') {
          const code = reply.code as TranscriptionErrorCode | CustomModelErrorCode | undefined;
          finish(() => reject(new ApiError(reply.status, code, reply.detail)));
        }
      };
      const ackTimer = setTimeout(() => {
        if (accepted) return;
        this.removeHost(host.id);
        finish(() => reject(unavailable('the page hosting the engine did not accept the request')));
      }, ACK_TIMEOUT_MS);
      // Armed by the acknowledgement; re-armed by the page's answers to pings until the engine's first
      // progress report (the job left the queue), and by each progress report after that.
      let stall: ReturnType<typeof setTimeout> | undefined;
      const armStall = () => {
        clearTimeout(stall);
        stall = setTimeout(() => {
          cancel();
          if (!started) this.removeHost(host.id);
          const detail = started
            ? `the engine reported no progress for ${stallTimeoutMs} ms (engineTimeoutMs) and was stopped`
            : `the page hosting the engine did not answer for ${stallTimeoutMs} ms (engineTimeoutMs) before the job started; its thread is blocked`;
          finish(() => reject(new ApiError(504, 'internal_server_error', detail)));
        }, stallTimeoutMs);
      };
      const ping = setInterval(
        () => accepted && port1.postMessage({ type: 'ping' } satisfies JobControl),
        Math.min(CLIENT_POLL_MS, stallTimeoutMs / PINGS_PER_DEADLINE),
      );
      const poll = setInterval(() => {
        void this.clients.get(host.id).then((client) => {
          if (client) return;
          this.removeHost(host.id);
          finish(() => reject(unavailable('the page hosting the engine closed or reloaded during the request; retry')));
        });
      }, CLIENT_POLL_MS);
      if (signal?.aborted) return onAbort();
      signal?.addEventListener('abort', onAbort);

      const message: TranscribeJob = { type: 'localscribe:transcribe', query: job.query };
      host.postMessage(message, [port2]);
      port1.postMessage({ type: 'body', body: job.body } satisfies JobControl, [job.body]);
    });
  }
}

/** Asks one window whether it hosts an engine; false after PROBE_TIMEOUT_MS without an answer. */
function probe(client: Client): Promise<boolean> {
  const { port1, port2 } = new MessageChannel();
  return new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => done(false), PROBE_TIMEOUT_MS);
    const done = (answer: boolean) => {
      clearTimeout(timer);
      port1.close();
      resolve(answer);
    };
    port1.onmessage = (event: MessageEvent<ProbeReply>) => done(event.data?.type === 'host');
    client.postMessage({ type: PROBE }, [port2]);
  });
}
