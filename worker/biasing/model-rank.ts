import type { DecodeOptions } from '../decode-window';
import { logSumExp } from '../logit-rules';
import { pick, releaseSelf, rowAt, type EncodedWindow, type GeneratedToken, type Past, type WhisperModel } from '../whisper';
import { decodeOn } from './decode-on';
import { recentLists } from './recent-lists';
import type { BiasVocabulary } from './trie';

/** A listed phrase as Whisper would write it after a space, in its tokens. */
interface Form {
  phrase: string;
  ids: number[];
}

/** Each list's spaced forms by first token, built once per list (a custom model's 10,000 phrases). */
type FormIndex = ReadonlyMap<number, readonly Form[]>;

/** The forms a phrase is ranked in: as listed and capitalised, after a space (a name inside a sentence). */
function spacedForms(phrase: string): string[] {
  const p = phrase.trim().replace(/\s+/g, ' ');
  return p ? [...new Set([` ${p}`, ` ${p[0]!.toUpperCase()}${p.slice(1)}`])] : [];
}

const formIndexes = new WeakMap<BiasVocabulary, ReturnType<typeof recentLists<FormIndex>>>();

export function formIndex(vocab: BiasVocabulary, phrases: readonly string[]): FormIndex {
  let lists = formIndexes.get(vocab);
  if (!lists) formIndexes.set(vocab, (lists = recentLists<FormIndex>(4)));
  return lists(phrases, () => {
    const index = new Map<number, Form[]>();
    const seen = new Set<string>();
    for (const phrase of phrases) {
      for (const form of spacedForms(phrase)) {
        const ids = vocab.encode(form);
        if (ids.length === 0 || ids.some((id) => id >= vocab.eot) || seen.has(ids.join())) continue;
        seen.add(ids.join());
        const forms = index.get(ids[0]!) ?? [];
        forms.push({ phrase, ids });
        index.set(ids[0]!, forms);
      }
    }
    return index;
  });
}

/**
 * A form whose first token is less likely than this is not scored further. A true name's first token
 * can be unlikely until the rest follows (" Z" of Zigbee at -11.8 on base, bench/bias-set/README.md).
 */
const FIRST_TOKEN_FLOOR = -12;

/**
 * A phrase less likely than this at a place is not heard there. Terms truly spoken that the judge went on
 * to keep scored -3 to -15.3 at the place they begin on bench/bias-set (base); listed names over unrelated
 * words mostly -18 to -40. Each token a partial form is extended by costs a row over the vocabulary, so
 * the floor, more than the list, sets what hearing costs (a place where nothing is heard costs most).
 */
export const HEARD_FLOOR = -16;

/**
 * First tokens whose forms are extended per place, the likeliest: bounds a long list's work where many
 * first tokens are likely. Forms that share a first token share its rows, so the bound is on first
 * tokens, not forms (a list of "Zorblax0" to "Zorblax248" must not crowd out "Zigbee").
 */
const FIRST_TOKENS_PER_PLACE = 32;

/**
 * Partial forms extended per decoder run, the likeliest first: each costs a row over the 51,865-token
 * vocabulary (about 6 ms on base, on top of a run's own 30–40 ms).
 */
const EXTENDED_PER_RUN = 8;

/** A listed phrase the model finds likely as the next words at a place. */
export interface Heard {
  phrase: string;
  ids: number[];
  /** Log-probability of each of its tokens there. */
  logprobs: number[];
  logprob: number;
}

/** Log-probabilities of the next token after prefixes of a tree, from one decoder run (treeRows). */
interface TreeRows {
  logprob(prefix: readonly number[], token: number): number;
}

/**
 * One decoder run after `self` over `prefixes` as a tree of tokens (each sees only its own earlier tokens,
 * WhisperModel.decoderForward's `parents`), their own prefixes included. Only the rows of `prefixes` (and
 * of any prefix below one of them) are projected onto the vocabulary: the shorter ones were scored before.
 */
