import type * as OrtModule from 'onnxruntime-web';
import { ENCODER_FRAME_MS } from './features';
import { generatePass, rowAt, type GenerateOptions, type Generation } from './generate';
import { KvCache, type CrossCache } from './kv-cache';
import { languageRestriction, logSumExp } from './logits';
import { LOGITS_FROM, SELF_MASK, TOKEN_POSITIONS, type PatchedModel } from './patches';
import type { GenerationConfig, WhisperVocabulary } from './tokenizer';
import { createSession } from '../runtime/backend';

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
}

/** The decoder's own shape and context length, from the model's config.json. */
export interface DecoderConfig {
  decoder_layers: number;
  decoder_attention_heads: number;
  d_model: number;
  /** Positions the decoder was trained on: prompt and generated tokens together. */
  max_target_positions: number;
}

/** The q8 Whisper encoder and merged decoder (KV cache), run by onnxruntime-web. */
export class WhisperModel {
  /** Per encoded window, the cross-attention keys and values of its cross run (crossCache). */
  private readonly crossCaches = new WeakMap<EncodedWindow, CrossCache>();

  private constructor(
    private readonly ort: Ort,
    private readonly encoder: Session,
    private readonly decoder: Session,
    readonly vocab: WhisperVocabulary,
    readonly dims: ModelDims,
    private readonly alignmentHeads: [number, number][],
    /** Prompt and generated tokens together may not exceed this (max_target_positions). */
    readonly maxPositions: number,
  ) {}

  static async create(
    ort: Ort,
    /** The encoder as the loader patches it. */
    encoder: () => PatchedModel,
    /** The decoder as patchWhisperDecoder makes it. */
    decoder: () => PatchedModel,
    vocab: WhisperVocabulary,
    generation: GenerationConfig,
    config: DecoderConfig,
    options: OrtModule.InferenceSession.SessionOptions,
  ): Promise<WhisperModel> {
    const encoderSession = await createSession(ort, encoder, options);
    const decoderSession = await createSession(ort, decoder, options);
    const dims = {
      layers: config.decoder_layers,
      heads: config.decoder_attention_heads,
      headDim: config.d_model / config.decoder_attention_heads,
    };
    return new WhisperModel(ort, encoderSession, decoderSession, vocab, dims, generation.alignment_heads, config.max_target_positions);
  }

  /** Whether the encoder graph exposes the named intermediate tensor (WhisperLoadOptions.extraOutputs). */
  hasEncoderOutput(name: string): boolean {
    return this.encoder.outputNames.includes(name);
  }

  /** Runs the encoder on a log-mel window [80, melFrames]. */
  async encode(mel: Float32Array, melFrames: number): Promise<EncodedWindow> {
    return (await this.encodeWith(mel, melFrames, [])).encoded;
  }

  /** encode, also fetching the named intermediate tensors (hasEncoderOutput); the caller disposes them. */
  async encodeWith(mel: Float32Array, melFrames: number, extraOutputs: readonly string[]): Promise<{ encoded: EncodedWindow; extras: Tensor[] }> {
    const input = new this.ort.Tensor('float32', mel, [1, 80, melFrames]);
    const out = await this.encoder.run({ input_features: input }, ['last_hidden_state', ...extraOutputs]);
    input.dispose();
    const hidden = out['last_hidden_state']!;
    return { encoded: { hidden, frames: hidden.dims[1]! }, extras: extraOutputs.map((name) => out[name]!) };
  }

  /** Frees what an encoded window holds, its encoder output and its cross-attention cache, once no pass needs it. */
  releaseWindow(encoded: EncodedWindow): void {
    encoded.hidden.dispose();
    const cross = this.crossCaches.get(encoded);
    if (cross) for (const t of [...cross.keys, ...cross.values]) t.dispose();
    this.crossCaches.delete(encoded);
  }

