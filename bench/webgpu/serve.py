#!/usr/bin/env python3
"""Runs the WebGPU bench plan on a machine with Chromium and Python but no Node (bench/webgpu/README.md).

Serves the static pages (vite build of bench/webgpu/), the models, the clips and transformers.js's
onnxruntime-web files, cross-origin isolated; launches headless Chromium at /__gpu/go, which
redirects to each run's page in turn; appends every result the pages post to OUT/results.jsonl.
A run that posts nothing for --run-timeout seconds is abandoned: Chromium is restarted at the
next run. Stops when the plan is done or at --deadline seconds.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import threading
import time
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlparse

ap = argparse.ArgumentParser()
ap.add_argument('--site', required=True, help='vite build output (tmp/webgpu/site)')
ap.add_argument('--models', required=True, help='folder holding whisper-*/ and silero-vad/ (public/models)')
ap.add_argument('--eval', required=True, help='folder holding SPLIT/FOLDER/manifest.json and the clips')
ap.add_argument('--peer-ort', required=True, help="transformers.js's own onnxruntime-web dist/")
ap.add_argument('--sets', default='', help='comma-separated SPLIT/FOLDER or SPLIT/FOLDER/FILE under --eval')
ap.add_argument('--models-to-run', default='whisper-tiny,whisper-base')
ap.add_argument('--configs', default='ours:webgpu,peer:webgpu,ours:wasm,peer:wasm', help='SIDE:BACKEND, in order')
ap.add_argument('--threads', type=int, default=4)
ap.add_argument('--chromium', default='chromium')
ap.add_argument('--flag', action='append', default=[], help='extra Chromium flag (repeatable)')
ap.add_argument('--out', required=True)
ap.add_argument('--run-timeout', type=float, default=300, help='seconds without a posted result (one long clip included)')
ap.add_argument('--deadline', type=float, default=480)
ap.add_argument('--probe', action='append', default=[],
                help='instead of the plan: one Chromium per FLAGS (space-separated) reporting its WebGPU adapter')
args = ap.parse_args()

# Asks for the default and the high-performance adapter and runs one small matrix product on it.
PROBE_PAGE = b'''<!doctype html><meta charset="utf-8"><script type="module">
const post = (b) => fetch('/__gpu/result', {method: 'POST', body: JSON.stringify(b)});
const out = {kind: 'probe', flags: new URLSearchParams(location.search).get('flags')};
try {
  out.gpu = !!navigator.gpu;
  for (const pref of ['default', 'high-performance']) {
    const a = await navigator.gpu.requestAdapter(pref === 'default' ? {} : {powerPreference: pref});
    out[pref] = a && {vendor: a.info.vendor, architecture: a.info.architecture, device: a.info.device,
      description: a.info.description, fallback: a.info.isFallbackAdapter, f16: a.features.has('shader-f16'),
      subgroups: a.features.has('subgroups'), maxBuffer: a.limits.maxBufferSize};
  }
} catch (e) { out.error = String(e); }
await post(out);
location.href = '/__gpu/go';
</script>'''


def clips_for(spec):
    parts = spec.split('/')
    folder = os.path.join(args.eval, *parts[:2])
    with open(os.path.join(folder, 'manifest.json')) as f:
        entries = json.load(f)
    if len(parts) > 2:
        entries = [e for e in entries if e['file'] == parts[2]]
    out = []
    for e in entries:
        lang = e.get('lang') or ''
        # language=xx as the bench sends it (bench/lib/bench-run.ts paramsFor), none for mixed clips
        params = f"language={lang.split('-')[0]}" if re.fullmatch(r'[a-z]{2,3}', lang) else ''
        out.append({'key': f"{parts[0]}/{parts[1]}/{e['file']}", 'url': f"/__eval/{parts[0]}/{parts[1]}/{e['file']}",
                    'params': params, 'input': 'pcm', 'audio_ms': None})
    return out


clips = [c for s in args.sets.split(',') if s for c in clips_for(s)]
plan = []
# Config-major order: when the deadline cuts the plan, what is lost is the last config, for every model.
for config in [] if args.probe else args.configs.split(','):
    for model in args.models_to_run.split(','):
        side, backend = config.split(':')
        plan.append({'id': f'{model}:{side}:{backend}', 'page': side,
                     'load': {'model': model, 'threads': args.threads, 'backend': backend}, 'clips': clips})
os.makedirs(args.out, exist_ok=True)
results = open(os.path.join(args.out, 'results.jsonl'), 'a', buffering=1)
state = {'next': 0, 'current': None, 'last': time.time(), 'done': False}
lock = threading.Lock()
ROUTES = {'/models/': args.models, '/__eval/': args.eval, '/__peer-ort/': args.peer_ort, '/': args.site}


class Handler(SimpleHTTPRequestHandler):
    extensions_map = {**SimpleHTTPRequestHandler.extensions_map, '.wasm': 'application/wasm', '.mjs': 'text/javascript',
                      '.js': 'text/javascript', '.json': 'application/json', '.onnx': 'application/octet-stream'}

    def log_message(self, *a):
        pass

    def end_headers(self):
        self.send_header('Cross-Origin-Opener-Policy', 'same-origin')
        self.send_header('Cross-Origin-Embedder-Policy', 'require-corp')
        self.send_header('Cross-Origin-Resource-Policy', 'cross-origin')
        self.send_header('Cache-Control', 'no-store')
        super().end_headers()

    def translate_path(self, path):
        path = urlparse(path).path
        for prefix, root in ROUTES.items():
            if path.startswith(prefix):
                rel = os.path.normpath(path[len(prefix):]).lstrip('/')
                if rel.startswith('..'):
                    return '/nonexistent'
                return os.path.join(root, rel)
        return '/nonexistent'

    def send_json(self, body, status=200):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header('Content-Type', 'application/json')
        self.send_header('Content-Length', str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        path = urlparse(self.path).path
        if path == '/__gpu/go':
            with lock:
                state['last'] = time.time()
                if state['next'] >= len(plan):
                    state['done'] = True
                    return self.send_json({'done': True})
                run = plan[state['next']]
                state['next'] += 1
                state['current'] = run['id']
            self.send_response(302)
            self.send_header('Location', f"/bench/webgpu/page.html?run={run['id']}")
            self.end_headers()
            return
        if path == '/__gpu/probe':
            self.send_response(200)
            self.send_header('Content-Type', 'text/html')
            self.end_headers()
            self.wfile.write(PROBE_PAGE)
            return
        if path.startswith('/__gpu/run/'):
            run_id = path[len('/__gpu/run/'):].replace('%3A', ':')
            return self.send_json(next(r for r in plan if r['id'] == run_id))
        super().do_GET()
        if os.path.exists(self.translate_path(self.path)) is False:
            results.write(json.dumps({'kind': 'http404', 'path': path}) + '\n')

    def do_POST(self):
        length = int(self.headers.get('Content-Length', 0))
        if urlparse(self.path).path == '/__gpu/result' and args.probe:
            state['probed'] = True
        body = json.loads(self.rfile.read(length) or b'{}')
        if body.get('kind') == 'probe':
            a = body.get('high-performance') or {}
            if a and not a.get('fallback') and a.get('architecture') != 'swiftshader':
                state['hardware'] = body.get('flags')
        body['t'] = round(time.time(), 3)
        with lock:
            state['last'] = time.time()
            results.write(json.dumps(body) + '\n')
        print(json.dumps({k: v for k, v in body.items() if k != 'text'})[:300], flush=True)
        self.send_json({'ok': True})


server = ThreadingHTTPServer(('127.0.0.1', 0), Handler)
port = server.server_address[1]
threading.Thread(target=server.serve_forever, daemon=True).start()
chromium_log = open(os.path.join(args.out, 'chromium.log'), 'ab')


def launch(extra=(), start='/__gpu/go'):
    profile = '/tmp/webgpu-bench-profile'
    shutil.rmtree(profile, ignore_errors=True)
    flags = ['--headless=new', '--no-sandbox', '--no-first-run', '--disable-background-networking',
             '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage', '--enable-unsafe-webgpu',
             f'--user-data-dir={profile}', *args.flag, *extra]
    return subprocess.Popen([args.chromium, *flags, f'http://127.0.0.1:{port}{start}'],
                            stdout=chromium_log, stderr=chromium_log)


if args.probe:
    for flags in args.probe:
        state['probed'] = False
        chromium_log.write(f'=== probe {flags}\n'.encode())
        chromium_log.flush()
        browser = launch(flags.split(), f'/__gpu/probe?flags={flags.replace(" ", "+")}')
        for _ in range(24):
            time.sleep(0.5)
            if state['probed'] or browser.poll() is not None:
                break
        if not state['probed']:
            results.write(json.dumps({'kind': 'probe', 'flags': flags, 'error': 'no answer', 'exit': browser.poll()}) + '\n')
        browser.kill()
        browser.wait()
        if state.get('hardware'):
            break  # the first flag set that reaches a hardware adapter is the one to measure with
    raise SystemExit(0)

started = time.time()
print(f'plan: {len(plan)} runs x {len(clips)} clips; serving on {port}', flush=True)
browser = launch()
while True:
    time.sleep(1)
    with lock:
        done, idle, current = state['done'], time.time() - state['last'], state['current']
    if done or time.time() - started > args.deadline:
        break
    if idle > args.run_timeout or browser.poll() is not None:
        results.write(json.dumps({'run': current, 'kind': 'abandoned', 'idle_s': round(idle),
                                  'browser_exit': browser.poll()}) + '\n')
        print(f'abandoned {current}', flush=True)
        browser.kill()
        browser.wait()
        with lock:
            state['last'] = time.time()
        browser = launch()
browser.kill()
print(f'finished in {time.time() - started:.0f} s, done={state["done"]}', flush=True)
