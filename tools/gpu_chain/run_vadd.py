"""Loads tileiras cubins through the CUDA driver (ctypes, no CUDA Python) and checks them.

Run on the GPU host from the folder holding the cubins (docs/gpu_chain.md):

    python3 run_vadd.py [--out DIR]          # full run: env, cuobjdump, load, check, timing
    python3 run_vadd.py --probe CUBIN...     # load + tiny launch only (used under compat libs)

Kernels: entry @vadd(a, b, c: tile<ptr<f32>>, n: tile<i32>), one tile block per TILE elements,
launched with grid = (ceil(n / TILE), 1, 1), block = (1, 1, 1), no dynamic shared memory.
Every CUresult is checked; failures are reported with the driver's error name.
"""

import argparse
import ctypes
import glob
import json
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
LOG = []


def log(*parts):
    line = " ".join(str(p) for p in parts)
    print(line, flush=True)
    LOG.append(line)


def sh(cmd, limit=60):
    try:
        r = subprocess.run(cmd, shell=True, capture_output=True, text=True, timeout=limit)
        return (r.stdout + r.stderr).strip()
    except Exception as e:  # noqa: BLE001 - diagnostics only
        return f"<{cmd!r} failed: {e}>"


class CudaError(RuntimeError):
    def __init__(self, call, code, name):
        super().__init__(f"{call} -> {code} {name}")
        self.code = code
        self.errname = name


class Driver:
    def __init__(self):
        self.lib = ctypes.CDLL("libcuda.so.1")
        self.lib.cuLaunchKernel.argtypes = [
            ctypes.c_void_p, ctypes.c_uint, ctypes.c_uint, ctypes.c_uint, ctypes.c_uint,
            ctypes.c_uint, ctypes.c_uint, ctypes.c_uint, ctypes.c_void_p,
            ctypes.POINTER(ctypes.c_void_p), ctypes.c_void_p,
        ]
        self.lib.cuModuleLoadData.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_void_p]
        self.lib.cuModuleLoadDataEx.argtypes = [
            ctypes.POINTER(ctypes.c_void_p), ctypes.c_void_p, ctypes.c_uint,
            ctypes.POINTER(ctypes.c_int), ctypes.POINTER(ctypes.c_void_p),
        ]
        self.lib.cuModuleGetFunction.argtypes = [
            ctypes.POINTER(ctypes.c_void_p), ctypes.c_void_p, ctypes.c_char_p]
        self.lib.cuFuncGetAttribute.argtypes = [
            ctypes.POINTER(ctypes.c_int), ctypes.c_int, ctypes.c_void_p]
        self.lib.cuCtxSetCurrent.argtypes = [ctypes.c_void_p]
        self.lib.cuStreamSynchronize.argtypes = [ctypes.c_void_p]
        self.lib.cuModuleUnload.argtypes = [ctypes.c_void_p]

    def name(self, code):
        p = ctypes.c_char_p()
        self.lib.cuGetErrorName(code, ctypes.byref(p))
        return p.value.decode() if p.value else "?"

    def check(self, call, code):
        if code != 0:
            raise CudaError(call, code, self.name(code))

    def init(self):
        self.check("cuInit", self.lib.cuInit(0))
        v = ctypes.c_int()
        self.check("cuDriverGetVersion", self.lib.cuDriverGetVersion(ctypes.byref(v)))
        dev = ctypes.c_int()
        self.check("cuDeviceGet", self.lib.cuDeviceGet(ctypes.byref(dev), 0))
        ctx = ctypes.c_void_p()
        self.check("cuDevicePrimaryCtxRetain",
                   self.lib.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev))
        self.check("cuCtxSetCurrent", self.lib.cuCtxSetCurrent(ctx))
        major, minor = ctypes.c_int(), ctypes.c_int()
        self.lib.cuDeviceGetAttribute(ctypes.byref(major), 75, dev)  # COMPUTE_CAPABILITY_MAJOR
        self.lib.cuDeviceGetAttribute(ctypes.byref(minor), 76, dev)
        return v.value, (major.value, minor.value)

    def load(self, image: bytes):
        mod = ctypes.c_void_p()
        buf = ctypes.create_string_buffer(image, len(image))
        self.check("cuModuleLoadData", self.lib.cuModuleLoadData(ctypes.byref(mod), buf))
        return mod

    def load_ex(self, image: bytes):
        """cuModuleLoadDataEx with info/error log buffers; returns (code, name, info, error)."""
        size = 1 << 16
        info = ctypes.create_string_buffer(size)
        err = ctypes.create_string_buffer(size)
        opts = (ctypes.c_int * 5)(3, 4, 5, 6, 12)  # INFO_LOG, size, ERROR_LOG, size, VERBOSE
        vals = (ctypes.c_void_p * 5)(
            ctypes.cast(info, ctypes.c_void_p), ctypes.c_void_p(size),
            ctypes.cast(err, ctypes.c_void_p), ctypes.c_void_p(size), ctypes.c_void_p(1))
        mod = ctypes.c_void_p()
        buf = ctypes.create_string_buffer(image, len(image))
        code = self.lib.cuModuleLoadDataEx(ctypes.byref(mod), buf, 5, opts, vals)
        return code, self.name(code), info.value.decode(errors="replace"), \
            err.value.decode(errors="replace"), mod

    def function(self, mod, name=b"vadd"):
        f = ctypes.c_void_p()
        self.check("cuModuleGetFunction", self.lib.cuModuleGetFunction(ctypes.byref(f), mod, name))
        return f

    def attrs(self, f):
        names = {0: "max_threads_per_block", 1: "shared_size_bytes", 2: "const_size_bytes",
                 3: "local_size_bytes", 4: "num_regs", 5: "ptx_version", 6: "binary_version"}
        out = {}
        for k, n in names.items():
            v = ctypes.c_int()
            code = self.lib.cuFuncGetAttribute(ctypes.byref(v), k, f)
            out[n] = v.value if code == 0 else f"err {code}"
        return out

    def launch(self, f, grid, block, params, stream):
        """params: list of python ints, each written into its own 8-byte slot."""
        slots = (ctypes.c_uint64 * len(params))(*[p & 0xFFFFFFFFFFFFFFFF for p in params])
        base = ctypes.addressof(slots)
        ptrs = (ctypes.c_void_p * len(params))(*[base + 8 * i for i in range(len(params))])
        self.check("cuLaunchKernel", self.lib.cuLaunchKernel(
            f, grid[0], grid[1], grid[2], block[0], block[1], block[2], 0,
            ctypes.c_void_p(stream), ptrs, None))

    def sync(self, stream):
        self.check("cuStreamSynchronize", self.lib.cuStreamSynchronize(ctypes.c_void_p(stream)))


