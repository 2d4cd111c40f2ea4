"""Which grouped-GEMM configs hang on the GPU's Tile path (docs/gpu_chain.md section 5: loads
through tensor maps built mid-kernel, in a persistent loop). Each config runs in a child process
that launches examples/grouped_gemm.py's kernel once on fresh random fp16 problems, waits for
it and checks it against torch; the parent kills a child that has not finished after --timeout
seconds and reports HANG.

    python benchmarks/tma_hang_probe.py [--timeout 30] [--sizes 1024,2048] [--only 0,3]

Each line: the config, then "ok <ms> (rel err)", "HANG", or the child's error. The environment
of a config (TRITON_TILE_ALLOW_TMA=0, ...) applies to its child only.
"""

import argparse
import json
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# (BLOCK_M, BLOCK_N, BLOCK_K, num_warps, num_stages, occupancy or None, NUM_PROGRAMS, env)
CONFIGS = [
    (256, 128, 64, 8, 3, 1, 132, {}),  # the hang seen on 2026-11-26
    (256, 128, 64, 8, 3, 1, 132, {"TRITON_TILE_ALLOW_TMA": "0"}),
    (256, 128, 64, 8, 3, None, 132, {}),
    (256, 128, 64, 8, 2, 1, 132, {}),
    (256, 128, 64, 4, 3, 1, 132, {}),
    (256, 128, 32, 8, 3, 1, 132, {}),
    (256, 64, 64, 8, 3, 1, 132, {}),
    (256, 128, 64, 8, 3, 1, 264, {}),
    (128, 256, 64, 8, 3, 1, 132, {}),
    (128, 128, 64, 8, 3, 1, 132, {}),
    (256, 256, 64, 8, 2, 1, 132, {}),
]


def child(cfg, sizes):
    import torch

    sys.path.insert(0, os.path.join(ROOT, "examples"))
    import grouped_gemm as gg

    bm, bn, bk, nw, ns, occ, progs, _ = cfg
    gen = torch.Generator(device="cuda").manual_seed(0)
    a_list = [torch.randn((s, s), device="cuda", dtype=torch.float16, generator=gen)
              for s in sizes]
    b_list = [torch.randn((s, s), device="cuda", dtype=torch.float16, generator=gen)
              for s in sizes]
    c_list = [torch.full((s, s), float("nan"), device="cuda", dtype=torch.float16)
              for s in sizes]
    host = gg.group_tables(a_list, b_list, c_list)
    tables = [torch.from_numpy(x).cuda() for x in host]
    kw = dict(NUM_PROGRAMS=progs, BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk,
              EVEN=gg.whole_tiles(host, bm, bn, bk), num_warps=nw, num_stages=ns)
    if occ is not None:
        kw["occupancy"] = occ
    gg.grouped_matmul_kernel[(progs,)](*tables, len(sizes), enable_tile=True, **kw)  # compile
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    gg.grouped_matmul_kernel[(progs,)](*tables, len(sizes), enable_tile=True, **kw)
    torch.cuda.synchronize()
    ms = (time.perf_counter() - t0) * 1e3
    err = max(float(((c.float() - a.float() @ b.float()).abs().max()
                     / (a.float() @ b.float()).abs().max()))
              for a, b, c in zip(a_list, b_list, c_list))
    print(json.dumps({"ms": ms, "err": err}))


def describe(cfg):
    bm, bn, bk, nw, ns, occ, progs, env = cfg
    text = f"{bm}x{bn}x{bk} nw{nw} ns{ns} occ{occ if occ is not None else '-'} p{progs}"
    return text + "".join(f" {k}={v}" for k, v in env.items())


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--timeout", type=float, default=30)
    ap.add_argument("--sizes", default="1024,2048")
    ap.add_argument("--only", default="")
    ap.add_argument("--child", type=int, default=-1)
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    if args.child >= 0:
        child(CONFIGS[args.child], sizes)
        return 0
    picks = [int(i) for i in args.only.split(",")] if args.only else range(len(CONFIGS))
    for i in picks:
        cfg = CONFIGS[i]
        env = dict(os.environ, **cfg[7])
        cmd = [sys.executable, os.path.abspath(__file__), "--child", str(i), "--sizes",
               args.sizes]
        t0 = time.perf_counter()
        try:
            r = subprocess.run(cmd, env=env, capture_output=True, text=True,
                               timeout=args.timeout)
        except subprocess.TimeoutExpired:
            print(f"[{i}] {describe(cfg):55} HANG (> {args.timeout:.0f} s)", flush=True)
            continue
        wall = time.perf_counter() - t0
        if r.returncode != 0:
            tail = (r.stderr or r.stdout).strip().splitlines()[-1:] or ["?"]
            print(f"[{i}] {describe(cfg):55} error: {tail[0][:120]}", flush=True)
            continue
        res = json.loads(r.stdout.strip().splitlines()[-1])
        print(f"[{i}] {describe(cfg):55} ok {res['ms']:.2f} ms (rel err {res['err']:.1e}; "
              f"{wall:.0f} s with compile)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
