"""GPU benchmarks: the examples/ kernels on the Tile IR path vs stock Triton, in one run.

    python benchmarks/run_all.py --device cuda [--quick] [--only vector_add matmul ...]
    TRITON_TILE_TARGET=sm_90 python benchmarks/run_all.py --device cuda --aot   # no GPU

For each case, the same @jit function runs (1) on triton_tile's Tile path (enable_tile=True:
Tile IR -> tileiras -> cubin) and (2) compiled by stock Triton from the same source
(backends/ptx_gpu.twin_of), with the same grid and meta-parameters. Inputs are random (never
zeros), outputs are poisoned with NaN before each correctness check against torch, and times
are triton.testing.do_bench medians. ratio = Triton ms / Tile ms (above 1: Tile is faster).
`--aot` compiles the Tile kernels for TRITON_TILE_TARGET without a GPU (dtype stand-ins with
the same scalars), which fills the cache a GPU machine without tileiras runs from.
"""

import importlib.util
import os
import sys
from typing import Callable, List, NamedTuple, Optional

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if importlib.util.find_spec("triton_tile") is None:
    sys.path.insert(0, ROOT)

import triton_tile as tt  # noqa: E402


def example(name):
    key = f"triton_tile_example_{name}"
    if key not in sys.modules:
        spec = importlib.util.spec_from_file_location(
            key, os.path.join(ROOT, "examples", name + ".py"))
        mod = importlib.util.module_from_spec(spec)
        sys.modules[key] = mod
        spec.loader.exec_module(mod)
    return sys.modules[key]


class Launch(NamedTuple):
    """A launch that runs ahead of a case's kernel in each of its launches, on the same path
    (Tile or stock Triton) and with its own grid and meta: attention backward's preprocess."""
    kernel: object  # our JITFunction
    grid: tuple
    args: list
    meta: dict


class Case(NamedTuple):
    name: str
    label: str
    kernel: object  # our JITFunction
    grid: tuple
    args: list
    meta: dict
    outputs: list  # tensors to poison before a correctness check
    check: Optional[Callable[[], float]]  # relative error of the outputs vs torch
    tol: float
    work: float  # bytes moved (GB/s) or flops (TFLOP/s)
    unit: str  # "GB/s" or "TFLOP/s"
    regrid: Optional[Callable[[dict], tuple]] = None  # the grid of other block sizes (TUNE)
    torch_fn: Optional[Callable[[], object]] = None  # what a torch user runs instead
    # Launches that run before the kernel in every launch of the case, so that one launch is
    # the whole computation (the time and `work` cover them all; the table's path, TUNE and the
    # Tile variants' occupancy are the kernel's, the variants' environment applies to all)
    before: tuple = ()
    after: tuple = ()  # launches that run after it likewise (the atomic backward's dQ cast)
    # The kernel's arguments for a config's meta, where they depend on it (host descriptors
    # carry the block shape), else None: `args` for every config
    reargs: Optional[Callable[[dict], list]] = None


def case_args(case: Case, meta: dict) -> list:
    """The case's kernel arguments at `meta` (its own or `reargs`'s)."""
    return case.reargs(meta) if case.reargs else case.args


def _desc_args(a, b, c, tail: list) -> Callable[[dict], list]:
    """`reargs` for a matmul through host descriptors: A, B and C's descriptors at the meta's
    block sizes (as examples/matmul_tma.py's autotune pre_hook sets them), one set per block
    shape, then `tail`."""
    from triton_tile.tools.tensor_descriptor import TensorDescriptor

    made = {}

    def args(meta):
        key = bm, bn, bk = meta["BLOCK_M"], meta["BLOCK_N"], meta["BLOCK_K"]
        if key not in made:
            made[key] = [TensorDescriptor.from_tensor(x, shape) for x, shape in
                         ((a, [bm, bk]), (b, [bk, bn]), (c, [bm, bn]))] + tail
        return made[key]

    return args


class Tensors:
    """Random CUDA tensors, or (ahead of time) dtype stand-ins of the same shape."""

    def __init__(self, aot: bool):
        self.aot = aot

    def randn(self, shape, dtype, scale=1.0, shift=0.0):
        shape = (shape,) if isinstance(shape, int) else shape
        if self.aot:
            return tt.MockTensor(_np_dtype(dtype), shape)
        import torch

        return (torch.randn(shape, device="cuda", dtype=torch.float32) * scale + shift).to(
            getattr(torch, dtype))

    def empty(self, shape, dtype):
        shape = (shape,) if isinstance(shape, int) else shape
        if self.aot:
            return tt.MockTensor(_np_dtype(dtype), shape)
        import torch

        return torch.full(shape, float("nan"), device="cuda", dtype=getattr(torch, dtype))


def _torch():
    import torch

    return torch


def _np_dtype(name):
    if name in ("bfloat16", "float8_e4m3fn"):
        import ml_dtypes

        return np.dtype(getattr(ml_dtypes, name))
    return np.dtype(name)


def _rel_err(out, ref) -> float:
    out, ref = out.float(), ref.float()
    if out.isnan().any():
        return float("inf")
    return float((out - ref).norm() / ref.norm())


def vector_add(t: Tensors, n: int) -> Case:
    x, y, out = t.randn(n, "float32"), t.randn(n, "float32"), t.empty(n, "float32")
    return Case("vector add fp32", f"N=2^{n.bit_length() - 1}", example("vector_add").add_kernel,
                (tt.cdiv(n, 1024),), [x, y, out, n], {"BLOCK_SIZE": 1024}, [out],
                lambda: _rel_err(out, x + y), 0.0, 12.0 * n, "GB/s",
                lambda meta: (tt.cdiv(n, meta["BLOCK_SIZE"]),),
                lambda: _torch().add(x, y, out=out))


def softmax(t: Tensors, m: int, n: int, dtype: str) -> Case:
    short = {"float16": "fp16", "bfloat16": "bf16"}[dtype]
    x, out = t.randn((m, n), dtype, scale=3.0), t.empty((m, n), dtype)

    def check():
        return _rel_err(out, x.float().softmax(-1))

    return Case(f"softmax {short}", f"{m}x{n}", example("fused_softmax").softmax_kernel,
                (m,), [out, x, n, n, m, n],
                {"BLOCK_SIZE": tt.next_power_of_2(n), "num_stages": 2, "num_warps": 16}, [out],
                check, 1e-2, 2.0 * m * n * 2, "GB/s",
                torch_fn=lambda: _torch().softmax(x, -1))


def layer_norm(t: Tensors, m: int, n: int) -> Case:
    x = t.randn((m, n), "float16", scale=2.0, shift=0.5)
    w, b = t.randn(n, "float16"), t.randn(n, "float16")
    y, mean, rstd = t.empty((m, n), "float16"), t.empty(m, "float32"), t.empty(m, "float32")

    def check():
        import torch

        ref = torch.nn.functional.layer_norm(x.float(), (n,), w.float(), b.float(), 1e-5)
        return _rel_err(y, ref)

    return Case("layer norm fp16", f"{m}x{n}", example("layer_norm").layer_norm_fwd_kernel,
                (m,), [x, y, w, b, mean, rstd, n, n, 1e-5],
                {"BLOCK_SIZE": tt.next_power_of_2(n), "num_warps": 8}, [y, mean, rstd], check,
                1e-2, 4.0 * m * n, "GB/s",
                torch_fn=lambda: _torch().nn.functional.layer_norm(x, (n,), w, b, 1e-5))


def stencil(t: Tensors, m: int, n: int) -> Case:
    """The 5-point Laplacian with zero padding: five shifted loads, each tested on both sides
    (a lower bound keeps a load a gather on the Tile path, raise_views.cpp). A torch user runs
    conv2d."""
    x, out = t.randn((m, n), "float32"), t.empty((m, n), "float32")
    torch_fn = None
    if not t.aot:
        torch = _torch()
        w = torch.tensor([[0.0, 1.0, 0.0], [1.0, -4.0, 1.0], [0.0, 1.0, 0.0]], device="cuda")

        def torch_fn():
            return torch.nn.functional.conv2d(x[None, None], w[None, None], padding=1)

    return Case("stencil fp32", f"{m}x{n}", example("stencil").laplacian_kernel,
                (tt.cdiv(m, 32), tt.cdiv(n, 128)), [x, out, m, n],
                {"BLOCK_M": 32, "BLOCK_N": 128}, [out], lambda: _rel_err(out, torch_fn()[0, 0]),
                1e-5, 8.0 * m * n, "GB/s",
                lambda meta: (tt.cdiv(m, meta["BLOCK_M"]), tt.cdiv(n, meta["BLOCK_N"])),
                torch_fn)


