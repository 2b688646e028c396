import { engineWorkerOf, type Transcriber } from '../../../src/transcriber';

/**
 * Makes a transcriber's engine worker crash as a real fault does: an uncaught error inside the worker.
 * The engine has no test hook for it; the message poisons Comlink's listener in the worker (its
 * `argumentList` must be an array, and is read outside Comlink's try/catch), so the worker's message
 * handler throws and the page's Worker gets an `error` event. Throws when no worker is running.
 */
export function crashEngine(transcriber: Transcriber): void {
  const worker = engineWorkerOf(transcriber);
  if (!worker) throw new Error('this transcriber has no engine worker running');
  worker.postMessage({ type: 'APPLY', path: [], argumentList: 'not an array' });
}