  /** Probabilities of the candidate languages (all the model knows when `candidates` is null). */
  async detectLanguage(encoded: EncodedWindow, candidates: readonly string[] | null): Promise<Map<string, number>> {
    const out = await this.decoderForward([this.vocab.sot], null, encoded);
    out.cache.release();
    const row = rowAt(out.logits, 0);
    out.logits.dispose();
    const codes = candidates ?? this.vocab.languages;
    languageRestriction(this.vocab, codes)(row, []);
    const z = logSumExp(row, 0, row.length);
    return new Map(codes.map((c) => [c, Math.exp(row[this.vocab.languageToken(c)]! - z)]));
  }

  /**
   * The prompt of a pass with `opts` run through the decoder once, for several passes that begin with it
   * (see generate's `start`); the caller releases it.
   */
  async promptRun(encoded: EncodedWindow, opts: Pick<GenerateOptions, 'language' | 'promptIds' | 'wantAttention'>): Promise<PromptRun> {
    const { prefix, prompt } = this.framing(encoded, { ...opts, audioSeconds: 0 });
    // logits from <|startoftranscript|> on: its row gives the no-speech probability, the last row the first token
    const out = await this.decoderForward(prompt, null, encoded, { wantAttention: opts.wantAttention, logitsFrom: prefix.length });
    const noSpeech = rowAt(out.logits, 0);
    const row = rowAt(out.logits, prompt.length - 1 - prefix.length);
    out.logits.dispose();
    const noSpeechProb = Math.exp(noSpeech[this.vocab.noSpeech]! - logSumExp(noSpeech, 0, noSpeech.length));
    return new PromptRun(prompt, out.cache, row, out.attention?.[0] ?? null, noSpeechProb);
  }

  /**
   * One decoding pass over a window (greedy at temperature 0, sampling above; generate.ts), from `start`
   * when given (a promptRun of the same prompt, left for the caller to release) instead of running the
   * prompt again.
   */
  async generate(encoded: EncodedWindow, opts: GenerateOptions, start?: PromptRun): Promise<Generation> {
    return generatePass(this, encoded, opts, start ?? (await this.promptRun(encoded, opts)), !start);
  }

  /**
   * Per target (each of `ids`, then <|endoftext|>) from target `from` on: its log-probability in one
   * teacher-forced run after the framing of `opts`, without grammar masks: a yardstick for comparing
   * transcriptions of one window under the same prompt. The rows before `from` are not projected onto
   * the vocabulary, most of a scoring run's cost. `onRow` sees each scored row (target index, row,
   * log-normaliser) before it is dropped.
   */
  async score(
    encoded: EncodedWindow,
    opts: Pick<GenerateOptions, 'language' | 'promptIds'>,
    ids: readonly number[],
    from = 0,
    onRow?: (target: number, row: Float32Array, z: number) => void,
  ): Promise<number[]> {
    if (!(from >= 0 && from <= ids.length)) throw new RangeError(`score(): from ${from} is outside 0..${ids.length}`);
    const { prompt } = this.framing(encoded, { ...opts, audioSeconds: 0 });
    const targets = [...ids, this.vocab.eot].slice(from);
    const out = await this.decoderForward([...prompt, ...ids], null, encoded, { logitsFrom: prompt.length - 1 + from });
    out.cache.release();
    try {
      const vocabSize = out.logits.dims[2]!;
      const data = out.logits.data as Float32Array;
      return targets.map((target, i) => {
        const row = data.subarray(i * vocabSize, (i + 1) * vocabSize);
        const z = logSumExp(row, 0, vocabSize);
        onRow?.(from + i, row, z);
        return row[target]! - z;
      });
    } finally {
      out.logits.dispose();
    }
  }

