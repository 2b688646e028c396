/**
 * Phrase lists whose keys, indexes and tries are kept: tokenizing and keying 10,000 phrases takes
 * seconds, and a page that switches between a few custom models should not pay that per request. A
 * memory bound (four 10,000-phrase lists), not tuned.
 */
export const RECENT_LISTS = 4;

/**
 * What was built from the last `size` phrase lists, most recently used kept: a custom model's requests
 * (up to 10,000 phrases) build it once per worker, not once per window.
 */
export function recentLists<T>(size = RECENT_LISTS): (phrases: readonly string[], build: () => T) => T {
  const cache = new Map<string, T>();
  return (phrases, build) => {
    const key = phrases.join('\n');
    const hit = cache.get(key);
    if (hit !== undefined) {
      cache.delete(key);
      cache.set(key, hit);
      return hit;
    }
    const built = build();
    cache.set(key, built);
    while (cache.size > size) cache.delete(cache.keys().next().value!);
    return built;
  };
}