async function treeRows(model: WhisperModel, encoded: EncodedWindow, self: Past, cross: Past, prefixes: readonly (readonly number[])[]): Promise<TreeRows> {
  const wanted = new Set(prefixes.map((p) => p.join()));
  const nodes = new Map<string, { ids: readonly number[]; projected: boolean }>();
  for (const p of prefixes) {
    let below = false;
    for (let d = 1; d <= p.length; d++) {
      const ids = p.slice(0, d);
      const key = ids.join();
      below ||= wanted.has(key);
      nodes.set(key, { ids, projected: below || (nodes.get(key)?.projected ?? false) });
    }
  }
  // parents first: the unprojected (none has a projected parent), then the projected, each by depth
  const order = [...nodes.values()].sort((a, b) => Number(a.projected) - Number(b.projected) || a.ids.length - b.ids.length);
  const at = new Map(order.map((n, i) => [n.ids.join(), i]));
  const firstRow = order.findIndex((n) => n.projected);
  const run = await model.decoderForward(
    order.map((n) => n.ids[n.ids.length - 1]!),
    { ...self, ...cross },
    encoded,
    { parents: order.map((n) => (n.ids.length === 1 ? -1 : at.get(n.ids.slice(0, -1).join())!)), consumePast: false, logitsFrom: firstRow },
  );
  releaseSelf(pick(run.past, '.decoder.'));
  const data = (run.logits.data as Float32Array).slice();
  const size = run.logits.dims[2]!;
  run.logits.dispose();
  const z = new Map<number, number>();
  return {
    logprob(prefix, token) {
      const row = at.get(prefix.join())! - firstRow;
      if (!z.has(row)) z.set(row, logSumExp(data, row * size, (row + 1) * size));
      return data[row * size + token]! - z.get(row)!;
    },
  };
}

export interface HearOptions {
  /** Forms less likely than this are not heard (default HEARD_FLOOR). */
  floor?: number;
  /** How many of the likeliest phrases are wanted (default all above the floor). */
  count?: number;
  /** What the pass wrote after `root`: a form it begins with is not heard (it is not news). */
  written?: readonly number[];
}

/**
 * The listed phrases, likeliest first, that the model finds likely as the words after `root`: `self`
 * is the self-attention cache of the tokens before `root` (disposed here). A run of `root` scores every
 * form's first token; the forms of the FIRST_TOKENS_PER_PLACE likeliest are then extended best first, several
 * partial forms per run as one tree of tokens (treeRows), until no partial form can still be among the
 * `count` likeliest: a log-probability only falls as tokens are added.
 */
export async function phrasesAfter(model: WhisperModel, encoded: EncodedWindow, self: Past, cross: Past, root: number, index: FormIndex, options: HearOptions = {}): Promise<Heard[]> {
  const { floor = HEARD_FLOOR, count = Infinity, written = [] } = options;
  const rootRun = await model.decoderForward([root], { ...self, ...cross }, encoded);
  const first = rowAt(rootRun.logits, 0);
  rootRun.logits.dispose();
  const afterRoot = pick(rootRun.past, '.decoder.');
  try {
    const z0 = logSumExp(first, 0, first.length);
    const starts: Array<{ lp: number; forms: readonly Form[] }> = [];
    for (const [token, forms] of index) {
      const lp = first[token]! - z0;
      if (lp >= floor && lp >= FIRST_TOKEN_FLOOR) starts.push({ lp, forms });
    }
    starts.sort((a, b) => b.lp - a.lp);
    let open: Heard[] = starts
      .slice(0, FIRST_TOKENS_PER_PLACE)
      .flatMap(({ lp, forms }) => forms.filter((f) => !f.ids.every((id, i) => written[i] === id)).map((f) => ({ ...f, logprobs: [lp], logprob: lp })));
    const done: Heard[] = [];
    const bar = () => (done.length < count ? floor : Math.max(floor, done[count - 1]!.logprob));
    for (;;) {
      done.push(...open.filter((h) => h.logprobs.length === h.ids.length));
      done.sort((a, b) => b.logprob - a.logprob);
      open = open.filter((h) => h.logprobs.length < h.ids.length && h.logprob >= bar());
      if (open.length === 0) break;
      // the likeliest partial forms, and every form that shares one's prefix (one row serves them all)
      const prefixes = [...new Set(open.map((h) => h.ids.slice(0, h.logprobs.length).join()))].slice(0, EXTENDED_PER_RUN);
      const chosen = new Set(prefixes);
      const rows = await treeRows(model, encoded, afterRoot, cross, prefixes.map((p) => p.split(',').map(Number)));
      for (const h of open) {
        const prefix = h.ids.slice(0, h.logprobs.length);
        if (!chosen.has(prefix.join())) continue;
        const lp = rows.logprob(prefix, h.ids[prefix.length]!);
        h.logprobs.push(lp);
        h.logprob += lp;
      }
      open.sort((a, b) => b.logprob - a.logprob);
    }
    return done.filter((h) => h.logprob >= floor);
  } finally {
    releaseSelf(afterRoot);
  }
}