def tile_of(name):
    m = re.search(r"_t(\d+)", name)
    return int(m.group(1)) if m else 1024


def environment():
    log("== environment")
    log(sh("nvidia-smi"))
    log(sh("nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv"))
    log("python", sys.version.split()[0])
    log(sh("nvcc --version | tail -2"))
    log("libcuda:", sh("ls -l /usr/lib/x86_64-linux-gnu/libcuda.so* 2>/dev/null | head -5"))
    log("tileiras libs:", sh("ldconfig -p | grep -i tileir; ls /usr/lib/x86_64-linux-gnu/ "
                             "| grep -i tileir") or "<none>")
    log("compat dirs:", " ".join(compat_dirs()) or "<none>")


def compat_dirs():
    dirs = set()
    for pat in ["/usr/local/cuda*/compat", "/usr/local/cuda*/targets/*/lib/compat",
                "/usr/lib/*/compat", "/opt/**/compat"]:
        for d in glob.glob(pat, recursive=True):
            if glob.glob(os.path.join(d, "libcuda.so*")):
                dirs.add(d)
    try:
        import site
        for sp in site.getsitepackages():
            for d in glob.glob(os.path.join(sp, "nvidia", "*", "compat")):
                if glob.glob(os.path.join(d, "libcuda.so*")):
                    dirs.add(d)
    except Exception:  # noqa: BLE001
        pass
    return sorted(dirs)


def cuobjdump(cubins):
    log("== cuobjdump")
    for c in cubins:
        log(f"-- {c}: {os.path.getsize(c)} bytes")
        log(sh(f"cuobjdump -lelf -lptx {c}"))
        log(sh(f"cuobjdump -elf {c} | grep -iE 'arch|EF_CUDA|sm_' | head -8"))
    sass = [c for c in cubins if c.endswith("vadd_view_sm_90.cubin")]
    for c in sass:
        log(f"-- SASS head of {c}")
        log(sh(f"cuobjdump --dump-sass {c} | head -60"))


