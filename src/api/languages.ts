/**
 * Language codes the shipped Whisper models (tiny and base, multilingual) can transcribe, in the
 * order of their language tokens: `WHISPER_LANGUAGES[i]` is token `<|code|>` with id 50259 + i.
 * Taken from `lang_to_id` in public/models/whisper-tiny/generation_config.json (identical for
 * whisper-base and whisper-small). Whisper's own codes are kept as they are, including 'haw' (Hawaiian) and 'jw'
 * (Javanese, ISO 639-1 'jv'); the hosted service's 'fy' is not among them.
 */
export const WHISPER_LANGUAGES = [
  'en', 'zh', 'de', 'es', 'ru', 'ko', 'fr', 'ja', 'pt', 'tr', 'pl', 'ca', 'nl', 'ar', 'sv', 'it', 'id', 'hi',
  'fi', 'vi', 'he', 'uk', 'el', 'ms', 'cs', 'ro', 'da', 'hu', 'ta', 'no', 'th', 'ur', 'hr', 'bg', 'lt', 'la',
  'mi', 'ml', 'cy', 'sk', 'te', 'fa', 'lv', 'bn', 'sr', 'az', 'sl', 'kn', 'et', 'mk', 'br', 'eu', 'is', 'hy',
  'ne', 'mn', 'bs', 'kk', 'sq', 'sw', 'gl', 'mr', 'pa', 'si', 'km', 'sn', 'yo', 'so', 'af', 'oc', 'ka', 'be',
  'tg', 'sd', 'gu', 'am', 'yi', 'lo', 'uz', 'fo', 'ht', 'ps', 'tk', 'nn', 'mt', 'sa', 'lb', 'my', 'bo', 'tl',
  'mg', 'as', 'tt', 'haw', 'ln', 'ha', 'ba', 'jw', 'su',
] as const;

export type WhisperLanguage = (typeof WHISPER_LANGUAGES)[number];

/** Token id of `<|en|>`, the first language token, in the multilingual Whisper vocabulary. */
export const FIRST_LANGUAGE_TOKEN_ID = 50259;

const known: ReadonlySet<string> = new Set(WHISPER_LANGUAGES);

export function isWhisperLanguage(code: string): code is WhisperLanguage {
  return known.has(code);
}
