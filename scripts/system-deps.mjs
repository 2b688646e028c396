// The programs the tests need from the system (Debian packages): Chromium for the browser and e2e
// stages, ffmpeg and sox for the audio fixtures and reference decodes, flite for the synthetic voices.
// `npm test` calls ensureSystemDeps() first: as root with apt-get it installs what is missing (as .ci/run
// did); otherwise it stops at once with one line naming the command to run, instead of hundreds of
// ENOENT failures later.
import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

/** Debian package → how to find it: an absolute path (Chromium: where config/browser.ts launches it) or a command. */
export function requiredPrograms(env = process.env) {
  return [
    { pkg: 'chromium', program: env.CHROMIUM_PATH ?? '/usr/bin/chromium' },
    { pkg: 'ffmpeg', program: 'ffmpeg' },
    { pkg: 'sox', program: 'sox' },
    { pkg: 'flite', program: 'flite' },
  ];
}

function executable(path) {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Whether `program` (absolute, or looked up on PATH) can be run. */
export function found(program, env = process.env) {
  if (program.includes('/')) return executable(program);
  return (env.PATH ?? '').split(delimiter).some((dir) => dir !== '' && executable(join(dir, program)));
}

export function missingPackages(env = process.env) {
  return requiredPrograms(env)
    .filter(({ program }) => !found(program, env))
    .map(({ pkg }) => pkg);
}

/** The one line printed when we cannot install: what is missing and the exact command. */
export function installHint(missing, { root }) {
  const sudo = root ? '' : 'sudo ';
  return `npm test needs ${missing.join(', ')}: install with \`${sudo}apt-get update && ${sudo}apt-get install -y ${missing.join(' ')}\` and run it again`;
}

function apt(args) {
  const run = spawnSync('apt-get', args, { stdio: ['ignore', 'inherit', 'inherit'], env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  return run.status === 0;
}

/**
 * Returns true when every program is there (installing what is missing when running as root with
 * apt-get); otherwise prints the one line and returns false.
 */
export function ensureSystemDeps(env = process.env) {
  const missing = missingPackages(env);
  if (missing.length === 0) return true;
  const root = typeof process.getuid === 'function' && process.getuid() === 0;
  if (root && found('apt-get', env)) {
    console.log(`=== installing ${missing.join(', ')} with apt-get (missing)`);
    if (apt(['update', '-qq']) && apt(['install', '-y', '-qq', ...missing])) {
      const still = missingPackages(env);
      if (still.length === 0) return true;
      console.error(`apt-get installed ${missing.join(', ')} but ${still.map((p) => requiredPrograms(env).find((r) => r.pkg === p).program).join(', ')} still cannot be found`);
      return false;
    }
  }
  console.error(installHint(missing, { root }));
  return false;
}

// `node scripts/system-deps.mjs` (npm's pretest, so this runs before anything else): exit 1 when missing.
if (import.meta.url === `file://${process.argv[1]}`) process.exit(ensureSystemDeps() ? 0 : 1);
