import type * as OrtModule from 'onnxruntime-web';
import { applyTimestampRules, logSumExp } from './logits';
import { LOGITS_FROM, patchWhisperDecoder, SELF_MASK, TOKEN_POSITIONS } from '../onnx/graph';
import type { GenerationConfig, WhisperVocabulary } from './tokenizer';

type Ort = typeof OrtModule;
type Tensor = OrtModule.Tensor;
type Session = OrtModule.InferenceSession;

export interface ModelDims {
  layers: number;
  heads: number;
  headDim: number;
}

export interface EncodedWindow {
  hidden: Tensor;
  /** Encoder output frames (20 ms each). */
  frames: number;
  /** Intermediate encoder tensors asked for by name (e.g. speaker features); the caller disposes them. */
  extras: Record<string, Tensor>;
}

export interface GeneratedToken {
  id: number;
  /** Log-probability under the unscaled, rule-masked distribution. */
  logprob: number;
}

export interface Generation {
  tokens: GeneratedToken[];
  avgLogprob: number;
  noSpeechProb: number;
  temperature: number;
  /** Stopped because the text started repeating itself (repeatsTail). */
  looped: boolean;
  /** Per generated token: the alignment heads' cross-attention rows, [heads][frames] flattened. */
  attention: Float32Array[] | null;
}

export interface GenerateOptions {
  language: string;
  temperature: number;
  /** Prompt tokens placed after <|startofprev|> (biasing, filler style); none when empty. */
  promptIds?: readonly number[];
  wantAttention: boolean;
  /** Length of the real audio in the window; timestamps past it are not allowed. */
  audioSeconds: number;
  maxTokens?: number;
  /** Called between decoder steps; throws to cancel. */
  checkpoint?: () => void;
  random?: () => number;
  /** Lets a biasing strategy adjust logits after the grammar rules (in place). */
  adjustLogits?: (logits: Float32Array, generated: readonly number[]) => void;
  /** Repeats of an n-gram at the tail that stop the pass as a loop (repeatsTail; default 4). */
  loopRepeats?: number;
  /** A further test of the text tokens so far for a loop (a biased pass reciting its prompt). */
  loops?: (textIds: readonly number[]) => boolean;
  /** A test of the text tokens so far that ends the pass there, not as a loop (a proposal that can gain nothing more). */
  until?: (textIds: readonly number[]) => boolean;
}

/** The q8 Whisper encoder and merged decoder (KV cache), run by onnxruntime-web. */
export class WhisperModel {
  /** Per encoded window, the cross-attention keys and values its first decoder run computed. */
  private readonly crossCaches = new WeakMap<EncodedWindow, Past>();

  private constructor(
    private readonly ort: Ort,
    private readonly encoder: Session,
    private readonly decoder: Session,
    readonly vocab: WhisperVocabulary,
    readonly dims: ModelDims,
    private readonly alignmentHeads: [number, number][],
  ) {}

  static async create(
    ort: Ort,
    encoderBytes: Uint8Array,
    decoderBytes: Uint8Array,
    vocab: WhisperVocabulary,
    generation: GenerationConfig,
    config: { decoder_layers: number; decoder_attention_heads: number; d_model: number },
    options: OrtModule.InferenceSession.SessionOptions,
  ): Promise<WhisperModel> {
    const encoder = await ort.InferenceSession.create(encoderBytes, options);
    const decoder = await ort.InferenceSession.create(patchWhisperDecoder(decoderBytes), options);
    const dims = {
      layers: config.decoder_layers,
      heads: config.decoder_attention_heads,
      headDim: config.d_model / config.decoder_attention_heads,
    };
    return new WhisperModel(ort, encoder, decoder, vocab, dims, generation.alignment_heads);
  }

  /** Whether the encoder graph exposes the named intermediate tensor (added by patchWhisperEncoder). */
  hasEncoderOutput(name: string): boolean {
    return this.encoder.outputNames.includes(name);
  }

  /** Runs the encoder on a log-mel window [80, melFrames], also fetching any `extraOutputs` it exposes. */
  async encode(mel: Float32Array, melFrames: number, extraOutputs: readonly string[] = []): Promise<EncodedWindow> {
    const input = new this.ort.Tensor('float32', mel, [1, 80, melFrames]);
    const out = await this.encoder.run({ input_features: input }, ['last_hidden_state', ...extraOutputs]);
    input.dispose();
    const hidden = out['last_hidden_state']!;
    const extras = Object.fromEntries(extraOutputs.map((name) => [name, out[name]!]));
    return { hidden, frames: hidden.dims[1]!, extras };
  }