def probe(drv, path):
    """Load + a 1-block launch; returns a dict describing what happened."""
    import torch

    res = {"cubin": os.path.basename(path)}
    image = open(path, "rb").read()
    try:
        mod = drv.load(image)
        res["load"] = "ok"
    except CudaError as e:
        res["load"] = f"{e.code} {e.errname}"
        code, name, info, err, _ = drv.load_ex(image)
        res["load_ex"] = f"{code} {name}"
        res["jit_info_log"] = info
        res["jit_error_log"] = err
        return res
    if "trivial" in path:
        return res
    f = drv.function(mod)
    res["attrs"] = drv.attrs(f)
    n = 1000
    a = torch.randn(n, device="cuda")
    b = torch.randn(n, device="cuda")
    c = torch.full((n,), float("nan"), device="cuda")
    stream = torch.cuda.current_stream().cuda_stream
    for block in [(1, 1, 1), (res["attrs"].get("max_threads_per_block", 128), 1, 1)]:
        try:
            drv.launch(f, (1, 1, 1), block, [a.data_ptr(), b.data_ptr(), c.data_ptr(), n], stream)
            drv.sync(stream)
            err = (c - (a + b)).abs().max().item()
            res[f"launch_block{block[0]}"] = f"ok, max err {err}"
            break
        except CudaError as e:
            res[f"launch_block{block[0]}"] = f"{e.code} {e.errname}"
    return res


