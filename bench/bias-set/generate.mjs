#!/usr/bin/env node
/**
 * Generates the vocabulary-biasing evaluation set into test/.fixtures/bias-set/ (gitignored):
 * sentences with rare terms, sentences with alphanumeric codes and unrelated distractor sentences,
 * each spoken by the flite voices below, plus a manifest.json in the layout of ../shared/eval
 * (with extra fields: kind, bias_phrases, must_contain, patterns, codes). The real clip
 * ../shared/eval/bias/fw_hotwords.mp3 is listed too, by `eval_path` (relative to the eval folder).
 *
 * `say` is what flite is given when the written form would be read differently (codes are spoken
 * letter by letter and digit by digit; names that flite's letter-to-sound rules misread are respelled,
 * see PHRASE_SENTENCES); `text` is the reference.
 *
 * Usage: node bench/bias-set/generate.mjs [--voices slt,kal,awb,rms]. Idempotent per VERSION.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const VERSION = 3;
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const OUT = join(resolve(ROOT, process.env.STS_FIXTURES_DIR ?? 'test/.fixtures'), 'bias-set');
const DEFAULT_VOICES = ['slt', 'kal', 'awb', 'rms'];

/**
 * Rare terms: the phrase list for each sentence is what a user would pass as `phrases`.
 *
 * A term gets a `say` respelling (since VERSION 3) where flite's own reading (`flite -t word -ps`) is
 * not the word as people say it: spelled out letter by letter, or with other consonants or another
 * number of syllables than the usual English pronunciation (the one Wikipedia gives for the name, or
 * the product's own). Vowel quality and stress are left as flite reads them (speakers differ there
 * too). Flite's readings, and what it is given instead:
 * - ComfyUI "k aa m f y uw iy" → "Comfy U I";
 * - Siobhan "sh aw b aa n" → "Shivawn" (/ʃɪˈvɔːn/), Nguyen spelled as letters → "Win" (/wɪn/, its
 *   usual English form; CMUdict has "noo-yen");
 * - Hetzner "hh eh s n er" → "Hets ner";
 * - Krzysztof spelled as letters → "Krishtof" (k r ih sh t ao f; CMUdict has K R IY SH T AO F);
 * - Saoirse "s ax w er s" → "Seersha" (/ˈsɪərʃə/);
 * - Laphroaig "l ae f r ow ey g" → "La froyg" (/ləˈfrɔɪɡ/; CMUdict has flite's reading).
 * Left as flite reads them: Grafana, Vitest, Ollama, llamafile and Supabase (the same consonants and
 * syllables, other vowels), and the rest (as usually said).
 */
const PHRASE_SENTENCES = [
  { id: 'comfyui', text: 'Then open the ComfyUI folder and load the workflow.', say: 'Then open the Comfy U I folder and load the workflow.', phrases: ['ComfyUI'] },
  { id: 'ozempic', text: 'The doctor switched her from metformin to Ozempic last spring.', phrases: ['Ozempic'] },
  { id: 'grafana', text: 'Our data team moved every dashboard into Grafana.', phrases: ['Grafana'] },
  { id: 'nguyen', text: 'Please forward the invoice to Siobhan Nguyen by Friday.', say: 'Please forward the invoice to Shivawn Win by Friday.', phrases: ['Siobhan Nguyen'] },
  { id: 'hetzner', text: 'We deploy the service with Terraform on Hetzner.', say: 'We deploy the service with Terraform on Hets ner.', phrases: ['Terraform', 'Hetzner'] },
  { id: 'zigbee', text: 'Krzysztof presented the new Zigbee thermostat.', say: 'Krishtof presented the new Zigbee thermostat.', phrases: ['Krzysztof', 'Zigbee'] },
  { id: 'xarelto', text: 'The patient was given Xarelto after the surgery.', phrases: ['Xarelto'] },
  { id: 'vitest', text: 'Add the Vitest plugin before you run Playwright.', phrases: ['Vitest', 'Playwright'] },
  { id: 'saoirse', text: 'My cousin Saoirse studies marine biology in Galway.', say: 'My cousin Seersha studies marine biology in Galway.', phrases: ['Saoirse', 'Galway'] },
  { id: 'laphroaig', text: 'She ordered a bottle of Laphroaig for the party.', say: 'She ordered a bottle of La froyg for the party.', phrases: ['Laphroaig'] },
  { id: 'ollama', text: 'Run the model locally with Ollama and llamafile.', phrases: ['Ollama', 'llamafile'] },
  { id: 'supabase', text: 'The login page talks to Supabase through a small proxy.', phrases: ['Supabase'] },
];

