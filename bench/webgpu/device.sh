#!/bin/bash
# Runs on the GPU machine from the repo root: unpacks every group whose parts have all arrived
# (.gpuN/, made by pack.sh), then runs serve.py with ARGS against headless Chromium on the real GPU.
# Usage: bash bench/webgpu/device.sh [serve.py args]   (no args: unpack and report only)
set -u
W=/tmp/wgpu
# Chromium's log, less the D-Bus noise, cut to its last 3 MB so that it comes back.
trim_logs() {
  for log in "${OUT:-/tmp/out}"/chromium.log "${OUT:-/tmp/out}"/probe/chromium.log; do
    [ -f "$log" ] && grep -a -v "dbus" "$log" | tail -c 3000000 > "$log.tail" && rm -f "$log"
  done
}
trap trim_logs EXIT
P=/tmp/wgpu-parts
mkdir -p "$W" "$P" "${OUT:-/tmp/out}"
# A carried folder does not outlive its call: each part is kept outside the checkout until its group is whole.
for d in .gpu*/; do [ -d "$d" ] && cp "$d"* "$P/"; done
for g in $(ls "$P"/*.parts 2>/dev/null | xargs -n1 basename | sed 's/\.parts$//' | sort -u); do
  [ -e "$W/.done-$g" ] && continue
  want=$(cat "$P/$g.parts")
  have=$(ls "$P/$g".part-* | wc -l)
  if [ "$have" != "$want" ]; then echo "$g: $have of $want parts here"; continue; fi
  cat $(ls "$P/$g".part-* | sort) |
    python3 -c "import sys, tarfile; tarfile.open(fileobj=sys.stdin.buffer, mode='r|xz').extractall('$W', filter='fully_trusted')" &&
    touch "$W/.done-$g" && rm -f "$P/$g".part-* && echo "$g unpacked"
done
[ -e "$W/.done-base" ] || exit 0
# The NVIDIA Vulkan driver needs GLVND's libraries, which the machine lacks: Debian's packages, carried
# as .deb files (bench/webgpu/README.md), unpacked into / as the device tool's README advises.
if ls .gpu*/*.deb >/dev/null 2>&1 && ! ldconfig -p | grep -q libGLdispatch; then
  for f in .gpu*/*.deb; do dpkg -x "$f" /; done
  ldconfig
fi
# Chromium's own libraries first, except the C++ runtime when the machine has one (newer is safe).
for l in libstdc++.so.6 libgcc_s.so.1; do ldconfig -p | grep -q "$l " && rm -f "$W/chromium-lib/$l"; done
ICD=$(ls /usr/local/nvidia/share/vulkan/icd.d/*.json /usr/share/vulkan/icd.d/nvidia*.json /etc/vulkan/icd.d/nvidia*.json 2>/dev/null | head -1)
cat > "$W/chromium" <<WRAP
#!/bin/sh
export LD_LIBRARY_PATH=$W/chromium-lib:/usr/local/nvidia/lib64:/usr/local/nvidia/lib\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}
export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json __GLX_VENDOR_LIBRARY_NAME=nvidia
${ICD:+export VK_DRIVER_FILES=$ICD:$W/chromium-app/vk_swiftshader_icd.json VK_ICD_FILENAMES=$ICD:$W/chromium-app/vk_swiftshader_icd.json}
exec $W/chromium-app/chromium "\$@"
WRAP
chmod +x "$W/chromium"
echo "vulkan icd: ${ICD:-none}"; nvidia-smi -L 2>&1 | head -2
LD_LIBRARY_PATH=$W/chromium-lib ldd "$W/chromium-app/chromium" | grep "not found" || echo "chromium: all libraries found"
"$W/chromium" --version 2>&1 | tail -1
[ $# -eq 0 ] && exit 0
# "auto": probe Chromium flag sets (the one that worked on an H200 first; README.md says why) and measure with the first that reaches a
# hardware adapter; stop if none does.
if [ "$1" = auto ]; then
  shift
  python3 -u bench/webgpu/serve.py --site "$W/site" --models "$W/models" --eval "$W/eval" --peer-ort "$W/peer-ort" \
    --chromium "$W/chromium" --out "${OUT:-/tmp/out}/probe" \
    "--probe=--use-angle=gl-egl --use-gl=angle --disable-gpu-compositing --enable-features=Vulkan" \
    "--probe=--enable-features=Vulkan --use-angle=vulkan --disable-vulkan-surface --ignore-gpu-blocklist" \
    "--probe=--enable-features=Vulkan --ignore-gpu-blocklist" >/dev/null
  cut -c1-600 "${OUT:-/tmp/out}/probe/results.jsonl"
  flags=$(python3 -c "
import json
for l in open('${OUT:-/tmp/out}/probe/results.jsonl'):
    b = json.loads(l); a = b.get('high-performance') or {}
    if b.get('kind') == 'probe' and a and not a.get('fallback') and a.get('architecture') != 'swiftshader':
        print(b['flags']); break")
  [ -n "$flags" ] || { echo "no flag set reached a hardware adapter"; exit 3; }
  echo "measuring with: $flags"
  for f in $flags; do set -- "$@" "--flag=$f"; done
fi
python3 -u bench/webgpu/serve.py --site "$W/site" --models "$W/models" --eval "$W/eval" --peer-ort "$W/peer-ort" \
  --chromium "$W/chromium" --out "${OUT:-/tmp/out}" "$@"