/**
 * At each of `places` (token indices of `tokens`, a decoded pass), the listed phrases the model finds
 * likeliest there (phrasesAfter, as `hear` says), leaving out a phrase the pass already wrote there.
 */
export async function phrasesHeard(
  model: WhisperModel,
  encoded: EncodedWindow,
  opts: DecodeOptions,
  tokens: readonly GeneratedToken[],
  places: readonly number[],
  phrases: readonly string[],
  hear: Omit<HearOptions, 'written'>,
): Promise<Map<number, Heard[]>> {
  const out = new Map<number, Heard[]>();
  if (places.length === 0) return out;
  const { prompt } = model.framing(encoded, opts);
  const index = formIndex(model.vocab, phrases);
  const ids = [...prompt, ...tokens.map((t) => t.id)];
  const longest = prompt.length + Math.max(...places);
  const run = await model.decoderForward(ids.slice(0, longest), null, encoded, { logitsFrom: longest - 1 });
  run.logits.dispose();
  const cross = pick(run.past, '.encoder.');
  try {
    for (const place of places) {
      opts.checkpoint?.();
      const at = prompt.length + place;
      out.set(place, await phrasesAfter(model, encoded, model.selfPrefix(run.past, at - 1), cross, ids[at - 1]!, index, { ...hear, written: ids.slice(at) }));
    }
  } finally {
    releaseSelf(run.past);
  }
  return out;
}

/**
 * `heard` written into a decoded pass (`tokens`) at token `place`, then decoded on until the decoding comes
 * back to the pass (decode-on.ts): the words it replaces are whatever the model no longer needs once the
 * phrase is there ("go away" → "Galway"). Null when the decoding did not come to an end.
 */
export async function writtenIn(
  model: WhisperModel,
  encoded: EncodedWindow,
  opts: DecodeOptions,
  tokens: readonly GeneratedToken[],
  place: number,
  heard: Heard,
): Promise<GeneratedToken[] | null> {
  const f = model.framing(encoded, opts);
  const run = await model.decoderForward([...f.prompt, ...tokens.slice(0, place).map((t) => t.id), ...heard.ids], null, encoded, { logitsFrom: f.prompt.length + place + heard.ids.length - 1 });
  const row = rowAt(run.logits, 0);
  run.logits.dispose();
  const written = heard.ids.map((id, i) => ({ id, logprob: heard.logprobs[i]! }));
  const on = await decodeOn(model, encoded, opts, f, tokens.slice(0, place), { tokens: written, self: pick(run.past, '.decoder.'), row }, pick(run.past, '.encoder.'), tokens.slice(place));
  return on.ended ? on.tokens : null;
}
