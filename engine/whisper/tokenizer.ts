import { Tokenizer } from '@huggingface/tokenizers';

/** The subset of generation_config.json the decoder relies on. */
export interface GenerationConfig {
  alignment_heads: [number, number][];
  begin_suppress_tokens: number[];
  decoder_start_token_id: number;
  eos_token_id: number;
  no_timestamps_token_id: number;
  suppress_tokens?: number[];
  lang_to_id: Record<string, number>;
  task_to_id: Record<string, number>;
  max_length: number;
}

/**
 * Whisper's vocabulary: the model's own tokenizer.json for text, and the special-token ids
 * (start, languages, tasks, timestamps) from generation_config.json.
 */
export class WhisperVocabulary {
  readonly sot: number;
  readonly eot: number;
  readonly transcribe: number;
  readonly noTimestamps: number;
  /** Id of <|0.00|>; timestamp k is timestampBegin + k, k * 20 ms. */
  readonly timestampBegin: number;
  readonly noSpeech: number;
  readonly startOfPrev: number;
  /** Language code → token id, in the model's order. */
  readonly languageIds: ReadonlyMap<string, number>;
  readonly suppress: readonly number[];
  readonly beginSuppress: readonly number[];
  private readonly tokenizer: Tokenizer;

  constructor(tokenizerJson: object, tokenizerConfig: object, generation: GenerationConfig) {
    this.tokenizer = new Tokenizer(tokenizerJson, tokenizerConfig);
    this.sot = generation.decoder_start_token_id;
    this.eot = generation.eos_token_id;
    this.transcribe = requireId(generation.task_to_id['transcribe'], 'transcribe task');
    this.noTimestamps = generation.no_timestamps_token_id;
    this.timestampBegin = this.noTimestamps + 1;
    this.noSpeech = requireId(this.tokenizer.token_to_id('<|nocaptions|>') ?? this.tokenizer.token_to_id('<|nospeech|>'), 'no-speech token');
    this.startOfPrev = requireId(this.tokenizer.token_to_id('<|startofprev|>'), '<|startofprev|> token');
    this.languageIds = new Map(
      Object.entries(generation.lang_to_id)
        .map(([tok, id]) => [tok.slice(2, -2), id] as [string, number])
        .sort((a, b) => a[1] - b[1]),
    );
    this.suppress = generation.suppress_tokens ?? [];
    this.beginSuppress = generation.begin_suppress_tokens;
  }

  get languages(): string[] {
    return [...this.languageIds.keys()];
  }

  languageToken(code: string): number {
    return requireId(this.languageIds.get(code), `language '${code}'`);
  }

  languageOf(tokenId: number): string | undefined {
    for (const [code, id] of this.languageIds) if (id === tokenId) return code;
    return undefined;
  }

  isTimestamp(id: number): boolean {
    return id >= this.timestampBegin;
  }

  isText(id: number): boolean {
    return id < this.eot;
  }

  /** Text of ordinary tokens (special and timestamp tokens are skipped). */
  decode(ids: readonly number[]): string {
    const text = ids.filter((id) => id < this.eot);
    // the tokenizer throws on an empty list (a run of special tokens only)
    if (text.length === 0) return '';
    return this.tokenizer.decode(text, { skip_special_tokens: true, clean_up_tokenization_spaces: false });
  }

  /**
   * Ordinary-token ids of `text` as Whisper would emit it (no special tokens added). The tokenizer
   * reads special-token text such as `<|endoftext|>` or `<|0.00|>` inside `text` as that token; such
   * ids (at or above end-of-text) are dropped, so no text (a phrase, a prompt) can put a control
   * token into the decoder's prompt or a biasing trie. Every tokenization of text goes through here.
   */
  encode(text: string): number[] {
    return this.tokenizer.encode(text, { add_special_tokens: false }).ids.filter((id) => id < this.eot);
  }
}

function requireId(id: number | undefined, what: string): number {
  if (id === undefined) throw new Error(`tokenizer: missing ${what}`);
  return id;
}