  /** Frees what an encoded window holds, its encoder output and its cross-attention cache, once no pass needs it. */
  releaseWindow(encoded: EncodedWindow): void {
    encoded.hidden.dispose();
    const cross = this.crossCaches.get(encoded);
    if (cross) for (const t of Object.values(cross)) t.dispose();
    this.crossCaches.delete(encoded);
  }

  /** Probabilities of the candidate languages (all the model knows when `candidates` is null). */
  async detectLanguage(encoded: EncodedWindow, candidates: readonly string[] | null): Promise<Map<string, number>> {
    const { logits } = await this.forward([this.vocab.sot], null, encoded, false);
    const row = lastRow(logits, 1);
    const codes = candidates ?? this.vocab.languages;
    const scores = new Float32Array(codes.map((c) => row[this.vocab.languageToken(c)]!));
    const z = logSumExp(scores, 0, scores.length);
    return new Map(codes.map((c, i) => [c, Math.exp(scores[i]! - z)]));
  }

  /**
   * The prompt of a pass with `opts` run through the decoder once, for several passes that begin with it
   * (see generate's `start`); the caller releases it.
   */
  async promptRun(encoded: EncodedWindow, opts: Pick<GenerateOptions, 'language' | 'promptIds' | 'wantAttention'>): Promise<PromptRun> {
    const { prefix, prompt } = this.framing(encoded, { ...opts, audioSeconds: 0 });
    // logits from <|startoftranscript|> on: its row gives the no-speech probability, the last row the first token
    const step = await this.forward(prompt, null, encoded, opts.wantAttention, true, prefix.length);
    return new PromptRun(prompt, step, softmaxAt(step.logits, 0, this.vocab.noSpeech));
  }

  /**
   * One decoding pass over a window (greedy at temperature 0, sampling above), from `start` when given
   * (a promptRun of the same prompt, left for the caller to release) instead of running the prompt again.
   */
  async generate(encoded: EncodedWindow, opts: GenerateOptions, start?: PromptRun): Promise<Generation> {
    const v = this.vocab;
    const { prefix, prompt, maxTokens, maxTsIndex } = this.framing(encoded, opts);
    const tokens: GeneratedToken[] = [];
    const attention: Float32Array[] | null = opts.wantAttention ? [] : null;
    if (start && !start.fits(prompt, opts.wantAttention)) throw new Error('generate(): start is a prompt run of another prompt, or lacks attention');

    const shared = start?.step;
    let step = shared ?? (await this.forward(prompt, null, encoded, opts.wantAttention, true, prefix.length));
    const noSpeechProb = start ? start.noSpeechProb : softmaxAt(step.logits, 0, v.noSpeech);
    let rowIndex = prompt.length - 1 - prefix.length;
    const generated: number[] = [];
    // text tokens only: a loop of whole segments differs in its timestamp tokens but not in its text
    const textIds: number[] = [];
    let sumLogprob = 0;
    let looped = false;
    for (let i = 0; i < maxTokens; i++) {
      opts.checkpoint?.();
      const row = rowAt(step.logits, rowIndex);
      applyTimestampRules(row, generated, v, maxTsIndex);
      opts.adjustLogits?.(row, generated);
      const id = opts.temperature > 0 ? sample(row, opts.temperature, opts.random ?? Math.random) : argmax(row);
      const logprob = row[id]! - logSumExp(row, 0, row.length);
      if (attention && step.attention) attention.push(step.attention);
      if (id === v.eot) break;
      tokens.push({ id, logprob });
      generated.push(id);
      if (v.isText(id)) textIds.push(id);
      sumLogprob += logprob;
      looped = repeatsTail(textIds, opts.loopRepeats) || (opts.loops?.(textIds) ?? false);
      if (looped || closesAtEnd(generated, v, maxTsIndex) || opts.until?.(textIds)) break;
      // the shared start's cache is extended, not consumed: another pass begins from it too
      step = await this.forward([id], step.past, encoded, opts.wantAttention, step !== shared);
      rowIndex = 0;
    }
    if (step !== shared) releaseSelf(step.past);
    return {
      tokens,
      avgLogprob: sumLogprob / Math.max(1, tokens.length),
      noSpeechProb,
      temperature: opts.temperature,
      looped,
      attention,
    };
  }

