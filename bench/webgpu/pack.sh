#!/bin/bash
# Packs what bench/webgpu/device.sh needs on a GPU machine that has Python but no Node, Chromium,
# models or clips, into parts of at most 58 MiB (the device tool carries 64 MiB per call), one
# folder .gpuN/ per call. Group "base": Debian's Chromium with its libraries, the built pages, the
# peer's onnxruntime-web, the clips and $BASE_MODELS (default whisper-tiny and whisper-base). Group
# "small": whisper-small. Group "dq": models-dq/, $DQ_MODELS (default tiny and base) with float arithmetic
# on the same 8-bit weights (float-models.mjs), for the peer, which cannot rewrite them itself.
# Usage (repo root, after npm ci and npm run models): bash bench/webgpu/pack.sh [GROUP...]   (default: base small)
set -euo pipefail
GROUPS_WANTED=${*:-base small}
BASE_MODELS=${BASE_MODELS:-whisper-tiny whisper-base}
DQ_MODELS=${DQ_MODELS:-whisper-tiny whisper-base}
ROOT=$(pwd)
EVAL=${STS_EVAL_DIR:-$ROOT/../shared}
S=$ROOT/tmp/webgpu/stage
rm -rf "$S" .gpu[0-9]* && mkdir -p "$S"/{base,small,dq}
npx vite build --config bench/webgpu/vite.config.ts 2>&1 | grep -v "configLoader\|without a file extension\|VITE_CONFIG_NATIVE\|chunk\|dynamic import\|codeSplitting\|chunkSizeWarningLimit\|^$" || true
B=$S/base
# Chromium: the app folder (less the Vulkan validation layer and mock driver) and every library it
# links, glibc's own excepted.
cp -a /usr/lib/chromium "$B/chromium-app"
rm -f "$B"/chromium-app/libVkLayer_khronos_validation* "$B"/chromium-app/libVkICD_mock_icd*
mkdir -p "$B/chromium-lib"
for l in $(ldd /usr/lib/chromium/chromium | awk '$3 ~ /^\// {print $3}'); do
  case $(basename "$l") in libc.so.6|libm.so.6|libpthread.so.0|libdl.so.2|librt.so.1|libresolv.so.2) ;; *) cp -L "$l" "$B/chromium-lib/";; esac
done
cp -L /lib/x86_64-linux-gnu/{libfreebl3.so,libfreeblpriv3.so,libnssckbi.so,libsoftokn3.so} "$B/chromium-lib/"
cp -a tmp/webgpu/site "$B/site"
mkdir -p "$B/peer-ort"
cp node_modules/@huggingface/transformers/node_modules/onnxruntime-web/dist/ort-wasm-simd-threaded.{asyncify,jsep}.{mjs,wasm} "$B/peer-ort/"
mkdir -p "$B/eval/holdout/long"
cp -a "$EVAL/holdout/en" "$B/eval/holdout/en"
cp "$EVAL/holdout/long/manifest.json" "$EVAL/holdout/long/resemblyzer_interview_X2zqiX6yL3I.mp3" "$B/eval/holdout/long/"
mkdir -p "$B/models" "$S/small/models"
cp -aL public/models/{manifest.json,silero-vad} "$B/models/"
for m in $BASE_MODELS; do cp -aL "public/models/$m" "$B/models/"; done
cp -aL public/models/whisper-small "$S/small/models/"
if [[ " $GROUPS_WANTED " == *" dq "* ]]; then
  # shellcheck disable=SC2086 # one argument per model
  node bench/webgpu/float-models.mjs "$S/dq/models-dq" $DQ_MODELS
fi
n=1
for g in $GROUPS_WANTED; do
  tar -C "$S/$g" -cf - . | xz -T2 -6 | split -b 58M -d -a 2 - "$S/$g.part-"
  parts=$(ls "$S/$g".part-* | wc -l)
  for p in "$S/$g".part-*; do
    mkdir -p ".gpu$n" && mv "$p" ".gpu$n/" && echo "$parts" > ".gpu$n/$g.parts"
    n=$((n + 1))
  done
  # GLVND and the Vulkan loader, which the NVIDIA driver needs and the GPU image lacks, travel with
  # the last part of "base": device.sh installs them when it unpacks that group.
  if [ "$g" = base ]; then
    (cd ".gpu$((n - 1))" && apt-get download libvulkan1 libegl1 libglvnd0 libopengl0 libgl1 libglx0 libgles2 2>/dev/null)
  fi
done
du -sh .gpu[0-9]*