/** Alphanumeric codes, spoken as letters and digits; `patterns` is what a user would pass. */
const CODE_SENTENCES = [
  { id: 'amz', text: 'My order number is AMZ471.', say: 'My order number is A, M, Z, four seven one.', patterns: ['AMZ[0-9]{3}'], codes: ['AMZ471'] },
  { id: 'plate', text: 'The licence plate was KL51 XYZ.', say: 'The licence plate was K, L, five one, X, Y, Z.', patterns: ['[A-Z]{2}[0-9]{2} [A-Z]{3}'], codes: ['KL51 XYZ'] },
  { id: 'confirm', text: 'Your confirmation code is B755Q.', say: 'Your confirmation code is B, seven double five, Q.', patterns: ['[A-Z][0-9]{3}[A-Z]'], codes: ['B755Q'] },
  { id: 'ticket', text: 'Please look at ticket TK-8312 today.', say: 'Please look at ticket T, K, eight three one two, today.', patterns: ['TK-[0-9]{4}'], codes: ['TK-8312'] },
  { id: 'flight', text: 'Flight UA916 leaves at noon.', say: 'Flight U, A, nine one six, leaves at noon.', patterns: ['[A-Z]{2}[0-9]{3}'], codes: ['UA916'] },
  { id: 'part', text: 'The part number is XR777.', say: 'The part number is X, R, triple seven.', patterns: ['XR[0-9]{3}'], codes: ['XR777'] },
];

/** Unrelated speech with near misses of the phrases above (comfortable, folder, graph ...). */
const DISTRACTORS = [
  { id: 'comfortable', text: 'The new chair is comfortable and the computer is fast.' },
  { id: 'folder', text: 'She keeps her photos in a folder on the desktop.' },
  { id: 'garden', text: 'The garden was full of tomatoes and green beans.' },
  { id: 'station', text: 'We will meet at the station at half past nine.' },
  { id: 'graph', text: 'He drew a graph of the sales figures for the meeting.' },
  { id: 'committee', text: 'The committee approved the budget for next year.' },
];

/**
 * Longer unrelated speech (about 20 s each): enough minutes of audio, across the voices, to count false
 * insertions per 10 minutes. Everyday talk, written for this set.
 */
const PASSAGES = [
  {
    id: 'passage-kitchen',
    text: 'On Sunday morning we cleaned the kitchen, sorted the old letters in the drawer and took three bags of glass to the recycling bins. After lunch my brother fixed the loose shelf, and we finally hung the picture of the lighthouse above the sofa.',
  },
  {
    id: 'passage-train',
    text: 'The train to the coast was twenty minutes late, so we bought coffee and sat on the bench by the ticket office. A woman with a small dog asked us which platform to use, and a boy nearby was reading a comic about pirates and treasure maps.',
  },
  {
    id: 'passage-meeting',
    text: 'At the start of the meeting the manager thanked everyone for the quick work last month. She asked each team to send a short summary by Thursday, and reminded us that the office will be closed on Monday for the public holiday.',
  },
  {
    id: 'passage-garden',
    text: 'The apple tree in the back garden needs pruning before the winter. My neighbour lent me a ladder and a pair of long shears, and he told me to cut the thin branches first and to leave the strong ones that carry the fruit.',
  },
  {
    id: 'passage-weather',
    text: 'Tomorrow will start cloudy with a little light rain in the north, but it should be dry and bright by the afternoon. Temperatures will be close to normal for the season, and the wind will ease during the evening along the coast.',
  },
  {
    id: 'passage-library',
    text: 'The library on the corner has a new reading room with large windows and quiet desks. You can borrow up to ten books at a time, and the staff are happy to order anything they do not have from the other branches in the city.',
  },
];