  /**
   * Log-probability of `ids` (generated tokens, then <|endoftext|>) after the framing of `opts`, in one
   * teacher-forced decoder run, without grammar masks: a yardstick for comparing two transcriptions
   * of one window under the same prompt, not a replacement for the per-token logprobs of generate().
   */
  async sequenceLogprob(encoded: EncodedWindow, opts: Pick<GenerateOptions, 'language' | 'promptIds'>, ids: readonly number[]): Promise<number> {
    return (await this.tokenLogprobs(encoded, opts, ids)).reduce((a, b) => a + b, 0);
  }

  /**
   * Per target (each of `ids`, then <|endoftext|>) from target `from` on: its log-probability in one
   * teacher-forced run (see sequenceLogprob). The rows before `from` are not projected onto the
   * vocabulary, most of a scoring run's cost: a splice is scored from where it leaves the transcription
   * it was spliced into, whose log-probabilities up to there are known.
   */
  async tokenLogprobs(encoded: EncodedWindow, opts: Pick<GenerateOptions, 'language' | 'promptIds'>, ids: readonly number[], from = 0): Promise<number[]> {
    if (!(from >= 0 && from <= ids.length)) throw new RangeError(`tokenLogprobs(): from ${from} is outside 0..${ids.length}`);
    const { prompt } = this.framing(encoded, { ...opts, audioSeconds: 0 });
    const targets = [...ids, this.vocab.eot].slice(from);
    const out = await this.decoderForward([...prompt, ...ids], null, encoded, { logitsFrom: prompt.length - 1 + from });
    try {
      const vocabSize = out.logits.dims[2]!;
      const data = out.logits.data as Float32Array;
      return targets.map((target, i) => {
        const row = data.subarray(i * vocabSize, (i + 1) * vocabSize);
        return row[target]! - logSumExp(row, 0, vocabSize);
      });
    } finally {
      out.logits.dispose();
      releaseSelf(out.past);
    }
  }

  /**
   * The alignment heads' attention rows for a finished pass, by one teacher-forced run, as the greedy
   * loop collects them: from the position that predicted each token, and the end of text's when the
   * pass ended with one. For passes decoded without attention (constrained, proposals).
   */
  async attentionRows(encoded: EncodedWindow, prompt: readonly number[], ids: readonly number[], endedWithEot: boolean): Promise<Float32Array[]> {
    const rows = ids.length + (endedWithEot ? 1 : 0);
    const positions = Array.from({ length: rows }, (_, i) => prompt.length - 1 + i);
    const input = [...prompt, ...ids].slice(0, prompt.length - 1 + Math.max(1, rows));
    const out = await this.decoderForward(input, null, encoded, { wantAttention: true, attentionAt: positions, logitsFrom: input.length - 1 });
    out.logits.dispose();
    releaseSelf(out.past);
    return out.attention ?? [];
  }

  /** The prompt before the generated tokens, and the token and timestamp limits of a pass with `opts`. */
  framing(encoded: EncodedWindow, opts: Pick<GenerateOptions, 'language' | 'promptIds' | 'maxTokens' | 'audioSeconds'>) {
    const v = this.vocab;
    const prefix = opts.promptIds?.length ? [v.startOfPrev, ...opts.promptIds] : [];
    const prompt = [...prefix, v.sot, v.languageToken(opts.language), v.transcribe];
    const maxTokens = Math.min(opts.maxTokens ?? 224, 440 - prompt.length);
    const maxTsIndex = Math.min(encoded.frames, Math.ceil(opts.audioSeconds / 0.02));
    return { prefix, prompt, maxTokens, maxTsIndex };
  }

  async release(): Promise<void> {
    await this.encoder.release();
    await this.decoder.release();
  }

  private async forward(
    ids: readonly number[],
    past: Past | null,
    encoded: EncodedWindow,
    wantAttention: boolean,
    consumePast = true,
    logitsFrom = 0,
  ): Promise<DecoderRun> {
    const out = await this.decoderForward(ids, past, encoded, { wantAttention, consumePast, logitsFrom });
    return { logits: out.logits, past: out.past, attention: out.attention?.[0] ?? null };
  }

