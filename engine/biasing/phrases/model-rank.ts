import type { DecodeOptions } from '../../decoding/fallback';
import { logSumExp } from '../../whisper/logits';
import type { KvCache } from '../../whisper/kv-cache';
import type { EncodedWindow, WhisperModel } from '../../whisper/model';
import type { GeneratedToken } from '../../whisper/generate';
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

/** A list's spaced forms by first token, kept for the last few lists (see formsBy for one not to keep). */
export function formIndex(vocab: BiasVocabulary, phrases: readonly string[]): FormIndex {
  let lists = formIndexes.get(vocab);
  if (!lists) formIndexes.set(vocab, (lists = recentLists<FormIndex>(4)));
  return lists(phrases, () => formsBy(vocab, phrases));
}

/** The phrases' spaced forms by first token. */
export function formsBy(vocab: BiasVocabulary, phrases: readonly string[]): FormIndex {
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
 * Partial forms extended per place and decoder run, the likeliest first: each costs a row over the
 * 51,865-token vocabulary (about 4 ms on tiny, 6 ms on base), a run itself 20–40 ms, paid once for all
 * places (treeRows).
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

/** Log-probabilities of the next token after prefixes of a place's tree (its root's row: prefix []). */
interface TreeRows {
  logprob(prefix: readonly number[], token: number): number;
}

/** A place's tree in a run of treeRows: its root token, how many cached positions it follows, the prefixes whose rows are wanted. */
interface TreeAt {
  root: number;
  sees: number;
  prefixes: readonly (readonly number[])[];
}

/**
 * One decoder run after `self` over the trees of several places (WhisperModel.decoderForward's `parents`
 * and `sees`: each token sees only its place's prefix of the cache and its own ancestors): each tree is its
 * root token and its `prefixes` after it. Only the rows of `prefixes` (and of any prefix below one of them)
 * are projected onto the vocabulary: the shorter ones were scored before. A run's own cost (about 20 ms on
 * tiny) is paid once for every place, not once per place.
 */
async function treeRows(model: WhisperModel, encoded: EncodedWindow, cache: KvCache, trees: readonly TreeAt[]): Promise<TreeRows[]> {
  type Node = { tree: number; key: string; id: number; depth: number; parent: string | null; projected: boolean };
  const nodes = new Map<string, Node>();
  trees.forEach(({ root, prefixes }, tree) => {
    const wanted = new Set(prefixes.map((p) => p.join()));
    const rootKey = `${tree}:`;
    nodes.set(rootKey, { tree, key: rootKey, id: root, depth: 0, parent: null, projected: wanted.has('') });
    for (const p of prefixes) {
      let below = wanted.has('');
      for (let d = 1; d <= p.length; d++) {
        const path = p.slice(0, d).join();
        const key = `${tree}:${path}`;
        below ||= wanted.has(path);
        nodes.set(key, { tree, key, id: p[d - 1]!, depth: d, parent: `${tree}:${p.slice(0, d - 1).join()}`, projected: below || (nodes.get(key)?.projected ?? false) });
      }
    }
  });
  // parents first: the unprojected (none has a projected parent), then the projected, each by depth
  const order = [...nodes.values()].sort((a, b) => Number(a.projected) - Number(b.projected) || a.depth - b.depth);
  const at = new Map(order.map((n, i) => [n.key, i]));
  const firstRow = order.findIndex((n) => n.projected);
  const run = await model.decoderForward(
    order.map((n) => n.id),
    cache,
    encoded,
    {
      parents: order.map((n) => (n.parent === null ? -1 : at.get(n.parent)!)),
      sees: order.map((n) => trees[n.tree]!.sees),
      logitsFrom: firstRow,
    },
  );
  run.cache.release();
  const data = (run.logits.data as Float32Array).slice();
  const size = run.logits.dims[2]!;
  run.logits.dispose();
  const z = new Map<number, number>();
  return trees.map((_, tree) => ({
    logprob(prefix, token) {
      const row = at.get(`${tree}:${prefix.join()}`)! - firstRow;
      if (!z.has(row)) z.set(row, logSumExp(data, row * size, (row + 1) * size));
      return data[row * size + token]! - z.get(row)!;
    },
  }));
}

export interface HearOptions {
  /** Forms less likely than this are not heard (default HEARD_FLOOR). */
  floor?: number;
  /** How many of the likeliest phrases are wanted (default all above the floor). */
  count?: number;
  /** What the pass wrote after `root`: a form it begins with is not heard (it is not news). */
  written?: readonly number[];
  /** A form whose first token is less likely than this is not extended (default FIRST_TOKEN_FLOOR): bounds a long list's work. */
  firstTokenFloor?: number;
  /** Tokens forced after `root`, before any form: every form is heard after them, their log-probabilities counted in. */
  lead?: readonly number[];
}

/**
 * One place's search (see phrasesAfter): the row after its root scores every form's first token; the
 * forms of the FIRST_TOKENS_PER_PLACE likeliest are then extended best first, EXTENDED_PER_RUN partial
 * forms per run, until no partial form can still be among the `count` likeliest: a log-probability only
 * falls as tokens are added.
 */
class PlaceSearch {
  private open: Heard[] = [];
  private readonly done: Heard[] = [];
  private readonly floor: number;
  private readonly count: number;
  private readonly written: readonly number[];
  private readonly lead: readonly number[];
  private readonly firstTokenFloor: number;

  constructor(
    private readonly index: FormIndex,
    options: HearOptions,
  ) {
    this.floor = options.floor ?? HEARD_FLOOR;
    this.count = options.count ?? Infinity;
    this.written = options.written ?? [];
    this.lead = options.lead ?? [];
    this.firstTokenFloor = options.firstTokenFloor ?? FIRST_TOKEN_FLOOR;
  }

  /** The prefixes whose rows begin() reads: the root's, and each of the lead's. */
  get beginning(): number[][] {
    return [[], ...this.lead.map((_, i) => this.lead.slice(0, i + 1))];
  }

  /** Each form's first token from the row after the root and the lead (`rows`, prefixes `beginning`). */
  begin(rows: TreeRows): void {
    const leadLogprobs = this.lead.map((id, i) => rows.logprob(this.lead.slice(0, i), id));
    const leadLogprob = leadLogprobs.reduce((a, b) => a + b, 0);
    const starts: Array<{ lp: number; forms: readonly Form[] }> = [];
    for (const [token, forms] of this.index) {
      const lp = rows.logprob(this.lead, token);
      if (leadLogprob + lp >= this.floor && lp >= this.firstTokenFloor) starts.push({ lp, forms });
    }
    starts.sort((a, b) => b.lp - a.lp);
    this.open = starts.slice(0, FIRST_TOKENS_PER_PLACE).flatMap(({ lp, forms }) =>
      forms
        .map((f) => ({ phrase: f.phrase, ids: [...this.lead, ...f.ids], logprobs: [...leadLogprobs, lp], logprob: leadLogprob + lp }))
        .filter((h) => !h.ids.every((id, i) => this.written[i] === id)),
    );
  }

  /** The partial forms to extend next, the likeliest (and every form that shares one's prefix); none when the search is over. */
  next(): number[][] {
    this.done.push(...this.open.filter((h) => h.logprobs.length === h.ids.length));
    this.done.sort((a, b) => b.logprob - a.logprob);
    const bar = this.done.length < this.count ? this.floor : Math.max(this.floor, this.done[this.count - 1]!.logprob);
    this.open = this.open.filter((h) => h.logprobs.length < h.ids.length && h.logprob >= bar);
    return [...new Set(this.open.map((h) => h.ids.slice(0, h.logprobs.length).join()))].slice(0, EXTENDED_PER_RUN).map((p) => p.split(',').map(Number));
  }

  /** Extends the partial forms of `prefixes` by their next token's log-probability in `rows`. */
  extend(rows: TreeRows, prefixes: readonly (readonly number[])[]): void {
    const chosen = new Set(prefixes.map((p) => p.join()));
    for (const h of this.open) {
      const prefix = h.ids.slice(0, h.logprobs.length);
      if (!chosen.has(prefix.join())) continue;
      const lp = rows.logprob(prefix, h.ids[prefix.length]!);
      h.logprobs.push(lp);
      h.logprob += lp;
    }
    this.open.sort((a, b) => b.logprob - a.logprob);
  }

  heard(): Heard[] {
    return this.done.filter((h) => h.logprob >= this.floor);
  }
}

/**
 * A place to hear phrases at: the token before it, how many cached positions precede that token, what the
 * pass wrote from it on, and any tokens forced before a phrase (see leadPlaces).
 */
interface Place {
  root: number;
  sees: number;
  written: readonly number[];
  lead?: readonly number[];
}

/**
 * The listed phrases, likeliest first, that the model finds likely as the words after each place's root
 * token (PlaceSearch), all places searched side by side: one decoder run per round serves every place.
 * `cache` is the one each place's root follows a prefix of.
 */
async function searchPlaces(
  model: WhisperModel,
  encoded: EncodedWindow,
  cache: KvCache,
  places: readonly Place[],
  index: FormIndex,
  options: Omit<HearOptions, 'written'>,
  checkpoint?: () => void,
): Promise<Heard[][]> {
  const searches = places.map((p) => new PlaceSearch(index, { ...options, written: p.written, ...(p.lead ? { lead: p.lead } : {}) }));
  const roots = await treeRows(model, encoded, cache, places.map((p, i) => ({ root: p.root, sees: p.sees, prefixes: searches[i]!.beginning })));
  searches.forEach((search, i) => search.begin(roots[i]!));
  for (;;) {
    checkpoint?.();
    const wanted = searches.map((search) => search.next());
    const active = wanted.flatMap((prefixes, i) => (prefixes.length > 0 ? [i] : []));
    if (active.length === 0) break;
    const rows = await treeRows(model, encoded, cache, active.map((i) => ({ root: places[i]!.root, sees: places[i]!.sees, prefixes: wanted[i]! })));
    active.forEach((i, k) => searches[i]!.extend(rows[k]!, wanted[i]!));
  }
  return searches.map((search) => search.heard());
}

/**
 * The listed phrases, likeliest first, that the model finds likely as the words after `root`: `cache`
 * is the cache of the tokens before `root` (released here). See PlaceSearch.
 */
export async function phrasesAfter(model: WhisperModel, encoded: EncodedWindow, cache: KvCache, root: number, index: FormIndex, options: HearOptions = {}): Promise<Heard[]> {
  try {
    return (await searchPlaces(model, encoded, cache, [{ root, sees: cache.length, written: options.written ?? [] }], index, options))[0]!;
  } finally {
    cache.release();
  }
}

/**
 * At each of `places` (token indices of `tokens`, a decoded pass), the phrases of `index` (formIndex) the model finds
 * likeliest there (PlaceSearch, as `hear` says), leaving out a phrase the pass already wrote there.
 */
export async function phrasesHeard(
  model: WhisperModel,
  encoded: EncodedWindow,
  opts: DecodeOptions,
  tokens: readonly GeneratedToken[],
  places: readonly number[],
  index: FormIndex,
  hear: Omit<HearOptions, 'written'>,
): Promise<Map<number, Heard[]>> {
  const out = new Map<number, Heard[]>();
  if (places.length === 0) return out;
  const { prompt } = model.framing(encoded, opts);
  const ids = [...prompt, ...tokens.map((t) => t.id)];
  const longest = prompt.length + Math.max(...places);
  const run = await model.decoderForward(ids.slice(0, longest), null, encoded, { logitsFrom: longest - 1 });
  run.logits.dispose();
  try {
    const leads = leadPlaces(model.vocab, tokens, places);
    const asked = [...places.map((place) => ({ place, lead: undefined })), ...leads];
    const heard = await searchPlaces(
      model,
      encoded,
      run.cache,
      asked.map(({ place, lead }) => {
        const a = prompt.length + place;
        return { root: ids[a - 1]!, sees: a - 1, written: ids.slice(a), ...(lead ? { lead } : {}) };
      }),
      index,
      hear,
      opts.checkpoint,
    );
    asked.forEach(({ place }, i) => {
      const both = [...(out.get(place) ?? []), ...heard[i]!].sort((a, b) => b.logprob - a.logprob);
      out.set(place, both.slice(0, hear.count ?? both.length));
    });
  } finally {
    run.cache.release();
  }
  return out;
}

/** A whole word ending in s, and what it is without the s. */
const PLURAL = /^( [A-Za-z]{2,})s$/;

/**
 * Places where the word the pass wrote ends in an s that may be a name's first sound: Whisper hears a
 * name's leading /s/ or /z/ as a plural on the word before it ("My cousins year-student" for "My cousin
 * Saoirse studies", "the news of Ethermost Hat" for "the new Zigbee thermostat"). For each place's root
 * (the token before it) that is such a word, the phrases are heard after the word without its s (`lead`),
 * at the root's own index: what is heard there is written in from that word on. Only roots followed by
 * another word or punctuation: a token that a word goes on from ("news" of "newsletter") is not a plural.
 */
export function leadPlaces(vocab: WhisperModel['vocab'], tokens: readonly GeneratedToken[], places: readonly number[]): Array<{ place: number; lead: number[] }> {
  const out: Array<{ place: number; lead: number[] }> = [];
  for (const root of new Set(places.map((p) => p - 1))) {
    if (root < 0 || !vocab.isText(tokens[root]!.id)) continue;
    const next = tokens[root + 1];
    if (next && vocab.isText(next.id) && /^[A-Za-z]/.test(vocab.decode([next.id]))) continue;
    const stem = PLURAL.exec(vocab.decode([tokens[root]!.id]))?.[1];
    if (stem) out.push({ place: root, lead: vocab.encode(stem) });
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
  const { cache, row } = await model.startAfter(encoded, opts, [...tokens.slice(0, place).map((t) => t.id), ...heard.ids]);
  const written = heard.ids.map((id, i) => ({ id, logprob: heard.logprobs[i]! }));
  const on = await decodeOn(model, encoded, opts, f, tokens.slice(0, place), { tokens: written, cache, row }, tokens.slice(place));
  return on.ended ? on.tokens : null;
}