  /**
   * Chosen targets of several transcriptions of the window (each id, then <|endoftext|>), scored in one
   * teacher-forced run after the framing of `opts`: the prompt and the sequences are laid out as one prefix
   * tree (treeLayout), so what they share is decoded once and each token sees its own sequence only, and a
   * sequence is decoded no further than its last wanted target. Only the rows that predict a wanted target
   * are projected onto the vocabulary (most of a scoring run's cost): they go last in the run, whose mask
   * and positions make the order of its tokens free. One run rounds the decoder's activations alike for
   * all of them (the q8 graphs quantize each run's activations by that run's range), so their
   * log-probabilities compare as a run's would. Per sequence one entry per target: NaN where not wanted.
   */
  async scoreTargets(
    encoded: EncodedWindow,
    opts: Pick<GenerateOptions, 'language' | 'promptIds'>,
    sequences: readonly (readonly number[])[],
    wanted: readonly (readonly number[])[],
  ): Promise<number[][]> {
    const { prompt } = this.framing(encoded, { ...opts, audioSeconds: 0 });
    const tree = new PrefixTree();
    const afterPrompt = prompt.reduce((node, id) => tree.child(node, id), -1);
    // per sequence, the node after each of its first tokens: the one whose row predicts that target
    const predictors = sequences.map((ids, k) => {
      const targets = wanted[k] ?? [];
      if (targets.some((t) => !(Number.isInteger(t) && t >= 0 && t <= ids.length))) throw new RangeError(`scoreTargets(): a target of sequence ${k} is outside 0..${ids.length}`);
      const at = [afterPrompt];
      for (let i = 0; i < Math.max(0, ...targets); i++) at.push(tree.child(at[i]!, ids[i]!));
      return at;
    });
    const rowNodes = [...new Set(sequences.flatMap((_, k) => (wanted[k] ?? []).map((t) => predictors[k]![t]!)))];
    if (rowNodes.length === 0) return sequences.map((ids) => new Array<number>(ids.length + 1).fill(NaN));
    const projected = new Set(rowNodes);
    const order = [...tree.ids.keys()].filter((n) => !projected.has(n)).concat(rowNodes);
    const out = await this.decoderForward(
      order.map((n) => tree.ids[n]!),
      null,
      encoded,
      { logitsFrom: order.length - rowNodes.length, layout: treeLayout(tree.parents, order) },
    );
    out.cache.release();
    try {
      const vocabSize = out.logits.dims[2]!;
      const data = out.logits.data as Float32Array;
      const rowOf = new Map(rowNodes.map((n, r) => [n, r]));
      const normalisers = new Map<number, number>();
      const logprob = (node: number, target: number) => {
        const r = rowOf.get(node)!;
        const row = data.subarray(r * vocabSize, (r + 1) * vocabSize);
        const z = normalisers.get(r) ?? logSumExp(row, 0, vocabSize);
        normalisers.set(r, z);
        return row[target]! - z;
      };
      return sequences.map((ids, k) => {
        const scores = new Array<number>(ids.length + 1).fill(NaN);
        for (const t of wanted[k] ?? []) scores[t] = logprob(predictors[k]![t]!, ids[t] ?? this.vocab.eot);
        return scores;
      });
    } finally {
      out.logits.dispose();
    }
  }

  /** The sum of score(): one transcription's log-probability under a prompt. */
  async sequenceLogprob(encoded: EncodedWindow, opts: Pick<GenerateOptions, 'language' | 'promptIds'>, ids: readonly number[]): Promise<number> {
    return (await this.score(encoded, opts, ids)).reduce((a, b) => a + b, 0);
  }

  /**
   * The cache after the prompt of `opts` and `ids`, and the row that follows, for a loop that decodes on
   * from there (decodeLoop's start); the caller owns the cache.
   */
  async startAfter(encoded: EncodedWindow, opts: Pick<GenerateOptions, 'language' | 'promptIds'>, ids: readonly number[]): Promise<{ cache: KvCache; row: Float32Array }> {
    const { prompt } = this.framing(encoded, { ...opts, audioSeconds: 0 });
    const input = [...prompt, ...ids];
    const out = await this.decoderForward(input, null, encoded, { logitsFrom: input.length - 1 });
    const row = rowAt(out.logits, 0);
    out.logits.dispose();
    return { cache: out.cache, row };
  }