function parseVoices(argv) {
  const i = argv.indexOf('--voices');
  return i >= 0 ? argv[i + 1].split(',').filter(Boolean) : DEFAULT_VOICES;
}

function durationOf(file) {
  const out = execFileSync('ffprobe', ['-v', 'error', '-show_entries', 'stream=duration,sample_rate', '-of', 'json', file]).toString();
  const s = JSON.parse(out).streams[0];
  return { duration_s: Math.round(Number(s.duration) * 1000) / 1000, sample_rate: Number(s.sample_rate) };
}

function speak(voice, text, file) {
  execFileSync('flite', ['-voice', voice, '-t', text, '-o', file], { stdio: ['ignore', 'ignore', 'pipe'] });
  if (!existsSync(file) || statSync(file).size < 1000) throw new Error(`flite produced no audio for ${file}`);
}

export function generateBiasSet(voices = DEFAULT_VOICES) {
  const manifestPath = join(OUT, 'manifest.json');
  const stampPath = join(OUT, '.version');
  const stamp = `${VERSION}:${voices.join(',')}`;
  if (existsSync(manifestPath) && existsSync(stampPath)) {
    // a set made with more voices serves a request for fewer (concurrent runs must not regenerate it)
    const [version, made] = readFileSync(stampPath, 'utf8').split(':');
    const madeVoices = (made ?? '').split(',');
    if (version === String(VERSION) && voices.every((v) => madeVoices.includes(v))) {
      const all = JSON.parse(readFileSync(manifestPath, 'utf8'));
      return { dir: OUT, clips: all.filter((c) => !c.source || voices.includes(c.source.voice)) };
    }
  }
  mkdirSync(OUT, { recursive: true });
  const clips = [];
  const add = (kind, item, extra) => {
    for (const voice of voices) {
      const file = `${kind}-${item.id}-${voice}.wav`;
      speak(voice, item.say ?? item.text, join(OUT, file));
      clips.push({
        file,
        lang: 'en',
        text: item.text,
        speaker: `flite-${voice}`,
        ...durationOf(join(OUT, file)),
        channels: 1,
        codec: 'pcm_s16le',
        source: { generator: 'flite', voice, say: item.say ?? item.text },
        license: 'synthetic (flite)',
        ref_quality: 'exact: the text given to the synthesiser',
        kind,
        ...extra,
      });
    }
  };
  for (const s of PHRASE_SENTENCES) add('phrase', s, { bias_phrases: s.phrases, must_contain: s.phrases });
  for (const s of CODE_SENTENCES) add('code', s, { patterns: s.patterns, codes: s.codes, must_contain: s.codes });
  for (const s of [...DISTRACTORS, ...PASSAGES]) add('unrelated', s, { bias_phrases: [], must_contain: [] });
  clips.push({
    file: 'fw_hotwords.mp3',
    eval_path: 'bias/fw_hotwords.mp3',
    lang: 'en',
    text: null,
    speaker: 'fw_hotwords',
    duration_s: 4.049,
    kind: 'phrase',
    ref_quality: 'partial: a correct transcript contains "ComfyUI"',
    bias_phrases: ['ComfyUI'],
    must_contain: ['ComfyUI'],
  });
  writeFileSync(manifestPath, `${JSON.stringify(clips, null, 1)}\n`);
  writeFileSync(stampPath, stamp);
  return { dir: OUT, clips };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { dir, clips } = generateBiasSet(parseVoices(process.argv.slice(2)));
  console.log(`${clips.length} clips in ${dir}`);
}
