"""Blocked matrix multiplication with grouped program ordering and autotuning, in the style of
Triton's third tutorial.

C = A @ B (fp16 inputs, fp32 accumulation, fp16 output) with an optional fused leaky-ReLU.
Programs are numbered so that GROUP_M consecutive programs cover a column of output blocks,
which keeps the A rows they share hot in cache. @triton.autotune picks a block configuration
per (M, N, K). matmul_persistent_kernel is the same product in the persistent form of Triton's
tutorial 09.

    python examples/matmul.py
"""

import numpy as np

import triton_tile as triton
import triton_tile.language as tl


def autotune_configs():
    return [
        triton.Config({"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32, "GROUP_M": 8},
                      num_warps=4, num_stages=3),
        triton.Config({"BLOCK_M": 128, "BLOCK_N": 64, "BLOCK_K": 32, "GROUP_M": 8},
                      num_warps=8, num_stages=3),
        triton.Config({"BLOCK_M": 32, "BLOCK_N": 32, "BLOCK_K": 64, "GROUP_M": 4},
                      num_warps=2, num_stages=4),
    ]


@triton.jit
def leaky_relu(x):
    return tl.where(x >= 0, x, 0.01 * x)


@triton.autotune(configs=autotune_configs(), key=["M", "N", "K"])
@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                  stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                  GROUP_M: tl.constexpr, ACTIVATION: tl.constexpr):
    # Grouped ordering: walk the output blocks column-major inside groups of GROUP_M rows.
    pid = tl.program_id(axis=0)
    blocks_m = tl.cdiv(M, BLOCK_M)
    blocks_n = tl.cdiv(N, BLOCK_N)
    per_group = GROUP_M * blocks_n
    group = pid // per_group
    group_row0 = group * GROUP_M
    rows_in_group = min(blocks_m - group_row0, GROUP_M)
    block_m = group_row0 + (pid % per_group) % rows_in_group
    block_n = (pid % per_group) // rows_in_group

    # Rows/columns past the edge wrap around (`%`): they load valid memory and their results
    # are dropped by the store mask.
    rm = (block_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
    rn = (block_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
    rk = tl.arange(0, BLOCK_K)
    a_tile = a_ptr + rm[:, None] * stride_am + rk[None, :] * stride_ak
    b_tile = b_ptr + rk[:, None] * stride_bk + rn[None, :] * stride_bn

    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for kb in range(0, tl.cdiv(K, BLOCK_K)):
        k_left = K - kb * BLOCK_K
        a = tl.load(a_tile, mask=rk[None, :] < k_left, other=0.0)
        b = tl.load(b_tile, mask=rk[:, None] < k_left, other=0.0)
        acc = tl.dot(a, b, acc)
        a_tile += BLOCK_K * stride_ak
        b_tile += BLOCK_K * stride_bk
    if ACTIVATION == "leaky_relu":
        acc = leaky_relu(acc)
    c = acc.to(tl.float16)

    cm = block_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cn = block_n * BLOCK_N + tl.arange(0, BLOCK_N)
    c_ptrs = c_ptr + cm[:, None] * stride_cm + cn[None, :] * stride_cn
    tl.store(c_ptrs, c, mask=(cm[:, None] < M) & (cn[None, :] < N))


@triton.jit
def _tile_block(tile, blocks_m, blocks_n, GROUP_M: tl.constexpr):
    """matmul_kernel's grouped ordering for output tile `tile`: (block row, block column)."""
    per_group = GROUP_M * blocks_n
    group_row0 = (tile // per_group) * GROUP_M
    rows_in_group = min(blocks_m - group_row0, GROUP_M)
    return group_row0 + (tile % per_group) % rows_in_group, (tile % per_group) // rows_in_group


@triton.jit
def matmul_persistent_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                             stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                             BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                             BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr,
                             NUM_SMS: tl.constexpr):
    """matmul_kernel as Triton's tutorial 09 writes its persistent form: NUM_SMS programs walk
    the output tiles NUM_SMS apart, each tile's K loop indexing A and B from the loop index,
    and a second counter (tile_c) naming the tile the epilogue stores, as the tutorial keeps
    it."""
    blocks_m = tl.cdiv(M, BLOCK_M)
    blocks_n = tl.cdiv(N, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    tile_c = tl.program_id(0) - NUM_SMS
    for tile in tl.range(tl.program_id(0), blocks_m * blocks_n, NUM_SMS, flatten=True):
        block_m, block_n = _tile_block(tile, blocks_m, blocks_n, GROUP_M)
        rm = (block_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
        rn = (block_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for kb in range(0, tl.cdiv(K, BLOCK_K)):
            ks = kb * BLOCK_K + rk
            a = tl.load(a_ptr + rm[:, None] * stride_am + ks[None, :] * stride_ak,
                        mask=ks[None, :] < K, other=0.0)
            b = tl.load(b_ptr + ks[:, None] * stride_bk + rn[None, :] * stride_bn,
                        mask=ks[:, None] < K, other=0.0)
            acc = tl.dot(a, b, acc)
        tile_c += NUM_SMS
        block_m, block_n = _tile_block(tile_c, blocks_m, blocks_n, GROUP_M)
        cm = block_m * BLOCK_M + tl.arange(0, BLOCK_M)
        cn = block_n * BLOCK_N + tl.arange(0, BLOCK_N)
        tl.store(c_ptr + cm[:, None] * stride_cm + cn[None, :] * stride_cn, acc.to(tl.float16),
                 mask=(cm[:, None] < M) & (cn[None, :] < N))


def matmul_persistent(a, b, out=None, num_sms=4, block=(64, 64, 32), group_m=8):
    """a @ b for 2-D fp16 arrays through the persistent kernel on min(num_sms, tiles)
    programs."""
    assert a.ndim == b.ndim == 2 and a.shape[1] == b.shape[0], "incompatible shapes"
    M, K = a.shape
    N = b.shape[1]
    if out is None:
        out = np.empty((M, N), dtype=np.float16)
    bm, bn, bk = block
    tiles = triton.cdiv(M, bm) * triton.cdiv(N, bn)
    st = [x.strides[i] // x.itemsize for x in (a, b, out) for i in (0, 1)]
    compiled = matmul_persistent_kernel[(min(num_sms, tiles),)](
        a, b, out, M, N, K, *st, BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, GROUP_M=group_m,
        NUM_SMS=num_sms)
    return out, compiled


def matmul(a, b, out=None, activation=""):
    """a @ b for 2-D fp16 arrays (any strides, e.g. a transposed view)."""
    assert a.ndim == b.ndim == 2 and a.shape[1] == b.shape[0], "incompatible shapes"
    M, K = a.shape
    N = b.shape[1]
    if out is None:
        out = np.empty((M, N), dtype=np.float16)

    def grid(meta):
        return (triton.cdiv(M, meta["BLOCK_M"]) * triton.cdiv(N, meta["BLOCK_N"]),)

    def stride(x, i):
        return x.strides[i] // x.itemsize

    compiled = matmul_kernel[grid](a, b, out, M, N, K, stride(a, 0), stride(a, 1),
                                   stride(b, 0), stride(b, 1), stride(out, 0), stride(out, 1),
                                   ACTIVATION=activation)
    return out, compiled


def reference(a, b, activation=""):
    c = a.astype(np.float64) @ b.astype(np.float64)
    if activation == "leaky_relu":
        c = np.where(c >= 0, c, 0.01 * c)
    return c


def _path_of(compiled):
    md = getattr(compiled, "metadata", None)
    if isinstance(md, dict):
        return md.get("path")
    return getattr(md, "path", None)


def check(M=200, N=136, K=100, activation="", transpose_b=False, seed=0):
    """Returns (correct, max_abs_err, compiled_kernel)."""
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((M, K)).astype(np.float16)
    if transpose_b:  # a column-major B: a transposed view, as tutorials pass `b.T`
        b = np.ascontiguousarray(rng.standard_normal((N, K)).astype(np.float16)).T
    else:
        b = rng.standard_normal((K, N)).astype(np.float16)
    out = np.full((M, N), np.nan, dtype=np.float16)
    _, compiled = matmul(a, b, out, activation)
    ref = reference(a, b, activation)
    err = float(np.max(np.abs(out.astype(np.float64) - ref)))
    # inputs are exact, products exact in fp32: the error is fp32 summation + fp16 rounding
    ok = bool(np.allclose(out.astype(np.float64), ref, rtol=2e-3, atol=2e-3))
    return ok, err, compiled


def check_persistent(M=200, N=136, K=100, num_sms=4, block=(64, 64, 32), seed=0):
    """matmul_persistent against float64 numpy: (correct, max_abs_err, compiled_kernel)."""
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((M, K)).astype(np.float16)
    b = rng.standard_normal((K, N)).astype(np.float16)
    out = np.full((M, N), np.nan, dtype=np.float16)
    _, compiled = matmul_persistent(a, b, out, num_sms, block)
    ref = reference(a, b)
    err = float(np.max(np.abs(out.astype(np.float64) - ref)))
    ok = bool(np.allclose(out.astype(np.float64), ref, rtol=2e-3, atol=2e-3))
    return ok, err, compiled


def demo(quick=False):
    size = 128 if quick else 512
    correct, err, compiled = check(size, size, size)
    rng = np.random.default_rng(1)
    a = rng.standard_normal((size, size)).astype(np.float16)
    b = rng.standard_normal((size, size)).astype(np.float16)
    out = np.empty((size, size), dtype=np.float16)
    ms = triton.testing.do_bench(lambda: matmul(a, b, out), warmup=10 if quick else 25,
                                 rep=50 if quick else 200)
    gflops = 2 * size**3 / (ms * 1e-3) / 1e9
    return {"kernel": "matmul", "size": f"{size}x{size}x{size} fp16", "correct": correct,
            "ms": ms, "metric": gflops, "unit": "GFLOP/s", "path": _path_of(compiled),
            "max_err": err}


if __name__ == "__main__":
    r = demo()
    print(f"matmul {r['size']}: correct={r['correct']} (max err {r['max_err']:.2e}), "
          f"{r['ms']:.3f} ms, {r['metric']:.1f} {r['unit']}")
    print("best config:", matmul_kernel.best_config)