  /**
   * One decoder run. `past` holds the self- and cross-attention caches (null: `ids` from the start);
   * the result's past has the new self-attention cache and the window's cross-attention tensors.
   * The logits are [1, ids.length - logitsFrom, vocab]: row r is position logitsFrom + r.
   * @internal for the pattern pass
   */
  async decoderForward(
    ids: readonly number[],
    past: Past | null,
    encoded: EncodedWindow,
    run: DecoderRunOptions = {},
  ): Promise<{ logits: Tensor; past: Past; attention: Float32Array[] | null }> {
    const { wantAttention = false, consumePast = true, attentionAt = [ids.length - 1], logitsFrom = 0, parents, sees } = run;
    const { ort, dims } = this;
    if (parents && !past) throw new RangeError('decoderForward(): a tree of tokens needs the cache of the prefix it continues');
    // a window's first run computes its cross-attention cache; every later run begins from it
    const cross = this.crossCaches.get(encoded);
    if (!past && cross) past = { ...this.emptySelf(), ...cross };
    const pastLength = past?.['present.0.decoder.key']?.dims[2] ?? 0;
    const layout = treeLayout(pastLength, ids.length, parents, sees);
    const feeds: Record<string, Tensor> = {
      input_ids: new ort.Tensor('int64', BigInt64Array.from(ids, (x) => BigInt(x)), [1, ids.length]),
      // The cached branch reads cross-attention keys/values from the past, never the hidden states:
      // a one-frame stand-in saves copying the whole encoder output into wasm memory at every step.
      encoder_hidden_states: past ? this.hiddenStandIn(encoded) : encoded.hidden,
      use_cache_branch: new ort.Tensor('bool', new Uint8Array([past ? 1 : 0]), [1]),
      [LOGITS_FROM]: new ort.Tensor('int64', BigInt64Array.from([BigInt(logitsFrom)]), [1]),
      [SELF_MASK]: new ort.Tensor('float32', layout.mask, [ids.length, pastLength + ids.length]),
      [TOKEN_POSITIONS]: new ort.Tensor('int64', layout.positions, [ids.length]),
    };
    const empty = new Float32Array(0);
    for (let l = 0; l < dims.layers; l++) {
      for (const kind of ['decoder', 'encoder'] as const) {
        for (const kv of ['key', 'value'] as const) {
          const name = `past_key_values.${l}.${kind}.${kv}`;
          feeds[name] = past?.[`present.${l}.${kind}.${kv}`] ?? new ort.Tensor('float32', empty, [1, dims.heads, 0, dims.headDim]);
        }
      }
    }
    const fetches = ['logits'];
    for (let l = 0; l < dims.layers; l++) {
      fetches.push(`present.${l}.decoder.key`, `present.${l}.decoder.value`);
      if (!past) fetches.push(`present.${l}.encoder.key`, `present.${l}.encoder.value`);
    }
    const attnLayers = wantAttention ? [...new Set(this.alignmentHeads.map(([l]) => l))] : [];
    for (const l of attnLayers) fetches.push(`cross_attentions.${l}`);
    const out = await this.decoder.run(feeds, fetches);
    feeds['input_ids']!.dispose();
    feeds['use_cache_branch']!.dispose();
    feeds[LOGITS_FROM]!.dispose();
    feeds[SELF_MASK]!.dispose();
    feeds[TOKEN_POSITIONS]!.dispose();
    if (past) feeds['encoder_hidden_states']!.dispose();

    const next: Past = {};
    for (let l = 0; l < dims.layers; l++) {
      for (const kv of ['key', 'value'] as const) {
        next[`present.${l}.decoder.${kv}`] = out[`present.${l}.decoder.${kv}`]!;
        const enc = `present.${l}.encoder.${kv}`;
        next[enc] = past ? past[enc]! : out[enc]!;
      }
    }
    if (past && consumePast) releaseSelf(past);
    if (!cross) this.crossCaches.set(encoded, pick(next, '.encoder.'));

    const attention = wantAttention ? attentionAt.map((p) => this.alignmentRows(out, p)) : null;
    for (const l of attnLayers) out[`cross_attentions.${l}`]!.dispose();
    return { logits: out['logits']!, past: next, attention };
  }

