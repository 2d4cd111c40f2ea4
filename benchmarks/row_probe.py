"""Row kernels (a reduction per row, no dot) against the memory limit: TMA or plain loads.

    python benchmarks/row_probe.py [--rounds 5]   # a GPU machine with tileiras (after
                                                  # `STEPS=none benchmarks/gpu_run.sh`)

The table's softmax and layer norm rows run Triton's tutorial kernels, whose loads sit in loops
(gathers on the Tile path). Many users write these kernels in one pass instead: the row loaded
once into registers (BLOCK_SIZE >= N), reduced, and stored. There the Tile path's loads and
stores are views made at the top of the kernel, and tileiras 13.4 moved them through TMA and
shared memory, spilling (sm_90 SASS of the one-pass layer norm at 4 warps: 48 UTMALDG, 16
UTMASTG, 40 LDL), or without TMA branched around each 16-byte chunk's bounds and waited for one
chunk's load before issuing the next; and the default occupancy hint (8) capped registers below
a wide row. Now, for a GPU, loads and stores in kernels without a dot stay gathers, as in
NVIDIA's backend (TRITON_TILE_RAISE_VIEWS=auto), and such a kernel's occupancy leaves registers
for its largest tile (compiler/tile_stage.py, default_occupancy).

Each kernel runs through stock Triton (num_stages=1), on the Tile path as compiled by default
("tile"), as it was compiled before ("tile, before": views, TRITON_TILE_RAISE_VIEWS=all, and
occupancy 8), with occupancy 16 (the most CTAs of 4 warps an SM holds) and with views
("tile, views": TRITON_TILE_RAISE_VIEWS=all), beside torch's own op and torch's copy of the same
bytes (read x, write y). A transpose (64x64 tiles) is the 2-D kernel without a reduction; rows
centred on their mean in 8x256 blocks, two loops over the columns, the 2-D kernel with loops.
Each run is checked against torch in float32 on its first launch (poisoned output; an error over
1e-2 stops the probe), then timed in `--rounds` interleaved rounds of do_bench medians.
GB/s = bytes of x read and y written / time.
"""
import argparse
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gpu_bench as gb  # noqa: E402

import triton_tile as triton  # noqa: E402
import triton_tile.language as tl  # noqa: E402