def matmul(t: Tensors, size: int, dtype: str, b_kmajor: bool = False) -> Case:
    """b_kmajor: B stored K-major (a transposed view, strides (1, K)), as the Triton tutorial
    passes it for fp8 (`b = b.T`) and as Hopper's fp8 MMA wants its operands."""
    a, b = t.randn((size, size), dtype), t.randn((size, size), dtype)
    if b_kmajor and not t.aot:
        b = b.T  # (ahead of time only the pointer and the stride arguments matter)
    stride_bk, stride_bn = (1, size) if b_kmajor else (size, 1)
    c = t.empty((size, size), "float16")  # the example kernel stores fp16
    bm, bn, bk = 128, 128, 64
    grid = (tt.cdiv(size, bm) * tt.cdiv(size, bn),)

    def check():
        return _rel_err(c, (a.float() @ b.float()))

    short = {"float16": "fp16", "bfloat16": "bf16", "float8_e4m3fn": "fp8 e4m3"}[dtype]
    short += " B K-major" if b_kmajor else ""
    return Case(f"matmul {short}", f"{size}^3", example("matmul").matmul_kernel.fn, grid,
                [a, b, c, size, size, size, size, 1, stride_bk, stride_bn, size, 1],
                {"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": bk, "GROUP_M": 8, "ACTIVATION": "",
                 "num_warps": 8, "num_stages": 3}, [c], check, 1e-2,
                2.0 * size ** 3, "TFLOP/s",
                lambda meta: (tt.cdiv(size, meta["BLOCK_M"]) * tt.cdiv(size, meta["BLOCK_N"]),),
                _fp8_torch(a, b) if dtype.startswith("float8") else lambda: _torch().matmul(a, b))


def matmul_persistent(t: Tensors, size: int, dtype: str) -> Case:
    """examples/matmul.py's persistent kernel, tutorial 09's form, one program per SM."""
    a, b = t.randn((size, size), dtype), t.randn((size, size), dtype)
    c = t.empty((size, size), "float16")
    sms = 132
    meta = {"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64, "GROUP_M": 8, "NUM_SMS": sms,
            "num_warps": 8, "num_stages": 3}

    def grid(meta):
        tiles = tt.cdiv(size, meta["BLOCK_M"]) * tt.cdiv(size, meta["BLOCK_N"])
        return (min(meta["NUM_SMS"], tiles),)

    def check():
        return _rel_err(c, (a.float() @ b.float()))

    short = {"float16": "fp16", "bfloat16": "bf16"}[dtype]
    return Case(f"matmul persistent {short}", f"{size}^3",
                example("matmul").matmul_persistent_kernel, grid(meta),
                [a, b, c, size, size, size, size, 1, size, 1, size, 1], meta, [c], check, 1e-2,
                2.0 * size ** 3, "TFLOP/s", grid, lambda: _torch().matmul(a, b))


def _fp8_torch(a, b):
    """What a torch user runs for an fp8 GEMM: cuBLAS through torch._scaled_mm (unit scales,
    fp16 out); None ahead of time. _scaled_mm takes B column-major (K-major) only, so a row-major
    B is made column-major in each call, as a user holding that B must; the K-major rows time
    the GEMM alone (a B kept K-major, as both sides then read it)."""
    if getattr(a, "device", None) is None:
        return None
    torch = _torch()
    one = torch.ones((), device="cuda", dtype=torch.float32)
    if b.stride(0) == 1:
        return lambda: torch._scaled_mm(a, b, scale_a=one, scale_b=one, out_dtype=torch.float16)
    return lambda: torch._scaled_mm(a, b.t().contiguous().t(), scale_a=one, scale_b=one,
                                    out_dtype=torch.float16)