  /** An empty self-attention cache: the start of a run that begins from a window's cross-attention cache. */
  private emptySelf(): Past {
    const past: Past = {};
    for (let l = 0; l < this.dims.layers; l++) {
      for (const kv of ['key', 'value']) past[`present.${l}.decoder.${kv}`] = new this.ort.Tensor('float32', new Float32Array(0), [1, this.dims.heads, 0, this.dims.headDim]);
    }
    return past;
  }

  private hiddenStandIn(encoded: EncodedWindow): Tensor {
    const width = encoded.hidden.dims[2]!;
    return new this.ort.Tensor('float32', new Float32Array(width), [1, 1, width]);
  }

  /** Alignment heads' cross-attention for one decoder position: [heads][frames] flattened. */
  private alignmentRows(out: Record<string, Tensor>, position: number): Float32Array {
    const parts = this.alignmentHeads.map(([layer, head]) => {
      const t = out[`cross_attentions.${layer}`]!;
      const [, , seq, frames] = t.dims as [number, number, number, number];
      const offset = (head * seq + position) * frames;
      return (t.data as Float32Array).subarray(offset, offset + frames);
    });
    const frames = parts[0]?.length ?? 0;
    const flat = new Float32Array(parts.length * frames);
    parts.forEach((p, i) => flat.set(p, i * frames));
    return flat;
  }

}

export interface DecoderRunOptions {
  /** Return the alignment heads' cross-attention rows at `attentionAt` (default: the last input position). */
  wantAttention?: boolean;
  attentionAt?: readonly number[];
  /** Dispose the input's self-attention tensors (default); without, the caller keeps them (one parent, several children). */
  consumePast?: boolean;
  /** The first position whose logits are computed (default 0). */
  logitsFrom?: number;
  /**
   * Each new token's parent among the new tokens (-1: the last token of `past`): the tokens form a tree
   * after `past`, each seeing only its ancestors, at position past + its depth. Default: a sequence.
   * Only for a run with `past`.
   */
  parents?: readonly number[];
  /**
   * Per new token with parent -1, how many of `past`'s positions it sees, its descendants alike, and so
   * its position (default: all): trees after different prefixes of one cache, in one run.
   */
  sees?: readonly number[];
}

/**
 * The self-attention mask and positions of `count` new tokens after `past` cached ones (decoderForward's
 * `parents` and `sees`; without parents, each token's parent is the one before it; without sees, a
 * root sees every cached position).
 */
export function treeLayout(past: number, count: number, parents?: readonly number[], sees?: readonly number[]): { mask: Float32Array; positions: BigInt64Array } {
  const keys = past + count;
  const mask = new Float32Array(count * keys);
  const positions = new BigInt64Array(count);
  const depth = new Int32Array(count);
  const seen = new Int32Array(count);
  const parentOf = (k: number) => (parents ? parents[k]! : k - 1);
  for (let i = 0; i < count; i++) {
    const parent = parentOf(i);
    if (parent >= i) throw new RangeError(`treeLayout(): token ${i}'s parent ${parent} does not come before it`);
    depth[i] = parent < 0 ? 1 : depth[parent]! + 1;
    seen[i] = parent < 0 ? (sees?.[i] ?? past) : seen[parent]!;
    if (!(seen[i]! >= 0 && seen[i]! <= past)) throw new RangeError(`treeLayout(): token ${i} sees ${seen[i]} of ${past} cached positions`);
    positions[i] = BigInt(seen[i]! + depth[i]! - 1);
    const row = mask.subarray(i * keys, (i + 1) * keys);
    row.fill(-1e9, seen[i]!);
    for (let a = i; a >= 0; a = parentOf(a)) row[past + a] = 0;
  }
  return { mask, positions };
}

/** One decoder run: its logits, its caches, and the alignment heads' attention at its last position. */
interface DecoderRun {
  logits: Tensor;
  past: Past;
  attention: Float32Array | null;
}

/** A prompt run once through the decoder (WhisperModel.promptRun), for passes that begin with it. */
export class PromptRun {
  constructor(
    private readonly prompt: readonly number[],
    /** @internal for WhisperModel.generate */
    readonly step: DecoderRun,
    readonly noSpeechProb: number,
  ) {}