@triton.jit
def layer_norm_one_pass(X, Y, W, B, Mean, Rstd, row_stride, N, eps, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < N
    x = tl.load(X + row * row_stride + cols, mask=mask, other=0.0).to(tl.float32)
    mean = tl.sum(x, axis=0) / N
    d = tl.where(mask, x - mean, 0.0)
    var = tl.sum(d * d, axis=0) / N
    rstd = 1 / tl.sqrt(var + eps)
    tl.store(Mean + row, mean)
    tl.store(Rstd + row, rstd)
    w = tl.load(W + cols, mask=mask)
    b = tl.load(B + cols, mask=mask)
    tl.store(Y + row * row_stride + cols, d * rstd * w + b, mask=mask)


@triton.jit
def softmax_one_pass(Y, X, row_stride, N, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE)
    x = tl.load(X + row * row_stride + cols, mask=cols < N, other=-float("inf")).to(tl.float32)
    e = tl.exp(x - tl.max(x, axis=0))
    y = e / tl.sum(e, axis=0)
    tl.store(Y + row * row_stride + cols, y.to(Y.dtype.element_ty), mask=cols < N)


@triton.jit
def rms_norm_block_ptr(Y, X, M, N, eps, BLOCK_SIZE: tl.constexpr):
    """y = x / sqrt(mean(x^2) + eps), one row a program through block pointers."""
    row = tl.program_id(0)
    xp = tl.make_block_ptr(X, shape=(M, N), strides=(N, 1), offsets=(row, 0),
                           block_shape=(1, BLOCK_SIZE), order=(1, 0))
    yp = tl.make_block_ptr(Y, shape=(M, N), strides=(N, 1), offsets=(row, 0),
                           block_shape=(1, BLOCK_SIZE), order=(1, 0))
    x = tl.load(xp, boundary_check=(1,), padding_option="zero").to(tl.float32)
    rstd = 1 / tl.sqrt(tl.sum(x * x, axis=1) / N + eps)
    tl.store(yp, (x * rstd[:, None]).to(Y.dtype.element_ty), boundary_check=(1,))


@triton.jit
def transpose(Y, X, M, N, BM: tl.constexpr, BN: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    x = tl.load(X + rm[:, None] * N + rn[None, :], mask=(rm[:, None] < M) & (rn[None, :] < N))
    tl.store(Y + rn[:, None] * M + rm[None, :], tl.trans(x),
             mask=(rn[:, None] < N) & (rm[None, :] < M))


@triton.jit
def center_rows(Y, X, M, N, BM: tl.constexpr, BN: tl.constexpr):
    """y = x - the row's mean, over BM rows at a time in BM x BN blocks (two loops)."""
    rows = tl.program_id(0) * BM + tl.arange(0, BM)
    sums = tl.zeros([BM], dtype=tl.float32)
    for k in range(0, N, BN):
        cols = k + tl.arange(0, BN)
        mask = (rows[:, None] < M) & (cols[None, :] < N)
        x = tl.load(X + rows[:, None] * N + cols[None, :], mask=mask, other=0.0)
        sums += tl.sum(x.to(tl.float32), axis=1)
    mean = sums / N
    for k in range(0, N, BN):
        cols = k + tl.arange(0, BN)
        mask = (rows[:, None] < M) & (cols[None, :] < N)
        x = tl.load(X + rows[:, None] * N + cols[None, :], mask=mask, other=0.0)
        y = x.to(tl.float32) - mean[:, None]
        tl.store(Y + rows[:, None] * N + cols[None, :], y.to(Y.dtype.element_ty), mask=mask)


@triton.jit
def softmax_rows(Y, X, row_stride, M, N, ROWS: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)[:, None]
    cols = tl.arange(0, BLOCK_SIZE)[None, :]
    mask = (rows < M) & (cols < N)
    x = tl.load(X + rows * row_stride + cols, mask=mask, other=-float("inf")).to(tl.float32)
    e = tl.exp(x - tl.max(x, axis=1)[:, None])
    y = e / tl.sum(e, axis=1)[:, None]
    tl.store(Y + rows * row_stride + cols, y.to(Y.dtype.element_ty), mask=mask)


# side: (environment, launch options); None: stock Triton
SIDES = {"stock": None, "tile": ({}, {}),
         "tile, before": ({"TRITON_TILE_RAISE_VIEWS": "all"}, {"occupancy": 8}),
         "tile, occupancy 16": ({}, {"occupancy": 16}),
         "tile, views": ({"TRITON_TILE_RAISE_VIEWS": "all"}, {})}


def _cases(m: int, n: int, names):
    """(name, kernel, grid, args(x, y), meta, torch_fn(x), reference(x)) for one size."""
    import torch

    w, b = torch.randn(n, device="cuda").half(), torch.randn(n, device="cuda").half()
    mean, rstd = torch.empty(m, device="cuda"), torch.empty(m, device="cuda")
    block = triton.next_power_of_2(n)

    def ln(x):
        return torch.nn.functional.layer_norm(x, (n,), w, b, 1e-5)

    def ln_ref(x):
        return torch.nn.functional.layer_norm(x.float(), (n,), w.float(), b.float(), 1e-5)

    ln_args = lambda x, y: [x, y, w, b, mean, rstd, n, n, 1e-5]  # noqa: E731
    return [c for c in [
        ("layer norm, one pass", layer_norm_one_pass, (m,), ln_args, {"BLOCK_SIZE": block}, ln,
         ln_ref),
        ("layer norm, tutorial", gb.example("layer_norm").layer_norm_fwd_kernel, (m,), ln_args,
         {"BLOCK_SIZE": block}, ln, ln_ref),
        ("softmax, one pass", softmax_one_pass, (m,), lambda x, y: [y, x, n, n],
         {"BLOCK_SIZE": block}, lambda x: torch.softmax(x, -1),
         lambda x: torch.softmax(x.float(), -1)),
        ("softmax, 4 rows a program", softmax_rows, (triton.cdiv(m, 4),),
         lambda x, y: [y, x, n, m, n], {"ROWS": 4, "BLOCK_SIZE": block},
         lambda x: torch.softmax(x, -1), lambda x: torch.softmax(x.float(), -1)),
        ("rows centred, 8x256 blocks in loops", center_rows, (triton.cdiv(m, 8),),
         lambda x, y: [y, x, m, n], {"BM": 8, "BN": 256},
         lambda x: x - x.mean(1, keepdim=True), lambda x: x.float() - x.float().mean(1, True)),
        ("rms norm, one pass, block pointers", rms_norm_block_ptr, (m,),
         lambda x, y: [y, x, m, n, 1e-5], {"BLOCK_SIZE": block},
         lambda x: torch.nn.functional.rms_norm(x, (n,), eps=1e-5),
         lambda x: torch.nn.functional.rms_norm(x.float(), (n,), eps=1e-5)),
        ("transpose, 64x64 tiles", transpose, (triton.cdiv(m, 64), triton.cdiv(n, 64)),
         lambda x, y: [y, x, m, n], {"BM": 64, "BN": 64}, lambda x: x.t().contiguous(),
         lambda x: x.t().float().contiguous().view(m, n)),
    ] if c[0] in names]


def _one_size(m: int, n: int, rounds: int, warps: list, names, profile: bool = False,
              sides=tuple(SIDES)) -> list:
    """(kernel, side, config, GB/s, fraction of the copy's speed) for every run at m x n; with
    `profile`, each run (but torch's) launched once more inside an NVTX range "profiled" instead
    of timed (for ncu --nvtx --nvtx-include profiled/)."""
    import torch
    from triton.testing import do_bench

    from triton_tile.backends import ptx_gpu

    x = (torch.randn(m, n, device="cuda") * 2 + 0.5).half()
    y = torch.empty_like(x)
    runs = {}
    for name, kernel, grid, args, meta, torch_fn, reference in _cases(m, n, names):
        ref = reference(x)
        for side, tile in ((side, SIDES[side]) for side in sides):
            k = ptx_gpu.twin_of(kernel) if tile is None else kernel
            env = tile[0] if tile else None
            for nw in warps:
                opts = dict(meta, num_warps=nw)
                if tile is None:
                    opts.update(num_stages=1)
                else:
                    opts.update(enable_tile=True, **tile[1])
                launch_args = args(x, y)
                if tile is None:
                    launch_args = [ptx_gpu.arg_to_stock(a) for a in launch_args]

                def f(k=k, grid=grid, launch_args=launch_args, opts=opts, env=env):
                    with gb._Env(env or {}):
                        k[grid](*launch_args, **opts)

                y.fill_(float("nan"))
                f()
                torch.cuda.synchronize()
                err = ((y.float() - ref).abs().max() / ref.abs().max()).item()
                if not err <= 1e-2:  # (a NaN fails too: the output was poisoned)
                    raise SystemExit(f"{name}, {side}, nw{nw}, {m}x{n}: rel error {err}")
                runs[(name, side, f"nw{nw}")] = f
        runs[(name, "torch", "")] = lambda torch_fn=torch_fn: torch_fn(x)
    runs[("copy of x to y", "torch", "")] = lambda: y.copy_(x)
    if profile:
        for (name, side, cfg), f in runs.items():
            if side != "torch":
                torch.cuda.nvtx.range_push("profiled")
                f()
                torch.cuda.synchronize()
                torch.cuda.nvtx.range_pop()
                print(f"profiled: {name}, {side}, {cfg}")
        return []
    times = {key: [] for key in runs}
    for _ in range(rounds):
        for key, f in runs.items():
            times[key].append(do_bench(f, warmup=25, rep=100, return_mode="median"))
    copy = statistics.median(times[("copy of x to y", "torch", "")])
    nbytes = 2.0 * m * n * 2
    return [(*key, nbytes / statistics.median(ts) / 1e6, copy / statistics.median(ts))
            for key, ts in times.items()]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--sizes", default="4096x4096,8192x8192,16384x1024")
    ap.add_argument("--warps", default="4,8")
    ap.add_argument("--kernels", default="layer norm, one pass;softmax, one pass;"
                    "softmax, 4 rows a program;transpose, 64x64 tiles",
                    help="';'-separated names (also: layer norm, tutorial)")
    ap.add_argument("--sides", default=";".join(SIDES), help="';'-separated, of: "
                    + "; ".join(SIDES))
    ap.add_argument("--profile", action="store_true",
                    help="launch each Tile and stock run once inside an NVTX range "
                         "'profiled' instead of timing (ncu --nvtx --nvtx-include profiled/)")
    args = ap.parse_args(argv)
    import torch

    torch.manual_seed(0)
    rows = []
    for size in args.sizes.split(","):
        m, n = (int(v) for v in size.split("x"))
        warps = [int(w) for w in args.warps.split(",")]
        rows += [(size, *r) for r in _one_size(m, n, args.rounds, warps,
                                                args.kernels.split(";"), args.profile,
                                                args.sides.split(";"))]
    if args.profile:
        return 0
    print(f"\n{torch.cuda.get_device_name()}, torch {torch.__version__}, stock Triton "
          f"{__import__('triton').__version__}; fp16; GB/s from the median of {args.rounds} "
          "interleaved do_bench medians; % of copy = the copy's time / the row's\n")
    print("| size | kernel | side | config | GB/s | % of same-size copy |")
    print("|---|---|---|---|---|---|")
    for size, kname, side, cfg, gbs, frac in rows:
        print(f"| {size} | {kname} | {side} | {cfg} | {gbs:.1f} | {100 * frac:.0f}% |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
