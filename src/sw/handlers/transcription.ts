import { invalidAudio, payloadTooLarge, sessionRejected } from '../../api/errors';
import { WHISPER_LANGUAGES } from '../../api/languages';
import { parseTranscriptionParams } from '../../api/params';
import { getCustomModel } from '../../store/custom-models';
import { getLimits } from '../../store/limits';
import { getUsage } from '../../store/usage';
import { CreditHold } from '../credit';
import { BodyTooLarge, checkContentLength, readBodyWithLimit } from '../read-body';
import type { BridgeResult } from '../bridge';
import { answerWhenSettled } from '../late-answer';
import { JSON_HEADERS } from '../responses';
import type { Handler } from './context';
import { requireAuth } from './require-auth';

/**
 * POST /v1/speech-to-text/prerecorded. Checks run cheapest first and none of them writes, so a rejected
 * request changes no stored state:
 *   401 credentials → 413 by Content-Length → 400 parameters (same validator as the JS API) →
 *   400 unknown custom_model_id → 402 credit exhausted → 429 too many in flight →
 *   413 while reading → 400 empty body → 402 when the body's audio does not fit in the credit left →
 *   the engine page (503 when it is missing or goes away, 504 when it stops reporting progress).
 * A job still running after `streamAfterMs` is answered 200 with a streamed body (late-answer.ts): the
 * transcript when it is done, or a stream error if the engine fails after that; so no deadline caps a
 * long file, and the time a job waits in the page's queue counts against none.
 * Credit is held before the engine runs (src/sw/credit.ts: the body's length, less what is used and
 * held by requests in flight), settled with the real duration after a transcription (a failed debit
 * still returns the transcript) and released when it fails.
 */
export const transcribe: Handler = async (ctx) => {
  await requireAuth(ctx.request, 'transcription');
  const limits = await getLimits();
  try {
    checkContentLength(ctx.request, limits.maxBodyBytes);
  } catch (err) {
    throw err instanceof BodyTooLarge ? tooLarge(limits.maxBodyBytes) : err;
  }
  const params = parseTranscriptionParams(ctx.url.searchParams, { supportedLanguages: WHISPER_LANGUAGES });
  if (params.custom_model_id !== null && !(await getCustomModel(params.custom_model_id))) {
    throw sessionRejected(`unknown custom_model_id '${params.custom_model_id}'`);
  }
  if (limits.creditSeconds !== null) {
    const { usedSeconds } = await getUsage();
    if (usedSeconds >= limits.creditSeconds) {
      throw sessionRejected(
        `credit exhausted: ${usedSeconds.toFixed(1)} of ${limits.creditSeconds} audio seconds used`,
        402,
      );
    }
  }
  if (!ctx.inFlight.tryAcquire(limits.maxConcurrent)) {
    throw sessionRejected(`too many concurrent transcriptions (limit ${limits.maxConcurrent}); retry later`, 429);
  }
  let work: Promise<string>;
  const cancel = new AbortController();
  try {
    let body: ArrayBuffer;
    try {
      body = await readBodyWithLimit(ctx.request, limits.maxBodyBytes);
    } catch (err) {
      throw err instanceof BodyTooLarge ? tooLarge(limits.maxBodyBytes) : err;
    }
    if (body.byteLength === 0) throw invalidAudio('the request body is empty; send the audio bytes');
    const credit = new CreditHold();
    await credit.reserve(body, params, limits.creditSeconds);
    const job = ctx.bridge.transcribe(
      { query: ctx.url.searchParams.toString(), body },
      { stallTimeoutMs: limits.engineTimeoutMs, signal: AbortSignal.any([ctx.request.signal, cancel.signal]) },
    );
    work = settleCredit(job, credit);
  } catch (err) {
    ctx.inFlight.release();
    throw err;
  }
  // The slot is held until the engine's answer, which may come after the response has started.
  void work.then(
    () => ctx.inFlight.release(),
    () => ctx.inFlight.release(),
  );
  return answerWhenSettled(work, {
    streamAfterMs: limits.streamAfterMs,
    headers: { ...JSON_HEADERS },
    onCancel: () => cancel.abort(),
  });
};

/** Debits the real duration after a transcript, or releases the hold when the job failed. */
async function settleCredit(job: Promise<BridgeResult>, credit: CreditHold): Promise<string> {
  let result: BridgeResult;
  try {
    result = await job;
  } catch (err) {
    await credit.release();
    throw err;
  }
  await credit.settle(result.audioSeconds);
  return result.json;
}

const tooLarge = (limit: number) => payloadTooLarge(`the request body is larger than the limit of ${limit} bytes`);
