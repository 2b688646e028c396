/** What the demo page and its service worker (demo/sw.ts) share: the shell cache's name and message type. */
export const SHELL_CACHE = 'localscribe-demo-shell-v1';
export const CACHE_SHELL_MESSAGE = 'localscribe-demo:cache-shell';
