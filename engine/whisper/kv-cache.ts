import type * as OrtModule from 'onnxruntime-web';

type Tensor = OrtModule.Tensor;

/**
 * A window's cross-attention keys and values, one pair per decoder layer. The window's first decoder
 * run computes them; every later run over the window reads them. They belong to the window
 * (WhisperModel.releaseWindow frees them), never to a KvCache.
 */
export interface CrossCache {
  readonly keys: readonly Tensor[];
  readonly values: readonly Tensor[];
}

/**
 * Self-attention keys and values, one buffer per decoder layer, position-major ([position][head][dim],
 * as the patched decoder takes and gives them) so that the first n positions are a view, never a copy.
 * Positions are only appended: caches over a prefix of what was written share the buffers.
 */
class SelfBuffers {
  constructor(
    readonly keys: Float32Array[],
    readonly values: Float32Array[],
    /** Positions written so far; a cache shorter than this must not write over them. */
    public written: number,
  ) {}
}

/** The fewest positions new buffers have room for (a prompt and its first tokens without growing again). */
const MIN_ROOM = 64;

/**
 * The decoder's key/value cache after some tokens: the self-attention part and the window's
 * cross-attention part. Forks share the self-attention buffers, so beams of continuations can start
 * from one prefix without copying it. Whoever holds a cache handed out (by a decoder run, append,
 * gather or fork) releases it once, and uses it no more.
 */
export class KvCache {
  private self: SelfBuffers | null;

  private constructor(
    self: SelfBuffers,
    readonly cross: CrossCache,
    /** Cached positions: how many tokens (a sequence, or beams laid out flat) the self part holds. */
    readonly length: number,
    /** Floats per position in each layer's buffer (heads × head size). */
    readonly width: number,
  ) {
    this.self = self;
  }

  /** A cache of no positions over `cross`, for `layers` decoder layers of `width` floats per position. */
  static empty(cross: CrossCache, layers: number, width: number): KvCache {
    const none = () => Array.from({ length: layers }, () => new Float32Array(0));
    return new KvCache(new SelfBuffers(none(), none(), 0), cross, 0, width);
  }

  /** Another holder of the same positions; each holder releases its own. */
  fork(): KvCache {
    return new KvCache(this.live(), this.cross, this.length, this.width);
  }

  /**
   * A new cache: these positions, then `count` more whose keys and values (one array per layer,
   * position-major) a decoder run gave. It writes into the shared buffers when nothing was written past
   * this cache's end and they have room; otherwise into new buffers (twice the room needed).
   */
  appended(keys: readonly Float32Array[], values: readonly Float32Array[], count: number): KvCache {
    const self = this.live();
    const end = (this.length + count) * this.width;
    let target = self;
    if (self.written !== this.length || (self.keys[0]?.length ?? 0) < end) {
      const room = Math.max(MIN_ROOM, 2 * (this.length + count)) * this.width;
      const grown = (old: Float32Array) => {
        const buffer = new Float32Array(room);
        buffer.set(old.subarray(0, this.length * this.width));
        return buffer;
      };
      target = new SelfBuffers(self.keys.map(grown), self.values.map(grown), this.length);
    }
    keys.forEach((k, l) => target.keys[l]!.set(k.subarray(0, count * this.width), this.length * this.width));
    values.forEach((v, l) => target.values[l]!.set(v.subarray(0, count * this.width), this.length * this.width));
    target.written = this.length + count;
    return new KvCache(target, this.cross, this.length + count, this.width);
  }

  /** A new cache (with the same cross part) holding only the self-attention positions `keep`, in that order: position keep[j] becomes j. */
  gather(keep: readonly number[]): KvCache {
    const self = this.live();
    const w = this.width;
    const pick = (buffer: Float32Array): Float32Array => {
      const out = new Float32Array(Math.max(MIN_ROOM, 2 * keep.length) * w);
      keep.forEach((p, j) => out.set(buffer.subarray(p * w, (p + 1) * w), j * w));
      return out;
    };
    return new KvCache(new SelfBuffers(self.keys.map(pick), self.values.map(pick), keep.length), this.cross, keep.length, w);
  }

  /** Decoder layer `layer`'s self-attention keys and values of this cache's positions: views [length × width]. */
  layer(layer: number): { key: Float32Array; value: Float32Array } {
    const self = this.live();
    const end = this.length * this.width;
    return { key: self.keys[layer]!.subarray(0, end), value: self.values[layer]!.subarray(0, end) };
  }

  get released(): boolean {
    return this.self === null;
  }

  /** Gives up this holder's share (the buffers go with the last, by garbage collection). Idempotent. */
  release(): void {
    this.self = null;
  }

  private live(): SelfBuffers {
    if (!this.self) throw new Error('KvCache: used after release()');
    return this.self;
  }
}