def matmul_tma(t: Tensors, size: int, dtype: str) -> Case:
    """The persistent descriptor matmul (examples/matmul_tma.py), one program per SM."""
    a, b = t.randn((size, size), dtype), t.randn((size, size), dtype)
    c = t.empty((size, size), dtype)
    sms = 132
    meta = {"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64, "num_warps": 8, "num_stages": 3}
    reargs = _desc_args(a, b, c, [size, size, size, sms])

    def grid(meta):
        return (min(sms, tt.cdiv(size, meta["BLOCK_M"]) * tt.cdiv(size, meta["BLOCK_N"])),)

    def check():
        return _rel_err(c, (a.float() @ b.float()))

    short = {"float16": "fp16", "bfloat16": "bf16"}[dtype]
    return Case(f"matmul TMA {short}", f"{size}^3", example("matmul_tma").matmul_tma_kernel.fn,
                grid(meta), reargs(meta), meta, [c], check, 1e-2, 2.0 * size ** 3, "TFLOP/s",
                grid, torch_fn=lambda: _torch().matmul(a, b), reargs=reargs)


def matmul_desc(t: Tensors, size: int, dtype: str) -> Case:
    """The descriptor matmul with one output tile per program (examples/matmul_tma.py)."""
    a, b = t.randn((size, size), dtype), t.randn((size, size), dtype)
    c = t.empty((size, size), dtype)
    meta = {"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64, "num_warps": 8, "num_stages": 3}
    reargs = _desc_args(a, b, c, [size, size, size])

    def grid(meta):
        return (tt.cdiv(size, meta["BLOCK_M"]) * tt.cdiv(size, meta["BLOCK_N"]),)

    def check():
        return _rel_err(c, (a.float() @ b.float()))

    short = {"float16": "fp16", "bfloat16": "bf16"}[dtype]
    return Case(f"matmul desc {short}", f"{size}^3", example("matmul_tma").matmul_desc_kernel,
                grid(meta), reargs(meta), meta, [c], check, 1e-2, 2.0 * size ** 3, "TFLOP/s",
                grid, torch_fn=lambda: _torch().matmul(a, b), reargs=reargs)


def attention(t: Tensors, z: int, h: int, n_ctx: int, d: int) -> Case:
    q, k, v = (t.randn((z, h, n_ctx, d), "float16") for _ in range(3))
    o, m = t.empty((z, h, n_ctx, d), "float16"), t.empty((z, h, n_ctx), "float32")
    scale = d ** -0.5
    st = [h * n_ctx * d, n_ctx * d, d, 1]
    bm, bn = 128, 64

    def check():
        import torch

        ref = torch.nn.functional.scaled_dot_product_attention(q, k, v, scale=scale)
        return _rel_err(o, ref)

    return Case("attention fwd fp16", f"B{z} H{h} L{n_ctx} D{d}",
                example("fused_attention").attn_fwd_kernel, (tt.cdiv(n_ctx, bm), z * h, 1),
                [q, k, v, scale, m, o, *st, *st, *st, *st, h, n_ctx],
                # EVEN: whole blocks, for every BLOCK_M up to 128 (TUNE's)
                {"HEAD_DIM": d, "BLOCK_M": bm, "BLOCK_N": bn, "CAUSAL": False,
                 "EVEN": n_ctx % 128 == 0, "num_warps": 8, "num_stages": 3}, [o, m], check, 1e-2,
                4.0 * z * h * n_ctx * n_ctx * d,
                "TFLOP/s", lambda meta: (tt.cdiv(n_ctx, meta["BLOCK_M"]), z * h, 1),
                lambda: _torch().nn.functional.scaled_dot_product_attention(q, k, v,
                                                                            scale=scale))


def _attn_forward(q, k, v, scale):
    """O (fp16) and M (the base-2 log-sum-exp, fp32, as attn_fwd_kernel stores it) of
    softmax(q k^T * scale) v, by torch in fp32, one batch entry at a time."""
    torch = _torch()
    o = torch.empty_like(q)
    m = torch.empty(q.shape[:3], device=q.device, dtype=torch.float32)
    for i in range(q.shape[0]):
        s = (q[i].float() @ k[i].float().transpose(-1, -2)) * scale
        m[i] = torch.logsumexp(s, -1) * 1.4426950408889634
        o[i] = (torch.softmax(s, -1) @ v[i].float()).to(q.dtype)
        del s
    return o, m


def attention_bwd(t: Tensors, z: int, h: int, n_ctx: int, d: int, atomic: bool = False,
                  persistent: bool = False) -> Case:
    """The backward of the forward row (examples/fused_attention_bwd.py). One launch is the
    whole backward: the preprocess (Delta = rowsum(O * dO), a `before` launch), then the dK/dV
    + dQ kernel. O and M come from torch in fp32 (the row does not depend on our forward); the
    reference and torch's column are scaled_dot_product_attention's backward (autograd.grad of
    its output, the graph kept). flops: 2.5x the forward's, as Triton's tutorial counts.
    `atomic`: the 5-matmul form (attn_bwd_atomic_kernel), its preprocess zeroing a float32 dQ
    accumulator and a launch after it scaling that into dQ; `persistent`: its persistent
    kernel, 132 programs (an H100's SMs) looping over the key blocks of every head."""
    mod = example("fused_attention_bwd")
    shape = (z, h, n_ctx, d)
    q, k, v, do = (t.randn(shape, "float16") for _ in range(4))
    dq, dk, dv = (t.empty(shape, "float16") for _ in range(3))
    delta = t.empty((z, h, n_ctx), "float32")
    scale = d ** -0.5
    if t.aot:
        o, m = t.randn(shape, "float16"), t.randn((z, h, n_ctx), "float32")
    else:
        o, m = _attn_forward(q, k, v, scale)
    st = [h * n_ctx * d, n_ctx * d, d, 1]
    pre_m = 128  # the tutorial's preprocess block
    pre = Launch(mod.attn_bwd_preprocess_kernel, (tt.cdiv(n_ctx, pre_m), z * h),
                 [o, do, delta, *st, h, n_ctx], {"HEAD_DIM": d, "BLOCK_M": pre_m})
    torch_fn = None
    if not t.aot:
        torch = _torch()
        leaves = [x.detach().requires_grad_() for x in (q, k, v)]
        out = torch.nn.functional.scaled_dot_product_attention(*leaves, scale=scale)

        def torch_fn():
            return torch.autograd.grad(out, leaves, do, retain_graph=True)

    ref = []

    def check():
        if not ref:
            ref.extend(torch_fn())
        return max(_rel_err(x, r) for x, r in zip((dq, dk, dv), ref))

    # BLOCK_N1 == BLOCK_M2: one program index. Not the tutorial's 32/128/128/32 at 4 warps and
    # 5 stages (in TUNE): at D128 its 128-row fp32 dK and dV spill (H200: stock 92 TFLOP/s,
    # where these blocks ran 336 stock, 208 Tile)
    meta = {"HEAD_DIM": d, "BLOCK_M1": 32, "BLOCK_N1": 64, "BLOCK_M2": 64, "BLOCK_N2": 32,
            "CAUSAL": False, "num_warps": 4, "num_stages": 3}
    if atomic:
        acc = t.empty((z * h, n_ctx, d), "float32")
        pre = Launch(mod.attn_bwd_preprocess_acc_kernel, pre.grid, [o, do, delta, acc, *st, h,
                                                                    n_ctx], pre.meta)
        post = Launch(mod.attn_bwd_dq_kernel, pre.grid, [acc, dq, scale, *st, h, n_ctx],
                      pre.meta)
        meta = {"HEAD_DIM": d, "BLOCK_M1": 64, "BLOCK_N1": 128, "CAUSAL": False,
                "num_warps": 8, "num_stages": 3}
        if persistent:
            meta["NUM_PROGRAMS"] = 132
            return Case("attention bwd atomic persistent fp16", f"B{z} H{h} L{n_ctx} D{d}",
                        mod.attn_bwd_atomic_persistent_kernel, (132,),
                        [q, k, v, scale, do, acc, dk, dv, m, delta, *st, h, n_ctx, z * h], meta,
                        [dq, dk, dv, delta, acc], check, 1e-2,
                        10.0 * z * h * n_ctx * n_ctx * d, "TFLOP/s",
                        lambda meta: (meta["NUM_PROGRAMS"],), torch_fn, before=(pre,),
                        after=(post,))
        return Case("attention bwd atomic fp16", f"B{z} H{h} L{n_ctx} D{d}",
                    mod.attn_bwd_atomic_kernel, (tt.cdiv(n_ctx, 128), z * h),
                    [q, k, v, scale, do, acc, dk, dv, m, delta, *st, h, n_ctx], meta,
                    [dq, dk, dv, delta, acc], check, 1e-2, 10.0 * z * h * n_ctx * n_ctx * d,
                    "TFLOP/s", lambda meta: (tt.cdiv(n_ctx, meta["BLOCK_N1"]), z * h),
                    torch_fn, before=(pre,), after=(post,))
    return Case("attention bwd fp16", f"B{z} H{h} L{n_ctx} D{d}", mod.attn_bwd_kernel,
                (tt.cdiv(n_ctx, 64), z * h), [q, k, v, scale, do, dq, dk, dv, m, delta, *st,
                                              h, n_ctx],
                meta, [dq, dk, dv, delta], check, 1e-2, 10.0 * z * h * n_ctx * n_ctx * d,
                "TFLOP/s", lambda meta: (tt.cdiv(n_ctx, meta["BLOCK_N1"]), z * h),
                torch_fn, before=(pre,))


def grouped_gemm(t: Tensors, sizes, desc: bool = False) -> Case:
    """Square fp16 GEMMs of the given sizes in one persistent launch (examples/grouped_gemm.py):
    132 programs (the H100 and H200 SXM's SMs) over all the problems' tiles, each problem's
    addresses, sizes and leading dimensions read from device arrays; torch's column is a loop
    of torch.matmul over the problems. The sizes are multiples of every TUNE block (256) and
    torch's allocations aligned: the kernel runs EVEN (no masks, alignment stated). desc: the
    kernel that makes each problem's tensor descriptors in the kernel (stock Triton allocates
    their tensor maps through triton.set_allocator)."""
    mod = example("grouped_gemm")
    g = len(sizes)
    a_list = [t.randn((s, s), "float16") for s in sizes]
    b_list = [t.randn((s, s), "float16") for s in sizes]
    c_list = [t.empty((s, s), "float16") for s in sizes]
    if t.aot:
        tables = [tt.MockTensor(np.dtype("int64"), (g,)) for _ in range(3)]
        tables += [tt.MockTensor(np.dtype("int32"), (g, 3)) for _ in range(2)]
    else:
        host = mod.group_tables(a_list, b_list, c_list)
        assert mod.whole_tiles(host, 256, 256, 256), "EVEN needs whole tiles, aligned rows"
        tables = [_torch().from_numpy(x).cuda() for x in host]

    def check():
        return max(_rel_err(c, a.float() @ b.float()) for a, b, c in zip(a_list, b_list,
                                                                         c_list))

    def torch_fn():
        return [_torch().matmul(a, b) for a, b in zip(a_list, b_list)]

    meta = {"NUM_PROGRAMS": 132, "BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64, "num_warps": 8,
            "num_stages": 3}
    if desc and not t.aot:
        import triton

        torch = _torch()
        triton.set_allocator(lambda size, align, stream: torch.empty(size, dtype=torch.int8,
                                                                     device="cuda"))
    return Case("grouped gemm desc fp16" if desc else "grouped gemm fp16",
                "+".join(f"{s}^3" for s in sizes),
                mod.grouped_matmul_desc_kernel if desc else mod.grouped_matmul_kernel, (132,),
                [*tables, g], meta if desc else {**meta, "EVEN": True}, c_list, check, 1e-2,
                sum(2.0 * s ** 3 for s in sizes), "TFLOP/s",
                lambda meta: (meta["NUM_PROGRAMS"],), torch_fn)


FAMILIES = ["vector_add", "softmax", "layer_norm", "stencil", "matmul", "matmul_fp8",
            "matmul_tma", "attention", "attention_bwd", "grouped_gemm"]

# Tile IR's own tuning knob (NVIDIA: "occupancy (critical)"; num_warps counts only as worker
# warps, where the conversion gives them): each Tile case also runs with these occupancy hints,
# and the table shows the default and the best.
TILE_OCCUPANCY = {"vector add fp32": [], "stencil fp32": [4, 16], "softmax fp16": [4, 16],
                  "softmax bf16": [4, 16], "layer norm fp16": [4, 16], "matmul fp16": [2],
                  "matmul bf16": [2],
                  "matmul TMA fp16": [1], "matmul desc fp16": [1], "matmul persistent fp16": [2],
                  "attention fwd fp16": [2], "attention bwd fp16": [1, 2],
                  "attention bwd atomic fp16": [1, 2],
                  "attention bwd atomic persistent fp16": [1],
                  "grouped gemm fp16": [1], "grouped gemm desc fp16": [1]}


# And with views off (TRITON_TILE_RAISE_VIEWS=0): every access a pointer gather/scatter, as
# NVIDIA's backend emits them; the gap is what raising to views buys.
POINTER_VARIANT = {"env": {"TRITON_TILE_RAISE_VIEWS": "0"}}
# And views made per access (TRITON_TILE_INDEX_VIEWS=0: a new view at each box's corner, behind
# a branch, the form before index-views): what indexing one view per tensor buys.
PER_ACCESS = {"env": {"TRITON_TILE_INDEX_VIEWS": "0"}}
# Knobs measured for the record, each a column of the table: views without TMA
# (allow_tma=false), and the launch's num_warps as Tile IR's num_worker_warps_per_cta.
NO_TMA = {"env": {"TRITON_TILE_ALLOW_TMA": "0"}}
WORKER_WARPS = {"env": {"TRITON_TILE_WORKER_WARPS": "on"}}
# And without the branches that keep views exact (TRITON_TILE_VIEW_GUARDS=0: unsafe, these
# inputs never need them): what the loop versioning and in-place checks cost.
UNGUARDED = {"env": {"TRITON_TILE_VIEW_GUARDS": "0"}}
UNVERSIONED = {"env": {"TRITON_TILE_VERSION_LOOPS": "0"}}  # only the loops' conditions assumed
# And loops versioned inside the kernel (TRITON_TILE_LAUNCH_GUARDS=0): both versions in one
# kernel, where by default the host decides the conditions and the kernel has one.
IN_KERNEL = {"env": {"TRITON_TILE_LAUNCH_GUARDS": "0"}}
# And one-dimensional tiles in loops raised to views too (by default they stay gathers).
ALL_VIEWS = {"env": {"TRITON_TILE_RAISE_VIEWS": "all"}}
COLUMNS = {"per-access views": PER_ACCESS, "all views": ALL_VIEWS, "no TMA": NO_TMA,
           "worker warps": WORKER_WARPS, "unguarded": UNGUARDED, "unversioned": UNVERSIONED,
           "in-kernel versions": IN_KERNEL, "pointers": POINTER_VARIANT}


# Best against best: the block sizes and launch knobs a user tunes. Each side runs every one (a
# Tile run reads num_warps only as worker warps; occupancy and the latency hint are its own,
# above); stock Triton also runs its own knobs in STOCK_ONLY. The matmul list is the Triton
# tutorial's autotune list for fp16 on CUDA (its first five, plus the table's default and a
# small tile for small sizes).
_MM = [dict(BLOCK_M=m, BLOCK_N=n, BLOCK_K=k, num_warps=w, num_stages=st)
       for m, n, k, w, st in ((128, 256, 64, 8, 3), (64, 256, 32, 4, 4), (128, 128, 32, 4, 4),
                              (128, 64, 32, 4, 4), (64, 128, 32, 4, 4), (64, 64, 32, 4, 4))]
# fp8: the tutorial's fp8 list (its first five) and the table's default.
_MM_FP8 = [dict(BLOCK_M=m, BLOCK_N=n, BLOCK_K=k, num_warps=w, num_stages=st)
           for m, n, k, w, st in ((128, 256, 128, 8, 3), (256, 128, 128, 8, 3),
                                  (256, 64, 128, 4, 3), (64, 256, 128, 4, 3),
                                  (128, 128, 128, 4, 3), (128, 128, 64, 8, 3))]
# The descriptor matmuls: Triton's tutorial 09 (persistent TMA matmul) autotunes BLOCK_M 128,
# BLOCK_N 128 or 256, BLOCK_K 64 or 128, 3 or 4 stages, 4 or 8 warps; these are that space's
# tiles (a config beyond shared memory is reported and left out), 256x128, and the table's
# default. The host descriptors' block shapes follow each config (Case.reargs).
_MM_DESC = [dict(BLOCK_M=m, BLOCK_N=n, BLOCK_K=k, num_warps=w, num_stages=st)
            for m, n, k, w, st in ((128, 256, 64, 8, 3), (128, 256, 64, 8, 4),
                                   (256, 128, 64, 8, 3), (128, 128, 128, 8, 3),
                                   (128, 128, 64, 4, 4), (128, 128, 64, 8, 3))]
TUNE = {"matmul desc fp16": _MM_DESC, "matmul TMA fp16": _MM_DESC,
        "vector add fp32": [{"BLOCK_SIZE": 2048}, {"BLOCK_SIZE": 4096, "num_warps": 8}],
        "stencil fp32": [dict(BLOCK_M=m, BLOCK_N=n, num_warps=w)
                         for m, n, w in ((16, 128, 4), (32, 256, 8), (64, 128, 8),
                                         (8, 512, 4), (16, 256, 4))],
        "matmul fp16": _MM, "matmul bf16": _MM, "matmul persistent fp16": _MM,
        "matmul fp8 e4m3": _MM_FP8,
        "matmul fp8 e4m3 B K-major": _MM_FP8,
        "attention fwd fp16": [dict(BLOCK_M=128, BLOCK_N=128, num_warps=8, num_stages=3),
                               dict(BLOCK_M=64, BLOCK_N=64, num_warps=4, num_stages=4),
                               dict(BLOCK_M=128, BLOCK_N=64, num_warps=4, num_stages=3),
                               dict(BLOCK_M=128, BLOCK_N=128, num_warps=8, num_stages=2),
                               dict(BLOCK_M=128, BLOCK_N=128, num_warps=8, num_stages=4),
                               dict(BLOCK_M=128, BLOCK_N=64, num_warps=8, num_stages=3)],
        # the tutorial's blocks and knobs (32/128/128/32, 4 warps, 5 stages), them at other
        # knobs, larger and smaller blocks (BLOCK_N1 == BLOCK_M2 always: one program index)
        "attention bwd fp16": [dict(BLOCK_M1=m1, BLOCK_N1=n1, BLOCK_M2=n1, BLOCK_N2=n2,
                                    num_warps=w, num_stages=st)
                               for m1, n1, n2, w, st in ((32, 128, 32, 4, 5),
                                                         (32, 128, 32, 8, 3),
                                                         (64, 128, 64, 8, 3),
                                                         (64, 128, 64, 8, 2),
                                                         (32, 64, 32, 4, 4),
                                                         (16, 64, 16, 4, 4))],
        # the same key blocks without the dQ pass (dQ by atomics)
        "attention bwd atomic fp16": [dict(BLOCK_M1=m1, BLOCK_N1=n1, num_warps=w, num_stages=st)
                                      for m1, n1, w, st in ((32, 128, 4, 5), (32, 128, 8, 3),
                                                            (64, 128, 8, 3), (64, 128, 8, 2),
                                                            (64, 64, 4, 3), (32, 64, 4, 4))],
        # one or two programs per SM
        "attention bwd atomic persistent fp16": [
            dict(BLOCK_M1=m1, BLOCK_N1=128, NUM_PROGRAMS=p, num_warps=8, num_stages=st)
            for m1, p, st in ((64, 132, 3), (64, 264, 3), (64, 132, 2), (32, 132, 3))],
        # the grouped-GEMM tutorial's tiles, one or two programs per SM, and 128x128x64 at
        # one per SM and 4 stages (the descriptor kernel's best on the Tile path, H200,
        # 2026-11-29: 510.6 TFLOP/s against 425.1 at two per SM and 3 stages); 128x256x64 at 4
        # stages too: stock Triton's pointer kernel ran 609.3 so (its descriptor kernel needs
        # 262 KiB of shared memory there and fails)
        "grouped gemm fp16": [dict(BLOCK_M=m, BLOCK_N=n, BLOCK_K=k, NUM_PROGRAMS=p,
                                   num_warps=w, num_stages=st)
                              for m, n, k, p, w, st in ((128, 128, 32, 132, 4, 3),
                                                        (128, 256, 64, 132, 8, 3),
                                                        (128, 256, 64, 132, 8, 4),
                                                        (64, 128, 32, 264, 4, 4),
                                                        (128, 128, 64, 264, 8, 3),
                                                        (128, 128, 64, 132, 8, 4),
                                                        (64, 64, 32, 264, 4, 4))]}
TUNE["grouped gemm desc fp16"] = TUNE["grouped gemm fp16"]
# Small GEMMs (512^3, 1024^3) also try BLOCK_K 64 and 128 at the small tiles, on both sides:
# a half or a quarter of the K steps for the latency-bound sizes, where the 128x128 default
# leaves most SMs idle.
TUNE_SMALL = {"matmul fp16": [dict(BLOCK_M=m, BLOCK_N=n, BLOCK_K=k, num_warps=4, num_stages=st)
                              for m, n, k, st in ((128, 64, 64, 4), (64, 128, 64, 4),
                                                  (64, 64, 64, 3), (128, 64, 128, 3),
                                                  (64, 128, 128, 3), (64, 64, 128, 3))]}
SMALL_LABELS = ("512^3", "1024^3")
# And on the Tile side at one CTA per SM: tileiras sizes its pipeline to the occupancy hint. At
# 1024^3 and 64x128x128 the default hint left 128 registers and 104 KiB of shared memory
# (9.34 us under ncu), occupancy 1 255 registers and 192 KiB (8.29 us; stock Triton 8.03,
# cuBLAS 8.10; H100, 2026-11-26).
TILE_ONLY_SMALL = {name: [dict(c, occupancy=1) for c in configs]
                   for name, configs in TUNE_SMALL.items()}


def _configs(case: "Case", table: dict, small_table: dict) -> List[dict]:
    """`table`'s configs for the case, with `small_table`'s at the small sizes."""
    small = small_table.get(case.name, []) if case.label in SMALL_LABELS else []
    return table.get(case.name, []) + small


def tune(case: "Case") -> List[dict]:
    """TUNE's configs for the case, with TUNE_SMALL's at the small sizes."""
    return _configs(case, TUNE, TUNE_SMALL)


def tile_only(case: "Case") -> List[dict]:
    """The Tile path's own configs for the case: TILE_ONLY's, and TILE_ONLY_SMALL's at the
    small sizes."""
    return _configs(case, TILE_ONLY, TILE_ONLY_SMALL)


# The Tile path's own knobs over TUNE's block sizes: a 128x256 fp32 accumulator ran at 44
# TFLOP/s (H100, fp16 4096^3) with tileiras's own warp count, where stock Triton's winner is
# that tile, and one CTA per SM did not lift it (44.8); 8 worker warps did (550-635, 2026-11-26),
# and the conversion now gives them to such a dot at num_warps 8 (Converter::wantsWorkerWarps).
# Occupancy 1 and 4 stages won there.
_MM_TILE = [dict(BLOCK_M=m, BLOCK_N=n, BLOCK_K=64, num_warps=8, num_stages=st, occupancy=1)
            for m, n, st in ((128, 256, 3), (128, 256, 4), (256, 128, 3))]
# Attention backward's 128-key blocks (two 128-row fp32 accumulators, dK and dV) run at
# 80-138 TFLOP/s on the Tile path where stock Triton runs them at 337-371 (H200). ncu at
# 64/128/128/64: 384 threads at 168 registers and 1.17e9 local spill requests (34.3 ms; stock:
# 256 threads, 255 registers, 7.0 ms). One CTA per SM does not help (80 and 95 TFLOP/s); the
# launch's 8 warps as worker warps (TRITON_TILE_WORKER_WARPS) leave no spills (7.17 ms, 367
# TFLOP/s), and since the conversion gives them to a loop of several dots by default, the
# plain configs above run so too (362; these entries stay as the knobs' record).
_ATTN_BWD_TILE = [dict(BLOCK_M1=m1, BLOCK_N1=128, BLOCK_M2=128, BLOCK_N2=n2, num_warps=8,
                       num_stages=3, **knob) for m1, n2 in ((64, 64), (32, 32))
                  for knob in ({"occupancy": 1}, WORKER_WARPS)]
_ATTN_BWD_ATOMIC_TILE = [dict(BLOCK_M1=m1, BLOCK_N1=128, num_warps=8, num_stages=3, **knob)
                         for m1 in (64, 32) for knob in ({"occupancy": 1}, WORKER_WARPS)]
# The norms at 4 worker warps (a reduction kernel takes num_warps as its worker warps): the
# default 8 leave 48 registers a thread (docs/gpu_perf_notes.md); 4 at higher occupancy hints.
_NORM_TILE = [dict(num_warps=4)] + [dict(num_warps=4, occupancy=o) for o in (8, 16)]
# fp8 at the fp16 winner's knobs (4 stages, one CTA per SM) over the tutorial's large tiles.
_MM_FP8_TILE = [dict(BLOCK_M=m, BLOCK_N=n, BLOCK_K=128, num_warps=8, num_stages=4, occupancy=1)
                for m, n in ((128, 256), (256, 128), (128, 128))]
# The descriptor matmuls at stock Triton's own knobs (STOCK_ONLY) and one CTA per SM.
_DESC_TILE = [dict(num_warps=w, num_stages=4, **occ) for w in (4, 8)
              for occ in ({}, {"occupancy": 1})]
# The stencil's own shapes: stock's winner at higher occupancy hints, and the flatter tiles that
# won on the Tile side (H100, 2026-11-27: 8x128 2615.3, 8x256 2595.5 GB/s at occupancy 8; 16x64
# and 32x64 ran 2515-2555).
_STENCIL_TILE = [dict(BLOCK_M=m, BLOCK_N=n, num_warps=4, occupancy=o)
                 for m, n, o in ((16, 128, 16), (16, 128, 32), (8, 128, 8), (8, 256, 8))]
# And their large tiles deeper: with tileiras 13.5 the persistent kernel's 128x256 ran at 4 and 5
# stages (704.6 and 712.7 TFLOP/s at 4096^3, H100, 2026-11-27) where 13.4 spills its
# accumulator there (198; benchmarks/desc_probe.py), and 256x128 at 4 (605-650).
_DESC_LARGE_TILE = _MM_TILE + [dict(BLOCK_M=m, BLOCK_N=n, BLOCK_K=64, num_warps=8, num_stages=st,
                                    occupancy=1) for m, n, st in ((128, 256, 5), (256, 128, 4))]
TILE_ONLY = {"stencil fp32": _STENCIL_TILE, "matmul TMA fp16": _DESC_TILE + _DESC_LARGE_TILE,
             "matmul desc fp16": _DESC_TILE + _DESC_LARGE_TILE,
             "matmul fp16": _MM_TILE, "matmul bf16": _MM_TILE,
             "matmul fp8 e4m3": _MM_FP8_TILE, "matmul fp8 e4m3 B K-major": _MM_FP8_TILE,
             "attention bwd fp16": _ATTN_BWD_TILE,
             "attention bwd atomic fp16": _ATTN_BWD_ATOMIC_TILE, "softmax fp16": _NORM_TILE,
             "attention bwd atomic persistent fp16": [
                 dict(m, NUM_PROGRAMS=132, occupancy=1) for m in _ATTN_BWD_ATOMIC_TILE[:1]],
             "softmax bf16": _NORM_TILE, "layer norm fp16": _NORM_TILE,
             # 128x256x64 at 4 stages, one CTA per SM: the descriptor kernel's best once its K
             # loop has one version (627.7 TFLOP/s against 561.7 at 128x128x64, H200,
             # 2026-11-29); stock Triton needs 262 KiB of shared memory for it and cannot run it
             "grouped gemm desc fp16": [dict(BLOCK_M=128, BLOCK_N=256, BLOCK_K=64,
                                             NUM_PROGRAMS=132, num_warps=8, num_stages=4,
                                             occupancy=1)]}
# the pointer kernel's too, once its per-tile views fold the tile's row into their base (614.0
# TFLOP/s against 547.8 at 128x128x64 and 4 stages, H200, 2026-11-29)
TILE_ONLY["grouped gemm fp16"] = TILE_ONLY["grouped gemm desc fp16"]
# Tutorial 09's persistent pointer matmul: its loop as a grid of tiles (the default) and as
# written, which ran faster at 4 stages (676.6 against 632.1 TFLOP/s at 128x256x64, H200,
# 2026-11-29: benchmarks/persistent_probe.py)
TILE_ONLY["matmul persistent fp16"] = _MM_TILE + [dict(c, grid_stride=False)
                                                  for c in _MM_TILE[:2]]
_NORM = [dict(num_warps=w, num_stages=st) for w in (4, 8, 16) for st in (1, 2, 3)]
STOCK_ONLY = {"softmax fp16": _NORM, "softmax bf16": _NORM, "layer norm fp16": _NORM,
              "matmul TMA fp16": [dict(num_warps=4, num_stages=4), dict(num_stages=4)],
              "matmul desc fp16": [dict(num_warps=4, num_stages=4), dict(num_stages=4)]}

# The hardware limits: memory-bound rows against the device's copy bandwidth (measured in the
# run: torch's copy of 1 GiB), compute-bound rows against the card's dense fp16/bf16 tensor
# peak (NVIDIA's data sheets; unknown cards print "-").
DENSE_PEAK_TFLOPS = {"H100 80GB HBM3": 989.4, "H100 SXM": 989.4, "H200": 989.4,
                     "H100 NVL": 835.0, "H100 PCIe": 756.0, "GH200": 989.4}


def dense_peak(device_name: str) -> Optional[float]:
    return next((v for k, v in DENSE_PEAK_TFLOPS.items() if k in device_name), None)


def copy_bandwidth(nbytes: int = 1 << 31) -> float:
    """GB/s of torch's device-to-device copy moving `nbytes` (read + write; 1 GiB each way by
    default), the memory-bound limit a kernel can reach. A kernel that moves 64 MB cannot
    reach the 1 GiB copy's rate either (the launch and the last wave are a larger share), so
    GB/s rows are also put against a copy of their own bytes."""
    import torch
    from triton.testing import do_bench

    x = torch.randn(max(1, nbytes // 8), device="cuda")
    y = torch.empty_like(x)
    ms = do_bench(lambda: y.copy_(x), warmup=25, rep=200, return_mode="median")
    return 2.0 * x.numel() * 4 / (ms * 1e-3) / 1e9


def tile_variants(case: Case, lean: bool = False) -> List[dict]:
    """The default first (its first launch is the cold compile), then what a user tunes, then
    (unless lean) the comparison-only knobs of COLUMNS."""
    occ = [{"occupancy": o} for o in TILE_OCCUPANCY.get(case.name, [])]
    return [{}] + occ + ([] if lean else list(COLUMNS.values()))


def _config_name(extra: dict) -> str:
    for name, v in COLUMNS.items():
        if extra.get("env") == v["env"]:
            return name
    return ",".join(f"{k}={v}" for k, v in extra.items() if k != "env") or "default"


class _Env:
    """Sets a variant's environment knobs for the duration of a block; `active` holds the knobs
    set by the blocks open now (a run keeps them, to be timed again under them: faceoff)."""

    active: dict = {}

    def __init__(self, env: dict):
        self.env, self.saved, self.outer = env, {}, {}

    def __enter__(self):
        self.outer = dict(_Env.active)
        for k, v in self.env.items():
            self.saved[k] = os.environ.get(k)
            os.environ[k] = v
        _Env.active.update(self.env)  # (last: a value os.environ refuses leaves it as it was)

    def __exit__(self, *exc):
        _Env.active.clear()
        _Env.active.update(self.outer)
        for k, v in self.saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def cases(t: Tensors, quick: bool, only) -> List[Callable[[], Case]]:
    """The issue's table (quick: smaller sizes). Cases are built lazily: one set of inputs
    lives on the GPU at a time."""
    q = quick
    table = {
        "vector_add": [lambda: vector_add(t, 1 << 24),
                       lambda: vector_add(t, 1 << (20 if q else 28))],
        "softmax": [lambda: softmax(t, 1024 if q else 4096, 4096, "float16"),
                    lambda: softmax(t, 1024 if q else 8192, 8192, "bfloat16")],
        "layer_norm": [lambda: layer_norm(t, 1024 if q else 4096, 4096)],
        "stencil": [lambda: stencil(t, 1024 if q else 8192, 8192)],
        "matmul": [*([] if q else [lambda: matmul(t, 512, "float16"),  # small GEMMs
                                   lambda: matmul(t, 1024, "float16")]),
                   lambda: matmul(t, 1024 if q else 4096, "float16"),
                   lambda: matmul_persistent(t, 1024 if q else 4096, "float16"),
                   lambda: matmul(t, 2048 if q else 8192, "float16"),
                   lambda: matmul(t, 1024 if q else 4096, "bfloat16"),
                   lambda: matmul(t, 2048 if q else 8192, "bfloat16")],
        "matmul_fp8": [lambda: matmul(t, 1024 if q else 4096, "float8_e4m3fn"),
                       lambda: matmul(t, 1024 if q else 4096, "float8_e4m3fn", True),
                       lambda: matmul(t, 2048 if q else 8192, "float8_e4m3fn", True)],
        "matmul_tma": [lambda: matmul_desc(t, 1024 if q else 4096, "float16"),
                       lambda: matmul_tma(t, 1024 if q else 4096, "float16"),
                       lambda: matmul_tma(t, 2048 if q else 8192, "float16")],
        "attention": [lambda: attention(t, 1 if q else 4, 4 if q else 32, 1024 if q else 4096,
                                        128)],
        "attention_bwd": [lambda: attention_bwd(t, 1 if q else 4, 4 if q else 32,
                                                1024 if q else 4096, 128),
                          lambda: attention_bwd(t, 1 if q else 4, 4 if q else 32,
                                                1024 if q else 4096, 128, atomic=True),
                          lambda: attention_bwd(t, 1 if q else 4, 4 if q else 32,
                                                1024 if q else 4096, 128, atomic=True,
                                                persistent=True)],
        "grouped_gemm": [lambda: grouped_gemm(t, (256, 512, 768, 1024) if q else
                                              (1024, 2048, 3072, 4096)),
                         lambda: grouped_gemm(t, (256, 512, 768, 1024) if q else
                                              (1024, 2048, 3072, 4096), desc=True)],
    }
    return [c for fam in (only or FAMILIES) for c in table[fam]]


def _poison(case: Case) -> None:
    for o in case.outputs:
        o.fill_(float("nan"))


def _measure(case: Case, launch) -> dict:
    import time

    import torch
    from triton.testing import do_bench

    _poison(case)
    torch.cuda.synchronize()
    start = time.perf_counter()
    kernel = launch()  # the first launch of this config in this process: compile + load + run
    torch.cuda.synchronize()
    first = time.perf_counter() - start
    err = case.check()
    ms = do_bench(launch, warmup=25, rep=100, return_mode="median")
    return {"ms": ms, "err": err, "ok": err <= case.tol or (case.tol == 0 and err == 0),
            "value": _rate(case, ms), "kernel": kernel, "first_s": first, "launch": launch,
            "env": dict(_Env.active)}


def _rate(case: Case, ms: float) -> float:
    return case.work / (ms * 1e-3) / (1e9 if case.unit == "GB/s" else 1e12)


def _grid(case: Case, meta: dict) -> tuple:
    return case.regrid(meta) if case.regrid else case.grid


def _tuned(case: Case, configs, launch, side: str) -> List[dict]:
    """`launch(meta, grid)` over TUNE-style configs; a config that fails is reported on stderr
    and left out (a tile too large for shared memory, say), never the whole case."""
    runs = []
    for extra in configs:
        meta = dict(case.meta, **{k: v for k, v in extra.items() if k != "env"})
        try:
            with _Env(extra.get("env", {})):  # a Tile knob that is an environment variable
                r = _measure(case, lambda m=meta: launch(m, _grid(case, m)))
        except Exception as e:
            print(f"  {side} {case.name} {case.label} {extra}: {type(e).__name__}: "
                  f"{str(e).splitlines()[0][:120] if str(e) else ''}", file=sys.stderr, flush=True)
            continue
        r["config"] = ",".join([f"{k}={v}" for k, v in extra.items() if k != "env"] + (
            [_config_name({"env": extra["env"]})] if "env" in extra else []))
        print(f"  {side} {case.name} {case.label} {r['config']}: {r['value']:.1f} {case.unit}"
              f"{'' if r['ok'] else ' WRONG'}", file=sys.stderr, flush=True)
        runs.append(r)
    return runs


def _fastest(runs: List[dict]) -> Optional[dict]:
    return min((r for r in runs if r and r["ok"]), key=lambda r: r["ms"], default=None)


def launcher(case: Case, stock: bool) -> Callable[[tuple, dict], object]:
    """`launch(grid, meta)`: one launch of the case on one side, the Tile path (enable_tile)
    or stock Triton (the twins, with its arguments: host descriptors are Triton's): the case's
    `before` launches at their own grid and meta, then its kernel at `grid` and `meta`.
    Returns the kernel's compiled handle."""
    from triton_tile.backends import ptx_gpu

    steps = [(b.kernel, b.grid, b.args, b.meta) for b in case.before]
    steps.append((case.kernel, None, None, None))  # its arguments: main_args(meta)
    steps += [(b.kernel, b.grid, b.args, b.meta) for b in case.after]
    if stock:
        steps = [(ptx_gpu.twin_of(k), g, args and [ptx_gpu.arg_to_stock(a) for a in args], m)
                 for k, g, args, m in steps]
    tile = {} if stock else {"enable_tile": True}
    main = len(case.before)
    converted = {}  # stock's arguments, by the identity of ours

    def main_args(meta):
        args = case_args(case, meta)
        if not stock:
            return args
        if id(args) not in converted:
            converted[id(args)] = (args, [ptx_gpu.arg_to_stock(a) for a in args])
        return converted[id(args)][1]

    def launch(grid, meta):
        for k, g, args, m in steps[:main]:
            k[g](*args, **tile, **m)
        k = steps[main][0]
        compiled = k[grid](*main_args(meta), **tile, **meta)
        for k, g, args, m in steps[main + 1:]:
            k[g](*args, **tile, **m)
        return compiled

    return launch


def run_case(case: Case, lean: bool = False, versus: bool = False) -> dict:
    """The Tile path over its variants and stock Triton at the case's config; with `versus`,
    both sides also over TUNE (stock over STOCK_ONLY too) and torch's own kernel."""
    tile_launch = launcher(case, stock=False)
    tiles = []
    for extra in tile_variants(case, lean):
        meta_tile = dict(case.meta, **{k: v for k, v in extra.items() if k != "env"})
        with _Env(extra.get("env", {})):
            r = _measure(case, lambda m=meta_tile: tile_launch(case.grid, m))
        r["config"] = _config_name(extra)
        print(f"  variant {case.name} {case.label} {r['config']}: {r['value']:.1f} {case.unit}"
              f"{'' if r['ok'] else ' WRONG'}", file=sys.stderr, flush=True)
        tiles.append(r)
    tile = tiles[0]
    # best: over what a user sets (occupancy, worker warps), not the comparison-only knobs
    views = [t for t in tiles if t["config"] not in
             ("pointers", "per-access views", "all views", "no TMA", "unguarded", "unversioned",
              "in-kernel versions")]
    best = min((t for t in views if t["ok"]), key=lambda t: t["ms"], default=tile)
    columns = {name: next((t for t in tiles if t["config"] == name), None) for name in COLUMNS}
    stock_launch = launcher(case, stock=True)
    try:
        stock = _measure(case, lambda: stock_launch(case.grid, case.meta))
    except Exception as e:  # keep the Tile numbers; say why Triton's are missing
        print(f"  {case.name} {case.label}: stock Triton: {type(e).__name__}: {e}",
              file=sys.stderr, flush=True)
        stock = None
    out = {"tile": tile, "best": best, "columns": columns, "stock": stock,
           "path": tile["kernel"].metadata.path}
    if versus:
        configs = tune(case)
        tile_tuned = _tuned(case, configs + tile_only(case),
                            lambda m, g: tile_launch(g, m), "tile")
        stock_tuned = _tuned(case, configs + STOCK_ONLY.get(case.name, []),
                             lambda m, g: stock_launch(g, m), "stock")
        if stock is not None:
            stock["config"] = "default"
        out["tile_best"] = _fastest([best, *tile_tuned])
        out["stock_best"] = _fastest([stock, *stock_tuned])
        out["torch"] = _measure_torch(case)
        try:
            face = faceoff(case, {"ours": out["tile_best"], "stock": out["stock_best"],
                                  "torch": out["torch"]})
        except Exception as e:  # the row keeps the tuning's times
            print(f"  face-off {case.name} {case.label}: {type(e).__name__}: {e}",
                  file=sys.stderr, flush=True)
            face = None
        out["faceoff"] = face
        if face:
            print(f"  face-off {case.name} {case.label}: " + "; ".join(
                f"{name} {' '.join(f'{ms:.4f}' for ms in times)} ms"
                for name, times in face["rounds"].items()) + f"; ratio {face['ratio']:.3f}",
                file=sys.stderr, flush=True)
    return out


def _measure_torch(case: Case) -> Optional[dict]:
    if case.torch_fn is None:
        return None
    from triton.testing import do_bench

    try:
        ms = do_bench(case.torch_fn, warmup=25, rep=100, return_mode="median")
    except Exception as e:
        print(f"  torch {case.name} {case.label}: {type(e).__name__}: {e}", file=sys.stderr,
              flush=True)
        return None
    return {"ms": ms, "value": _rate(case, ms), "launch": case.torch_fn, "env": {}}


# The face-off: each side's winner timed again, back to back, in rounds of alternating order.
# The tuning measures the sides minutes apart, and an H100's clocks drift by several percent
# over such a run (the 8192^3 fp16 matmul at the same config: 604.9 TFLOP/s in one table, 715.3
# in a probe the next day); a ratio of two numbers taken minutes apart carries that drift.
FACEOFF_ROUNDS = 5


def faceoff(case: Case, runs: dict, bench=None) -> Optional[dict]:
    """`runs`: side name -> a run (with its launch and environment) or None; "ours" among them.
    Returns each side's median time over the rounds and the median over the rounds of the
    fastest other side's time over ours, or None without ours and one other. `bench(fn)` times
    one side in ms (do_bench's median)."""
    import statistics

    if bench is None:
        from triton.testing import do_bench

        def bench(fn):
            return do_bench(fn, warmup=10, rep=50, return_mode="median")

    sides = {name: run for name, run in runs.items() if run is not None}
    if "ours" not in sides or len(sides) < 2:
        return None
    times = {name: [] for name in sides}
    for i in range(FACEOFF_ROUNDS):
        for name in (list(sides) if i % 2 == 0 else list(sides)[::-1]):
            with _Env(sides[name]["env"]):
                times[name].append(bench(sides[name]["launch"]))
    ratios = [min(t[i] for name, t in times.items() if name != "ours") / times["ours"][i]
              for i in range(FACEOFF_ROUNDS)]
    return {"ms": {name: statistics.median(t) for name, t in times.items()},
            "ratio": statistics.median(ratios), "rounds": times}


def _value(run: Optional[dict]) -> str:
    if run is None:
        return "-"
    return f"{run['value']:.1f}" + ("" if run["ok"] else " WRONG")


_REPORTED = set()


def _stages(kernel) -> str:
    """Where the Tile path's cold compile went, e.g. `fe .05 ir .01 bc .02 ras 1.4 ld .01`;
    `reused` for a kernel an earlier case of the process compiled."""
    if id(kernel) in _REPORTED:
        return "reused"
    _REPORTED.add(id(kernel))
    times = getattr(kernel.metadata, "compile_times", None) or {}
    short = {"frontend": "fe", "tileir": "ir", "tilebc": "bc", "cubin": "ras", "load": "ld",
             "cache": "cache"}
    return " ".join(f"{short.get(k, k)} {v:.2f}" for k, v in times.items()) or "-"


def main(args) -> int:
    t = Tensors(aot=args.aot)
    if args.aot:
        from triton_tile import knobs

        if not knobs.target:
            print("--aot needs TRITON_TILE_TARGET (e.g. sm_90)", file=sys.stderr)
            return 2
        for make in cases(t, args.quick, args.only):
            c = make()
            for extra in tile_variants(c):
                meta = dict(c.meta, **{k: v for k, v in extra.items() if k != "env"})
                with _Env(extra.get("env", {})):
                    for b in c.before + c.after:
                        b.kernel.warmup(*b.args, grid=b.grid, enable_tile=True, **b.meta)
                    k = c.kernel.warmup(*case_args(c, meta), grid=_grid(c, meta),
                                        enable_tile=True, **meta)
                print(f"  {c.name:20s} {c.label:22s} {str(extra):18s} -> {k.metadata.path} "
                      f"{k.metadata.target} {len(k.asm.get('cubin', b''))} bytes of cubin",
                      flush=True)
        return 0
    import torch
    import triton

    props = torch.cuda.get_device_properties(0)
    print(f"triton_tile GPU benchmarks on {props.name} (sm_{props.major}{props.minor}), "
          f"stock Triton {triton.__version__}, torch {torch.__version__}", flush=True)
    columns = [] if args.lean else list(COLUMNS)
    header = ["kernel", "size", "path", "ok", "tile ms", "tile", "triton ms", "triton",
              "ratio", "best tile (config)", "best ratio", "cold tile s", "cold triton s",
              "tile compile stages (s)", *columns, "err tile/triton"]
    versus = getattr(args, "versus", False)
    if versus:
        copy_gbs, peak = copy_bandwidth(), dense_peak(props.name)
    rows, vs_rows, failures = [], [], []
    for make in cases(t, args.quick, args.only):
        c = make()
        try:
            r = run_case(c, args.lean, versus)
        except Exception as e:  # one broken case must not hide the others' numbers
            rows.append([c.name, c.label, "ERROR", "NO"] + ["-"] * (len(header) - 5) +
                        [f"{type(e).__name__}: {str(e).splitlines()[0][:80]}"])
            failures.append(c.name)
            print(f"  {c.name} {c.label}: {type(e).__name__}: {e}", file=sys.stderr, flush=True)
            continue
        tile, stock = r["tile"], r["stock"] or {"ms": float("nan"), "value": float("nan"),
                                                 "err": float("nan"), "ok": False}
        ok = tile["ok"] and stock["ok"]
        rows.append([c.name, c.label, r["path"], "yes" if ok else "NO", f"{tile['ms']:.3f}",
                     f"{tile['value']:.1f} {c.unit}", f"{stock['ms']:.3f}",
                     f"{stock['value']:.1f} {c.unit}", f"{stock['ms'] / tile['ms']:.2f}x",
                     f"{r['best']['value']:.1f} ({r['best']['config']})",
                     f"{stock['ms'] / r['best']['ms']:.2f}x", f"{tile['first_s']:.2f}",
                     f"{stock.get('first_s', float('nan')):.2f}", _stages(tile["kernel"]),
                     *(_value(r["columns"][name]) for name in columns),
                     f"{tile['err']:.1e}/{stock['err']:.1e}"])
        if not ok:
            failures.append(c.name)
        if versus:
            # (fp8 runs at twice the fp16 dense rate on Hopper's tensor cores)
            limit = copy_gbs if c.unit == "GB/s" else peak and peak * (2 if "fp8" in c.name
                                                                         else 1)
            same_size = copy_bandwidth(int(c.work)) if c.unit == "GB/s" else None
            vs_rows.append(_versus_row(c, r, limit, same_size))
        print(f"  measured {c.name} {c.label}", file=sys.stderr, flush=True)
        del c, r
        torch.cuda.empty_cache()
    _print_table(header, rows)
    print("ratio = stock Triton ms / Tile ms (same kernel source, grid and meta; "
          "do_bench medians); cold = the case's first launch in this process, compile + load + "
          "run, with empty disk caches (a kernel the process compiled for an earlier case is "
          "reused by both sides); tile compile stages: fe = frontend to TTIR, ir = Tile IR, bc "
          "= bytecode, ras = tileiras (with its probe, about 0.2 s, on a process's first "
          "compile), ld = module load; path = what the Tile run took (ptx: it fell back); "
          "best = the fastest correct Tile run over the occupancy hints in TILE_OCCUPANCY and "
          "worker warps; "
          "per-access views = TRITON_TILE_INDEX_VIEWS=0 (a view per access, the form before "
          "index-views); all views = TRITON_TILE_RAISE_VIEWS=all (1-D tiles in loops too); "
          "no TMA = TRITON_TILE_ALLOW_TMA=0; worker warps = "
          "TRITON_TILE_WORKER_WARPS=on (num_warps as num_worker_warps_per_cta); unguarded = "
          "TRITON_TILE_VIEW_GUARDS=0 (unsafe); unversioned = TRITON_TILE_VERSION_LOOPS=0 "
          "(unsafe); in-kernel versions = TRITON_TILE_LAUNCH_GUARDS=0 (both versions of a "
          "guarded loop in the kernel); pointers = "
          "TRITON_TILE_RAISE_VIEWS=0 (pointer gathers, as NVIDIA's backend); columns in "
          "GB/s or TFLOP/s")
    if versus:
        _print_table(VERSUS_HEADER, vs_rows)
        print(f"best against best, in this run: each side's fastest correct config over TUNE "
              f"(the Tile path also over its occupancy hints and TILE_ONLY, stock "
              f"Triton also over STOCK_ONLY); torch = what a torch user runs (cuBLAS matmul, "
              f"scaled_dot_product_attention, torch.softmax, layer_norm, torch.add); "
              f"times = the face-off's: the three winners timed again back to back, "
              f"{FACEOFF_ROUNDS} rounds in alternating order, each side's median; ours/best = "
              f"the median over the rounds of the fastest other side's time over ours (above "
              f"1: ours is faster); limit = "
              f"device copy {copy_gbs:.0f} GB/s (torch, 1 GiB) for GB/s rows, dense fp16/bf16 "
              f"peak {peak if peak else '-'} TFLOP/s for TFLOP/s rows (fp8 rows: twice that); "
              f"same-size copy = torch's copy moving the row's bytes (GB/s rows)")
    if failures:
        print("wrong or failed: " + ", ".join(failures))
    return 1 if (args.check and failures) else 0


VERSUS_HEADER = ["kernel", "size", "ours: best (config)", "ms", "stock Triton: best (config)",
                 "ms", "torch", "ms", "ours/best", "% of limit", "% of same-size copy"]


def _versus_row(c: Case, r: dict, limit: Optional[float],
                same_size: Optional[float] = None) -> List[str]:
    """The row from the face-off's medians where it ran (the tuning's times otherwise)."""
    face = r.get("faceoff")

    def ms_of(name, run):
        return face["ms"][name] if face and name in face["ms"] else run["ms"]

    def cell(name, run, config=True):
        if run is None:
            return "-", "-"
        ms = ms_of(name, run)
        label = f" ({run.get('config', '')})" if config else ""
        return f"{_rate(c, ms):.1f} {c.unit}{label}", f"{ms:.3f}"

    mine, theirs, torch_run = r.get("tile_best"), r.get("stock_best"), r.get("torch")
    others = [ms_of(n, x) for n, x in (("stock", theirs), ("torch", torch_run)) if x is not None]
    ratio = "-"
    if face:
        ratio = f"{face['ratio']:.2f}x"
    elif mine and others:
        ratio = f"{min(others) / mine['ms']:.2f}x"
    value = _rate(c, ms_of("ours", mine)) if mine else None
    share = f"{100 * value / limit:.0f}%" if mine and limit else "-"
    same = f"{100 * value / same_size:.0f}% ({same_size:.0f} GB/s)" if mine and same_size else "-"
    return [c.name, c.label, *cell("ours", mine), *cell("stock", theirs),
            *cell("torch", torch_run, config=False), ratio, share, same]


def _print_table(header: List[str], rows: List[List[str]]) -> None:
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h)
              for i, h in enumerate(header)]
    print("  ".join(h.ljust(w) for h, w in zip(header, widths)))
    print("  ".join("-" * w for w in widths))
    for r in rows:
        print("  ".join(x.ljust(w) for x, w in zip(r, widths)))


# ---- the probes' pieces (benchmarks/*_probe.py: configs of one case side by side) ----

def probe_cell(case: Case, stock: bool, meta: dict) -> str:
    """One config of `case` on one side, as a probe table's cell: its value (" WRONG" when the
    output is), or the error when it does not build or run (a row, not the probe's end)."""
    try:
        r = _measure(case, lambda: launcher(case, stock)(_grid(case, meta), meta))
        return f"{r['value']:.1f}{'' if r['ok'] else ' WRONG'}"
    except Exception as e:
        return f"{type(e).__name__}: {str(e)[:60]}"


def probe_torch_cell(case: Case) -> str:
    """What a torch user runs instead (cuBLAS for a matmul), as a probe table's cell."""
    r = _measure_torch(case)
    return f"{r['value']:.1f}" if r else "failed"


def print_probe(header: List[str], rows: List[List[str]], unit: str) -> None:
    """A probe's table under the card and the versions it ran with."""
    import torch
    import triton

    print(f"{torch.cuda.get_device_name()}, stock Triton {triton.__version__}, torch "
          f"{torch.__version__}, {unit}")
    _print_table(header, rows)


def probe_config_name(side: str, c: dict) -> str:
    """A config's row label: its block sizes in order, then the knobs: `tile 128x256x64, nw8,
    ns4, occupancy 1` (a matmul), `stock 64x128, 264 programs, nw8, ns3` (BLOCK_M1, BLOCK_N1,
    NUM_PROGRAMS)."""
    blocks = "x".join(str(v) for k, v in c.items() if k.startswith("BLOCK_"))
    programs = f", {c['NUM_PROGRAMS']} programs" if "NUM_PROGRAMS" in c else ""
    extra = "".join(f", {k} {c[k]}" for k in ("occupancy", "num_ctas") if k in c)
    return (f"{side} {blocks}{programs}, nw{c['num_warps']}, ns{c['num_stages']}{extra}")


def probe_configs(cases, configs, header: List[str], side_env=None) -> None:
    """A probe of matmul configs, one row each, in one process: `cases` are (the row's leading
    cells, a function making the case) pairs, `configs` (side, config) pairs over the case's
    meta ("stock" for stock Triton); each case ends with torch's row. Prints the table.
    `side_env`: {side: {variable: value}}, environment set while a side's config compiles and
    runs (a Tile knob switched per row: the kernel cache keys on it)."""
    import torch

    rows = []
    for labels, make in cases:
        case = make()
        for side, config in configs:
            env = (side_env or {}).get(side, {})
            saved = {k: os.environ.get(k) for k in env}
            os.environ.update(env)
            try:
                cell = probe_cell(case, side == "stock", dict(case.meta, **config))
            finally:
                for k, v in saved.items():
                    if v is None:
                        os.environ.pop(k, None)
                    else:
                        os.environ[k] = v
            rows.append([*labels, probe_config_name(side, config), cell])
            print("  ", rows[-1], file=sys.stderr, flush=True)
        rows.append([*labels, "torch (cuBLAS)", probe_torch_cell(case)])
        del case
        torch.cuda.empty_cache()
    print_probe(header, rows, "TFLOP/s")
