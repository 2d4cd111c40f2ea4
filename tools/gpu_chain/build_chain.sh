#!/usr/bin/env bash
# Builds the GPU-chain proof artifacts on a CPU machine (docs/gpu_chain.md):
#   1. the standalone emitter (our bytecode writer) -> vadd_view.tilebc, vadd_ptr.tilebc
#   2. tileirdisasm listing of each file (NVIDIA's decoder as an independent check)
#   3. tileiras --gpu-name sm_90 / sm_100 -O3 -> cubins
#   4. diagnostics for the device run: the PTX tileiras hands to ptxas (captured through a
#      ptxas wrapper), a cubin of that PTX without tileiras' --nv-host object, and a trivial
#      plain ptxas cubin
#   5. builds cpp_vadd (the C++ launcher check over csrc/cuda)
#   6. copies everything plus run_vadd.py into .gpu_chain/ (untracked; `run` carries it)
#
# Usage: tools/gpu_chain/build_chain.sh [TILEIRAS_BIN_DIR]
#   TILEIRAS_BIN_DIR defaults to <site-packages>/nvidia/cu13/bin of `python3 -m pip`'s env, or
#   $TILEIRAS_BIN. Install: pip install "nvidia-cuda-tileiras==13.4.*" "nvidia-cuda-nvcc==13.4.*"
#   "nvidia-nvvm==13.4.*".
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
BIN="${1:-${TILEIRAS_BIN:-}}"
if [[ -z "$BIN" ]]; then
  BIN="$(python3 -c 'import nvidia, os; print(os.path.join(list(nvidia.__path__)[0], "cu13", "bin"))')"
fi
TILEIRAS="$BIN/tileiras"
[[ -x "$TILEIRAS" ]] || { echo "tileiras not found in $BIN" >&2; exit 1; }
B="$ROOT/build/gpu_chain"
OUT="$B/out"
DEST="$ROOT/.gpu_chain"
mkdir -p "$B" "$OUT" "$DEST"

echo "== build emitter"
g++ -std=c++17 -O2 -Wall -Wextra -Wno-unused-parameter -I"$ROOT/csrc" -I"$ROOT/tools/gpu_chain" \
  "$ROOT/tools/gpu_chain/emit_vadd.cpp" "$ROOT"/csrc/bytecode/{writer,reader,op_specs}.cpp \
  -o "$B/emit_vadd"

echo "== build the C++ launcher check (csrc/cuda, dlopen'd libcuda)"
g++ -std=c++17 -O2 -Wall -Wextra -Wno-unused-parameter -I"$ROOT/csrc" \
  "$ROOT/tools/gpu_chain/cpp_vadd.cpp" "$ROOT/csrc/cuda/driver.cpp" -ldl -o "$B/cpp_vadd"

echo "== emit bytecode (13.3)"
"$B/emit_vadd" "$OUT" 13.3 > "$OUT/listing.txt"
"$B/emit_vadd" "$OUT" 13.3 4096 >> "$OUT/listing.txt"

echo "== tileiras"
"$TILEIRAS" --version | tee "$OUT/tileiras_version.txt"
# A ptxas wrapper next to a copy of tileiras captures the PTX and the --nv-host object.
W="$B/tiwrap"
rm -rf "$W" && mkdir -p "$W/bin" "$W/cap"
cp "$TILEIRAS" "$W/bin/tileiras"
ln -s "$BIN/../lib" "$W/lib"
ln -s "$BIN/../nvvm" "$W/nvvm"
cat > "$W/bin/ptxas" <<WRAP
#!/usr/bin/env bash
for a in "\$@"; do
  case "\$a" in
    *.ptx) cp "\$a" "$W/cap/last.ptx" ;;
    --nv-host=*) cp "\${a#--nv-host=}" "$W/cap/last_host.o" ;;
  esac
done
echo "ptxas \$*" > "$W/cap/last_args.txt"
exec "$BIN/ptxas" "\$@"
WRAP
chmod +x "$W/bin/ptxas"

for k in vadd_view vadd_ptr vadd_view_t4096 vadd_ptr_t4096; do
  "$BIN/tileirdisasm" "$OUT/$k.tilebc" > "$OUT/$k.disasm.txt"
  for arch in sm_90 sm_100; do
    "$TILEIRAS" --gpu-name "$arch" -O3 "$OUT/$k.tilebc" -o "$OUT/${k}_${arch}.cubin"
  done
  "$W/bin/tileiras" --gpu-name sm_90 -O3 "$OUT/$k.tilebc" -o "$W/cap/$k.cubin"
  cmp -s "$W/cap/$k.cubin" "$OUT/${k}_sm_90.cubin" || echo "note: wrapped build of $k differs"
  cp "$W/cap/last.ptx" "$OUT/$k.sm_90.ptx"
  cp "$W/cap/last_args.txt" "$OUT/$k.sm_90.ptxas_args.txt"
  # The same PTX through ptxas without the host object (diagnostic only).
  "$BIN/ptxas" -arch sm_90a "$OUT/$k.sm_90.ptx" --opt-level 3 --enable-extended-smem=true -uumn \
    -o "$OUT/${k}_sm_90.nohost.cubin"
done

cat > "$B/trivial.ptx" <<'PTX'
.version 8.0
.target sm_90
.address_size 64
.visible .entry trivial(.param .u64 p) { ret; }
PTX
"$BIN/ptxas" -arch sm_90 "$B/trivial.ptx" -o "$OUT/trivial_ptxas134_sm_90.cubin"
cp "$B/trivial.ptx" "$OUT/trivial.ptx"

echo "== copy to $DEST"
cp "$OUT"/*.cubin "$OUT"/*.tilebc "$OUT"/*.ptx "$OUT"/listing.txt "$OUT"/tileiras_version.txt "$DEST/"
cp "$ROOT/tools/gpu_chain/run_vadd.py" "$ROOT/tools/gpu_chain/cpp_vadd.cpp" "$B/cpp_vadd" "$DEST/"
(cd "$DEST" && ls -l && sha256sum ./*.tilebc ./*.cubin > manifest.sha256)