  /** Whether a pass with `prompt` (and attention rows, if wanted) may begin from this run. */
  fits(prompt: readonly number[], wantAttention: boolean): boolean {
    return prompt.length === this.prompt.length && prompt.every((id, i) => id === this.prompt[i]) && (!wantAttention || this.step.attention !== null);
  }

  release(): void {
    this.step.logits.dispose();
    releaseSelf(this.step.past);
  }
}

/**
 * Disposes the self-attention part of a decoder cache. Its cross-attention part belongs to the model's
 * cache for the window (see WhisperModel.decoderForward) and goes with the window.
 */
export function releaseSelf(past: Past): void {
  for (const [k, t] of Object.entries(past)) if (k.includes('.decoder.')) t.dispose();
}


export type Past = Record<string, Tensor>;

/** The entries of `past` whose name contains `part` ('.decoder.' or '.encoder.'). */
export function pick(past: Past, part: string): Past {
  return Object.fromEntries(Object.entries(past).filter(([k]) => k.includes(part)));
}

/** A copy of the vocabulary row at decoder position `index` of logits [1, seq, vocab]. */
export function rowAt(logits: Tensor, index: number): Float32Array {
  const vocabSize = logits.dims[2]!;
  return (logits.data as Float32Array).slice(index * vocabSize, (index + 1) * vocabSize);
}

function lastRow(logits: Tensor, seq: number): Float32Array {
  return rowAt(logits, seq - 1);
}

function softmaxAt(logits: Tensor, index: number, id: number): number {
  const row = rowAt(logits, index);
  return Math.exp(row[id]! - logSumExp(row, 0, row.length));
}

export function argmax(a: Float32Array): number {
  let best = 0;
  for (let i = 1; i < a.length; i++) if (a[i]! > a[best]!) best = i;
  return best;
}

function sample(logits: Float32Array, temperature: number, random: () => number): number {
  const scaled = new Float32Array(logits.length);
  for (let i = 0; i < logits.length; i++) scaled[i] = logits[i]! / temperature;
  const z = logSumExp(scaled, 0, scaled.length);
  let r = random();
  for (let i = 0; i < scaled.length; i++) {
    r -= Math.exp(scaled[i]! - z);
    if (r <= 0) return i;
  }
  return argmax(logits);
}

/** A segment just closed at (or within 0.3 s of) the end of the audio: nothing is left to transcribe. */
export function closesAtEnd(ids: readonly number[], vocab: WhisperVocabulary, maxTsIndex: number): boolean {
  const n = ids.length;
  if (n < 2 || !vocab.isTimestamp(ids[n - 1]!) || vocab.isTimestamp(ids[n - 2]!)) return false;
  return ids[n - 1]! - vocab.timestampBegin >= maxTsIndex - 15;
}

/**
 * Whether a greedy pass that generated `ids` under `framing` stopped at <|endoftext|>, rather than being
 * cut at the end of the audio, by a loop or by its token limit (generate()'s other stops).
 */
export function endedWithEot(ids: readonly number[], vocab: WhisperVocabulary, framing: { maxTsIndex: number; maxTokens: number }): boolean {
  return !(closesAtEnd(ids, vocab, framing.maxTsIndex) || repeatsTail(ids.filter((id) => vocab.isText(id))) || ids.length >= framing.maxTokens);
}

/**
 * True when the tail of `ids` is one n-gram (2 ≤ n ≤ 16) repeated at least `times` times, or one token
 * repeated 12 times: a decoding loop.
 */
export function repeatsTail(ids: readonly number[], times = 4): boolean {
  for (let n = 1; n <= 16; n++) {
    const reps = n === 1 ? 12 : times;
    if (ids.length < n * reps) continue;
    // a run of one token ("no no no") is judged as a 1-gram only
    if (n > 1 && ids.slice(-n).every((id) => id === ids[ids.length - 1])) continue;
    let repeated = true;
    for (let r = 1; r < reps && repeated; r++) {
      for (let k = 0; k < n; k++) {
        if (ids[ids.length - 1 - k] !== ids[ids.length - 1 - k - r * n]) {
          repeated = false;
          break;
        }
      }
    }
    if (repeated) return true;
  }
  return false;
}