  /**
   * The alignment heads' attention rows for a finished pass, by one teacher-forced run, as the decoding
   * loop collects them: from the position that predicted each token, and the end of text's when the
   * pass ended with one. For passes decoded without attention (constrained, proposals).
   */
  async attentionRows(encoded: EncodedWindow, prompt: readonly number[], ids: readonly number[], endedWithEot: boolean): Promise<Float32Array[]> {
    const rows = ids.length + (endedWithEot ? 1 : 0);
    const positions = Array.from({ length: rows }, (_, i) => prompt.length - 1 + i);
    const input = [...prompt, ...ids].slice(0, prompt.length - 1 + Math.max(1, rows));
    const out = await this.decoderForward(input, null, encoded, { wantAttention: true, attentionAt: positions, logitsFrom: input.length - 1 });
    out.logits.dispose();
    out.cache.release();
    return out.attention ?? [];
  }

  /** The prompt before the generated tokens, and the token and timestamp limits of a pass with `opts`. */
  framing(encoded: EncodedWindow, opts: Pick<GenerateOptions, 'language' | 'promptIds' | 'maxTokens' | 'audioSeconds'>) {
    const v = this.vocab;
    const prefix = opts.promptIds?.length ? [v.startOfPrev, ...opts.promptIds] : [];
    const prompt = [...prefix, v.sot, v.languageToken(opts.language), v.transcribe];
    // half the context for the generated tokens, as OpenAI's decoder (sample_len), and never past the context
    const maxTokens = Math.min(opts.maxTokens ?? this.maxPositions / 2, this.maxPositions - prompt.length);
    const maxTsIndex = Math.min(encoded.frames, Math.ceil((opts.audioSeconds * 1000) / ENCODER_FRAME_MS));
    return { prefix, prompt, maxTokens, maxTsIndex };
  }

  /** `cache` cut down to the positions `keep` (KvCache.gather); the caller still releases `cache`. */
  gatherCache(cache: KvCache, keep: readonly number[]): KvCache {
    return cache.gather(keep);
  }

  async release(): Promise<void> {
    await this.encoder.release();
    await this.decoder.release();
  }

  /**
   * One decoder run over `ids` after `past` (null: from the start of the window). The input cache stays
   * the caller's to release; the result's cache (`past` with the keys and values of `ids` appended, all
   * the run gives back of the self-attention, and the window's cross-attention) is the caller's too. The
   * logits are [1, ids.length - logitsFrom, vocab]: row r is position logitsFrom + r.
   */
  async decoderForward(ids: readonly number[], past: KvCache | null, encoded: EncodedWindow, run: DecoderRunOptions = {}): Promise<DecoderOutput> {
    const { wantAttention = false, attentionAt = [ids.length - 1], logitsFrom = 0 } = run;
    const { dims } = this;
    const cross = this.crossCaches.get(encoded) ?? (await this.crossCache(encoded));
    if (past && past.cross !== cross) throw new Error('decoderForward(): the cache belongs to another window');
    const pastLength = past?.length ?? 0;
    const layout = run.layout ?? sequenceLayout(pastLength, ids.length);
    const fetches = ['logits'];
    for (let l = 0; l < dims.layers; l++) fetches.push(`present.${l}.decoder.key`, `present.${l}.decoder.value`);
    const attnLayers = wantAttention ? [...new Set(this.alignmentHeads.map(([l]) => l))] : [];
    for (const l of attnLayers) fetches.push(`cross_attentions.${l}`);
    // The cached branch reads cross-attention keys/values from the cache, never the hidden states:
    // a one-frame stand-in saves copying the whole encoder output into wasm memory at every step.
    const standIn = this.hiddenStandIn(encoded);
    const out = await this.runDecoder(ids, past, cross, standIn, logitsFrom, layout, fetches).finally(() => standIn.dispose());

    const layers = Array.from({ length: dims.layers }, (_, l) => l);
    const added = (kind: 'key' | 'value') => layers.map((l) => out[`present.${l}.decoder.${kind}`]!.data as Float32Array);
    const cache = (past ?? KvCache.empty(cross, dims.layers, dims.heads * dims.headDim)).appended(added('key'), added('value'), ids.length);
    for (const l of layers) for (const kind of ['key', 'value']) out[`present.${l}.decoder.${kind}`]!.dispose();
    const attention = wantAttention ? attentionAt.map((p) => this.alignmentRows(out, p)) : null;
    for (const l of attnLayers) out[`cross_attentions.${l}`]!.dispose();
    return { logits: out['logits']!, cache, attention };
  }

