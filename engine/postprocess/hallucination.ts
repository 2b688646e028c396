/**
 * Text Whisper writes after the speech it heard. On a window with silence after the speech, a pass can
 * run on past the last word, most often by repeating its last sentence. The alignment (cross-attention
 * DTW over the window's audio) then has no audio left for that text and packs it into the audio's last
 * frame. Pure functions: no ORT.
 */

interface TimedWord {
  startMs: number;
}

/**
 * A word needs at least this long to be spoken: OpenAI's word-anomaly score (transcribe.py, behind its
 * hallucination_silence_threshold) adds 15 per second under 133 ms, which reaches its bar of 1 per word
 * at 66 ms.
 */
const SPOKEN_MIN_MS = 133 - 1000 / 15;

/**
 * How many of a pass's words (in order, aligned times from the window's start) were heard: all but its
 * trailing run of words that start too close to the end of the audio (`audioMs`) to be spoken there.
 */
export function heardWordCount(words: readonly TimedWord[], audioMs: number): number {
  let n = words.length;
  while (n > 0 && words[n - 1]!.startMs > audioMs - SPOKEN_MIN_MS) n--;
  return n;
}
