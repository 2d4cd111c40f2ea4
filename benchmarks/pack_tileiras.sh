#!/usr/bin/env bash
# Packs tileiras's own three files (bin/tileiras, bin/ptxas, lib/libnvvm.so.4: the layout
# tileiras looks in once CUDA_HOME is its root) from NVIDIA's PyPI wheels into
# .tileiras/tileiras-VERSION.tar.xz, git-ignored, for a GPU machine without network:
#
#   benchmarks/pack_tileiras.sh 13.4         # about 57 MiB with xz -9
#   run(command="TILEIRAS=13.4 bash benchmarks/gpu_run.sh", carry=[".tileiras"])
set -euo pipefail
cd "$(dirname "$0")/.."
v=${1:?usage: pack_tileiras.sh MAJOR.MINOR (e.g. 13.4)}
PY=${PY:-.venv/bin/python}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
exclude=$(git rev-parse --git-path info/exclude)
grep -qxF "/.tileiras/" "$exclude" 2>/dev/null || echo "/.tileiras/" >> "$exclude"
echo "downloading nvidia-cuda-tileiras, nvidia-cuda-nvcc, nvidia-nvvm $v.* (about 160 MB)"
"$PY" -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 \
  --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 \
  --platform manylinux_2_12_x86_64 --platform manylinux2010_x86_64 -d "$work/whl" \
  "nvidia-cuda-tileiras==$v.*" "nvidia-cuda-nvcc==$v.*" "nvidia-nvvm==$v.*"
mkdir -p "$work/root/bin" "$work/root/lib" "$work/x"
for w in "$work"/whl/*.whl; do
  unzip -q -o "$w" 'nvidia/cu13/bin/tileiras' 'nvidia/cu13/bin/ptxas' \
    'nvidia/cu13/lib/libnvvm.so.4' -d "$work/x" 2>/dev/null || true
done
cp "$work/x/nvidia/cu13/bin/tileiras" "$work/x/nvidia/cu13/bin/ptxas" "$work/root/bin/"
cp "$work/x/nvidia/cu13/lib/libnvvm.so.4" "$work/root/lib/"
mkdir -p .tileiras
tar -C "$work/root" -cf - bin lib | xz -9 -T0 > ".tileiras/tileiras-$v.tar.xz"
ls -la ".tileiras/tileiras-$v.tar.xz"