  /**
   * The window's cross-attention keys and values, from a run of the uncached branch, which computes
   * nothing else (patchWhisperDecoder): every token run then begins from them in the cached branch.
   */
  private async crossCache(encoded: EncodedWindow): Promise<CrossCache> {
    const layers = Array.from({ length: this.dims.layers }, (_, l) => l);
    const fetches = layers.flatMap((l) => [`present.${l}.encoder.key`, `present.${l}.encoder.value`]);
    // the branch reads the hidden states alone: one token fills the inputs it no longer uses
    const out = await this.runDecoder([this.vocab.eot], null, null, encoded.hidden, 0, sequenceLayout(0, 1), fetches);
    const cross = { keys: layers.map((l) => out[`present.${l}.encoder.key`]!), values: layers.map((l) => out[`present.${l}.encoder.value`]!) };
    this.crossCaches.set(encoded, cross);
    return cross;
  }

  /** One run of the merged decoder: the cached branch when `cross` is given, else the uncached one. */
  private async runDecoder(
    ids: readonly number[],
    past: KvCache | null,
    cross: CrossCache | null,
    hidden: Tensor,
    logitsFrom: number,
    layout: { mask: Float32Array; positions: BigInt64Array },
    fetches: string[],
  ): Promise<Record<string, Tensor>> {
    const { ort, dims } = this;
    const pastLength = past?.length ?? 0;
    const empty = new ort.Tensor('float32', new Float32Array(0), [1, dims.heads, 0, dims.headDim]);
    const created: Tensor[] = [
      new ort.Tensor('int64', BigInt64Array.from(ids, (x) => BigInt(x)), [1, ids.length]),
      new ort.Tensor('bool', new Uint8Array([cross ? 1 : 0]), [1]),
      new ort.Tensor('int64', BigInt64Array.from([BigInt(logitsFrom)]), [1]),
      new ort.Tensor('float32', layout.mask, [ids.length, pastLength + ids.length]),
      new ort.Tensor('int64', layout.positions, [ids.length]),
      empty,
    ];
    const [inputIds, useCache, from, mask, positions] = created as [Tensor, Tensor, Tensor, Tensor, Tensor];
    const feeds: Record<string, Tensor> = {
      input_ids: inputIds,
      encoder_hidden_states: hidden,
      use_cache_branch: useCache,
      [LOGITS_FROM]: from,
      [SELF_MASK]: mask,
      [TOKEN_POSITIONS]: positions,
    };
    // the self-attention cache goes in position-major, as the patched decoder takes it: views, no copy
    const selfDims = [1, pastLength, dims.heads, dims.headDim];
    for (let l = 0; l < dims.layers; l++) {
      const self = past?.layer(l);
      const key = new ort.Tensor('float32', self?.key ?? new Float32Array(0), selfDims);
      const value = new ort.Tensor('float32', self?.value ?? new Float32Array(0), selfDims);
      created.push(key, value);
      feeds[`past_key_values.${l}.decoder.key`] = key;
      feeds[`past_key_values.${l}.decoder.value`] = value;
      feeds[`past_key_values.${l}.encoder.key`] = cross?.keys[l] ?? empty;
      feeds[`past_key_values.${l}.encoder.value`] = cross?.values[l] ?? empty;
    }
    try {
      return await this.decoder.run(feeds, fetches);
    } finally {
      for (const t of created) t.dispose();
    }
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

/** One decoder run's results; the caller disposes the logits and releases the cache. */
export interface DecoderOutput {
  logits: Tensor;
  cache: KvCache;
  attention: Float32Array[] | null;
}

export interface DecoderRunOptions {
  /** Return the alignment heads' cross-attention rows at `attentionAt` (default: the last input position). */
  wantAttention?: boolean;
  attentionAt?: readonly number[];
  /** The first position whose logits are computed (default 0). */
  logitsFrom?: number;
  /** The mask and positions laid out by the caller (beamLayout, treeLayout), instead of a sequence. */
  layout?: { mask: Float32Array; positions: BigInt64Array };
}

/**
 * The mask and positions of one new token per hypothesis after `past` cached positions, all kept in one
 * cache (beam search): hypothesis k's token sees the first `shared` positions, the cached positions in
 * `own[k]` (its earlier tokens) and itself, at position shared + own[k].length.
 */
export function beamLayout(past: number, shared: number, own: readonly (readonly number[])[]): { mask: Float32Array; positions: BigInt64Array } {
  const count = own.length;
  const keys = past + count;
  const mask = new Float32Array(count * keys).fill(-1e9);
  const positions = new BigInt64Array(count);
  own.forEach((seen, k) => {
    const row = mask.subarray(k * keys, (k + 1) * keys);
    row.fill(0, 0, shared);
    for (const p of seen) row[p] = 0;
    row[past + k] = 0;
    positions[k] = BigInt(shared + seen.length);
  });
  return { mask, positions };
}

/** Token sequences merged where they begin alike: node n holds ids[n] after node parents[n] (-1: none). */
class PrefixTree {
  readonly ids: number[] = [];
  readonly parents: number[] = [];
  private readonly nodes = new Map<string, number>();

  /** The node holding `id` after `parent`, added if new. */
  child(parent: number, id: number): number {
    const key = `${parent}:${id}`;
    let node = this.nodes.get(key);
    if (node === undefined) {
      node = this.ids.length;
      this.ids.push(id);
      this.parents.push(parent);
      this.nodes.set(key, node);
    }
    return node;
  }
}

/**
 * The self-attention mask and positions of one run over the nodes of a prefix tree (`parents[n]` before
 * n, -1 for a root) in the run's `order`: each node sees itself and the nodes before it on its path, at
 * its depth, wherever they sit in the run.
 */
export function treeLayout(parents: readonly number[], order: readonly number[]): { mask: Float32Array; positions: BigInt64Array } {
  const keys = order.length;
  const slot = new Map(order.map((n, i) => [n, i]));
  const mask = new Float32Array(keys * keys).fill(-1e9);
  const positions = new BigInt64Array(keys);
  order.forEach((node, r) => {
    let depth = 0;
    for (let n = node; n >= 0; n = parents[n]!, depth++) {
      const s = slot.get(n);
      if (s === undefined) throw new RangeError(`treeLayout(): node ${n}, on the path of node ${node}, is not in the run`);
      mask[r * keys + s] = 0;
    }
    positions[r] = BigInt(depth - 1);
  });
  return { mask, positions };
}

/** The self-attention mask and positions of `count` new tokens after `past` cached ones, each seeing all before it. */
export function sequenceLayout(past: number, count: number): { mask: Float32Array; positions: BigInt64Array } {
  const keys = past + count;
  const mask = new Float32Array(count * keys);
  const positions = new BigInt64Array(count);
  for (let i = 0; i < count; i++) {
    positions[i] = BigInt(past + i);
    mask.fill(-1e9, i * keys + past + i + 1, (i + 1) * keys);
  }
  return { mask, positions };
}

/** A prompt run once through the decoder (WhisperModel.promptRun), for passes that begin with it. */
export class PromptRun {
  constructor(
    private readonly prompt: readonly number[],
    /** The cache after the prompt: a pass forks it. */
    readonly cache: KvCache,
    /** The raw row predicting the first generated token. */
    readonly row: Float32Array,
    /** The alignment heads' attention at the prompt's last position, when it was asked for. */
    readonly attention: Float32Array | null,
    readonly noSpeechProb: number,
  ) {}

  /** Whether a pass with `prompt` (and attention rows, if wanted) may begin from this run. */
  fits(prompt: readonly number[], wantAttention: boolean): boolean {
    return prompt.length === this.prompt.length && prompt.every((id, i) => id === this.prompt[i]) && (!wantAttention || this.attention !== null);
  }

  release(): void {
    this.cache.release();
  }
}
