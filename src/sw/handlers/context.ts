import type { EngineBridge } from '../bridge';
import type { InFlight } from '../concurrency';

/** What every /v1 handler receives. Handlers throw ApiError; the entry serializes it by family. */
export interface HandlerContext {
  request: Request;
  url: URL;
  /** Decoded path parameters, in pattern order. */
  params: string[];
  bridge: EngineBridge;
  inFlight: InFlight;
}

export type Handler = (ctx: HandlerContext) => Promise<Response>;
