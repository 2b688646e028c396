/**
 * Levenshtein distances from `pattern` to every prefix of a text: Myers' bit-vector algorithm (1999) in
 * blocks of 32 pattern characters, one pass per text. The shortlist matches a phrase against runs of
 * words that share their start, so one pass prices every run from a start for the cost of its longest.
 * The returned function gives, at [j], the distance to `text.slice(0, j + 1)` for j < `length`, in an
 * array it reuses.
 */
export function prefixDistances(pattern: string): (text: string, length: number) => Int32Array {
  const m = pattern.length;
  const blocks = Math.ceil(m / 32);
  // per character, the pattern positions holding it, as a bit mask per block; ASCII in a table
  const ascii = new Int32Array(128 * blocks);
  const other = new Map<number, Int32Array>();
  for (let i = 0; i < m; i++) {
    const c = pattern.charCodeAt(i);
    const bit = 1 << (i & 31);
    if (c < 128) {
      ascii[c * blocks + (i >> 5)]! |= bit;
    } else {
      if (!other.has(c)) other.set(c, new Int32Array(blocks));
      other.get(c)![i >> 5]! |= bit;
    }
  }
  const none = new Int32Array(blocks);
  // each block's vertical deltas of +1 and of -1 in the current column
  const plus = new Int32Array(blocks);
  const minus = new Int32Array(blocks);
  const lastBit = 1 << ((m - 1) & 31);
  let out = new Int32Array(0);
  return (text, length) => {
    if (out.length < length) out = new Int32Array(length);
    plus.fill(-1);
    minus.fill(0);
    let score = m;
    for (let j = 0; j < length; j++) {
      const c = text.charCodeAt(j);
      const masks = c < 128 ? ascii : (other.get(c) ?? none);
      const base = c < 128 ? c * blocks : 0;
      // the row above the pattern is D[0][j] = j: every column adds one
      let carry = 1;
      for (let b = 0; b < blocks; b++) {
        const pv = plus[b]!;
        const mv = minus[b]!;
        let eq = masks[base + b]!;
        const xv = eq | mv;
        if (carry < 0) eq |= 1;
        const xh = ((((eq & pv) + pv) | 0) ^ pv) | eq;
        let ph = mv | ~(xh | pv);
        let mh = pv & xh;
        const high = b === blocks - 1 ? lastBit : 1 << 31;
        const next = ph & high ? 1 : mh & high ? -1 : 0;
        ph = (ph << 1) | (carry > 0 ? 1 : 0);
        mh = (mh << 1) | (carry < 0 ? 1 : 0);
        plus[b] = mh | ~(xv | ph);
        minus[b] = ph & xv;
        carry = next;
      }
      score += carry;
      out[j] = score;
    }
    return out;
  };
}