def check_and_time(drv, path, results):
    import torch

    name = os.path.basename(path)
    tile = tile_of(name)
    mod = drv.load(open(path, "rb").read())
    f = drv.function(mod)
    attrs = drv.attrs(f)
    log(f"== {name}: tile {tile}, attrs {attrs}")
    stream = torch.cuda.current_stream().cuda_stream
    entry = {"cubin": name, "tile": tile, "attrs": attrs}
    block = (1, 1, 1)

    def run(a, b, c, n):
        grid = ((n + tile - 1) // tile, 1, 1)
        drv.launch(f, grid, block, [a.data_ptr(), b.data_ptr(), c.data_ptr(), n], stream)

    # Correctness: odd n, poisoned output and guard zone after n.
    n, guard = 1_000_003, 4099
    a = torch.randn(n + guard, device="cuda")
    b = torch.randn(n + guard, device="cuda")
    c = torch.full((n + guard,), float("nan"), device="cuda")
    try:
        run(a, b, c, n)
        drv.sync(stream)
    except CudaError as e:
        log(f"launch with block (1,1,1) failed: {e}; retrying with block "
            f"({attrs['max_threads_per_block']},1,1)")
        entry["launch_block1"] = str(e)
        block = (attrs["max_threads_per_block"], 1, 1)
        run(a, b, c, n)
        drv.sync(stream)
    entry["block"] = list(block)
    ref = a[:n] + b[:n]
    err = (c[:n] - ref).abs().max().item()
    nan_in = torch.isnan(c[:n]).sum().item()
    guard_ok = bool(torch.isnan(c[n:]).all().item())
    exact = bool(torch.equal(c[:n], ref))
    entry.update(n=n, max_err=err, nan_in_range=nan_in, guard_untouched=guard_ok, exact=exact)
    log(f"correctness n={n}: max err {err}, exact {exact}, NaN left in range {nan_in}, "
        f"guard zone untouched {guard_ok}")

    # Timing: median of 20 with CUDA events, against torch a+b (out=).
    entry["timing"] = {}
    for logn in (24, 28):
        entry["timing"][f"2^{logn}"] = time_one(drv, run, stream, 1 << logn, logn)
        torch.cuda.empty_cache()
    results.append(entry)
    drv.lib.cuModuleUnload(mod)


def time_one(drv, run, stream, n, logn):
    import torch

    a = torch.randn(n, device="cuda")
    b = torch.randn(n, device="cuda")
    c = torch.empty(n, device="cuda")
    t_tile = bench(lambda: run(a, b, c, n))
    drv.sync(stream)
    ok = bool(torch.equal(c, a + b))
    t_torch = bench(lambda: torch.add(a, b, out=c))
    gb = 3 * 4 * n / 1e9
    log(f"n=2^{logn}: tile {t_tile:.4f} ms ({gb / t_tile * 1e3:.0f} GB/s), torch {t_torch:.4f} ms "
        f"({gb / t_torch * 1e3:.0f} GB/s), ratio tile/torch {t_tile / t_torch:.3f}, exact {ok}")
    return {"tile_ms": t_tile, "torch_ms": t_torch, "tile_GBps": gb / t_tile * 1e3,
            "torch_GBps": gb / t_torch * 1e3, "exact": ok}


def bench(fn, reps=20, warmup=3):
    import torch

    for _ in range(warmup):
        fn()
    times = []
    for _ in range(reps):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        fn()
        e.record()
        e.synchronize()
        times.append(s.elapsed_time(e))
    times.sort()
    return times[len(times) // 2]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.environ.get("OUT", os.path.join(HERE, "out")))
    ap.add_argument("--probe", nargs="*")
    args = ap.parse_args()

    import torch

    torch.zeros(1, device="cuda")  # primary context via the runtime
    drv = Driver()
    ver, cc = drv.init()

    if args.probe is not None:
        out = {"driver_version": ver, "cc": cc,
               "LD_LIBRARY_PATH": os.environ.get("LD_LIBRARY_PATH", ""),
               "probes": [probe(drv, p) for p in args.probe]}
        print("PROBE_JSON " + json.dumps(out))
        return

    os.makedirs(args.out, exist_ok=True)
    t0 = time.time()
    environment()
    log(f"cuDriverGetVersion {ver}, device cc {cc}, torch {torch.__version__}, "
        f"{torch.cuda.get_device_name(0)}")
    cubins = sorted(glob.glob(os.path.join(HERE, "*.cubin")))
    sm = f"sm_{cc[0]}{cc[1]}"
    native = [c for c in cubins if c.endswith(f"_{sm}.cubin")]
    cuobjdump(native + [c for c in cubins if "nohost" in c][:1])

    log("== probes (load + 1-block launch)")
    extra = [c for c in cubins if "nohost" in c or "trivial" in c]
    probes = [probe(drv, c) for c in native + extra]
    for p in probes:
        log(json.dumps(p))

    results = []
    loaded = [p["cubin"] for p in probes if p.get("load") == "ok" and "trivial" not in p["cubin"]
              and "nohost" not in p["cubin"]]
    for c in native:
        if os.path.basename(c) in loaded:
            try:
                check_and_time(drv, c, results)
            except CudaError as e:
                log(f"{os.path.basename(c)}: {e}")
                results.append({"cubin": os.path.basename(c), "error": str(e)})

    compat = []
    if any(p.get("load") != "ok" for p in probes):
        log("== some cubins did not load: retry under each compat dir")
        for d in compat_dirs():
            env = dict(os.environ, LD_LIBRARY_PATH=d + ":" + os.environ.get("LD_LIBRARY_PATH", ""))
            r = subprocess.run([sys.executable, __file__, "--probe", *native], env=env,
                               capture_output=True, text=True, timeout=120)
            line = [x for x in r.stdout.splitlines() if x.startswith("PROBE_JSON ")]
            info = json.loads(line[0][11:]) if line else {"stderr": r.stderr[-2000:]}
            info["dir"] = d
            compat.append(info)
            log(json.dumps(info))

    summary = {"driver_version": ver, "cc": cc, "device": torch.cuda.get_device_name(0),
               "probes": probes, "results": results, "compat": compat,
               "seconds": round(time.time() - t0, 1)}
    with open(os.path.join(args.out, "gpu_chain_result.json"), "w") as fh:
        json.dump(summary, fh, indent=1)
    with open(os.path.join(args.out, "gpu_chain_log.txt"), "w") as fh:
        fh.write("\n".join(LOG) + "\n")

    log("== SUMMARY")
    log(f"driver {ver} ({torch.cuda.get_device_name(0)}, cc {cc[0]}.{cc[1]})")
    for p in probes:
        log(f"  probe {p['cubin']}: load {p.get('load')} "
            f"{p.get('launch_block1', '')} {p.get('load_ex', '')}")
    for r in results:
        if "error" in r:
            log(f"  {r['cubin']}: ERROR {r['error']}")
            continue
        t = r["timing"]
        log(f"  {r['cubin']}: block {r['block']}, max err {r['max_err']}, exact {r['exact']}, "
            f"guard ok {r['guard_untouched']}; 2^24 {t['2^24']['tile_ms']:.4f} ms vs torch "
            f"{t['2^24']['torch_ms']:.4f}; 2^28 {t['2^28']['tile_ms']:.3f} ms "
            f"({t['2^28']['tile_GBps']:.0f} GB/s) vs torch {t['2^28']['torch_ms']:.3f} ms "
            f"({t['2^28']['torch_GBps']:.0f} GB/s)")


if __name__ == "__main__":
    main()
