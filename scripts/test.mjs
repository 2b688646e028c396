// `npm test`: type check, then unit (node), browser (Chromium), end-to-end (Playwright) and consumer-app
// (the packed package in a separate Vite app) tests in turn.
// Every stage runs even if an earlier one failed; the last line sums them up as "N passed, N failed".
// First of all, the system programs the tests need (scripts/system-deps.mjs): installed with apt-get when
// run as root, else one line naming the command and exit 1.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ensureSystemDeps } from './system-deps.mjs';

const reports = join('test-results', 'summary');

const stages = [
  { name: 'typecheck', cmd: ['npx', 'tsc', '--noEmit', '-p', 'tsconfig.json'] },
  { name: 'unit', cmd: vitest('unit'), report: join(reports, 'unit.json'), read: vitestCounts },
  { name: 'browser', cmd: vitest('browser'), report: join(reports, 'browser.json'), read: vitestCounts },
  {
    name: 'e2e',
    cmd: ['npx', 'playwright', 'test', '--reporter=list,json'],
    env: { PLAYWRIGHT_JSON_OUTPUT_NAME: join(reports, 'e2e.json') },
    report: join(reports, 'e2e.json'),
    read: playwrightCounts,
  },
  {
    // The packed package in a separate Vite app (test/consumer-app/): npm pack, install, build, transcribe.
    name: 'consumer',
    cmd: ['npx', 'playwright', 'test', '--config', 'test/consumer-app/playwright.config.ts', '--reporter=list,json'],
    // Absolute: Playwright resolves this against the config's folder.
    env: { PLAYWRIGHT_JSON_OUTPUT_NAME: resolve(reports, 'consumer.json') },
    report: join(reports, 'consumer.json'),
    read: playwrightCounts,
  },
];

function vitest(project) {
  return ['npx', 'vitest', 'run', '--project', project, '--reporter=default', '--reporter=json', `--outputFile.json=${join(reports, `${project}.json`)}`];
}

function vitestCounts(json) {
  // A test file that fails to load has no failed test, only success: false.
  const unloaded = json.success || json.numFailedTests > 0 ? 0 : 1;
  return { passed: json.numPassedTests, failed: json.numFailedTests + unloaded };
}

function playwrightCounts(json) {
  const s = json.stats ?? {};
  return { passed: s.expected ?? 0, failed: (s.unexpected ?? 0) + (s.flaky ?? 0) };
}

// `node scripts/test.mjs consumer e2e` runs only the named stages.
const only = process.argv.slice(2);
const unknown = only.filter((name) => !stages.some((s) => s.name === name));
if (unknown.length) throw new Error(`unknown stage ${unknown.join(', ')} (stages: ${stages.map((s) => s.name).join(', ')})`);

if (!ensureSystemDeps()) process.exit(1);
mkdirSync(reports, { recursive: true });

let passed = 0;
let failed = 0;
let broken = false;
for (const stage of stages.filter((s) => only.length === 0 || only.includes(s.name))) {
  console.log(`\n=== ${stage.name}: ${stage.cmd.join(' ')}`);
  if (stage.report) rmSync(stage.report, { force: true }); // never count a previous run's report
  const started = Date.now();
  const run = spawnSync(stage.cmd[0], stage.cmd.slice(1), { stdio: 'inherit', env: { ...process.env, ...stage.env } });
  const seconds = ((Date.now() - started) / 1000).toFixed(0);
  if (run.status !== 0) broken = true;
  if (stage.read && stage.report && existsSync(stage.report)) {
    const counts = stage.read(JSON.parse(readFileSync(stage.report, 'utf8')));
    passed += counts.passed;
    failed += counts.failed;
    console.log(`=== ${stage.name}: ${counts.passed} passed, ${counts.failed} failed in ${seconds} s (exit ${run.status})`);
  } else {
    if (run.status !== 0) failed += 1;
    console.log(`=== ${stage.name}: exit ${run.status} in ${seconds} s`);
  }
}
if (broken && failed === 0) failed = 1;
console.log(`\n${passed} passed, ${failed} failed`);
process.exit(broken ? 1 : 0);
