"""Attention forward with the next key block's scores issued before this block's softmax.

    python benchmarks/attn_pipeline_probe.py    # a GPU machine with tileiras (after
                                                # `STEPS=none benchmarks/gpu_run.sh`)

cuDNN's forward kernel keeps the tensor pipe busy by overlapping one block's softmax with the
next block's MMAs; tileiras 13.4 runs an iteration's softmax and MMAs one after the other
(docs/gpu_perf_notes.md). This probe asks whether the overlap can be had by writing it: the
kernel below computes block j + 1's QK^T at the top of iteration j (FlashAttention-3's
intra-warpgroup pipelining, in the source), so the MMA's result is not needed until the next
iteration. It times that kernel against examples/fused_attention.py's on the Tile path
(non-causal, B4 H32 L4096 D128 fp16, whole blocks), each config's two kernels in 5
interleaved rounds of do_bench medians, with sdpa beside them; each kernel's first launch is
checked against sdpa (its max error is printed; one above 1e-2 stops the probe).
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples"))
import fused_attention as fa  # noqa: E402

import triton_tile as triton  # noqa: E402
import triton_tile.language as tl  # noqa: E402


@triton.jit
def attn_fwd_pipe(Q, K, V, sm_scale, M, Out,
                  stride_qz, stride_qh, stride_qm, stride_qd,
                  stride_kz, stride_kh, stride_kn, stride_kd,
                  stride_vz, stride_vh, stride_vn, stride_vd,
                  stride_oz, stride_oh, stride_om, stride_od,
                  H, N_CTX, HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr,
                  BLOCK_N: tl.constexpr):
    start_m = tl.program_id(0)
    off_hz = tl.program_id(1)
    off_z = (off_hz // H).to(tl.int64)
    off_h = (off_hz % H).to(tl.int64)
    q_base = Q + off_z * stride_qz + off_h * stride_qh
    k_base = K + off_z * stride_kz + off_h * stride_kh
    v_base = V + off_z * stride_vz + off_h * stride_vh
    o_base = Out + off_z * stride_oz + off_h * stride_oh
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD_DIM)
    q = tl.load(q_base + offs_m[:, None] * stride_qm + offs_d[None, :] * stride_qd)
    m_i = tl.full([BLOCK_M], float("-inf"), tl.float32)
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    qk_scale = sm_scale * 1.4426950408889634
    kt = tl.load(k_base + offs_n[None, :] * stride_kn + offs_d[:, None] * stride_kd)
    s = tl.dot(q, kt)
    for start_n in range(0, N_CTX, BLOCK_N):
        start_n = tl.multiple_of(start_n, BLOCK_N)
        # the next block's scores first (its last iteration wraps to block 0: unused)
        nxt = (start_n + BLOCK_N) % N_CTX
        kt_n = tl.load(k_base + (nxt + offs_n)[None, :] * stride_kn + offs_d[:, None] * stride_kd)
        s_n = tl.dot(q, kt_n)
        m_new = tl.maximum(m_i, tl.max(s, 1) * qk_scale)
        p = tl.math.exp2(s * qk_scale - m_new[:, None])
        alpha = tl.math.exp2(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, 1)
        v = tl.load(v_base + (start_n + offs_n)[:, None] * stride_vn + offs_d[None, :] * stride_vd)
        acc = tl.dot(p.to(v.dtype), v, acc * alpha[:, None])
        m_i = m_new
        s = s_n
    m_i += tl.math.log2(l_i)
    acc = acc / l_i[:, None]
    tl.store(M + off_hz * N_CTX + offs_m, m_i)
    tl.store(o_base + offs_m[:, None] * stride_om + offs_d[None, :] * stride_od,
             acc.to(Out.dtype.element_ty))


def _strides(x) -> list:
    """Element strides of a torch tensor or a numpy array."""
    return list(x.stride()) if hasattr(x, "is_cuda") else [s // x.itemsize for s in x.strides]


def launch(kernel, q, k, v, scale, m, o, bm, bn, **options):
    """One launch of either kernel on [Z, H, N, D] arrays (numpy or CUDA tensors), N a
    multiple of bm."""
    z, h, n, d = q.shape
    strides = [s for x in (q, k, v, o) for s in _strides(x)]
    extra = dict(CAUSAL=False, EVEN=True) if kernel is fa.attn_fwd_kernel else {}
    return kernel[(n // bm, z * h, 1)](q, k, v, scale, m, o, *strides, h, n, HEAD_DIM=d,
                                       BLOCK_M=bm, BLOCK_N=bn, **extra, **options)


def main():
    import statistics

    import torch
    from triton.testing import do_bench

    Z, H, N, D = 4, 32, 4096, 128
    torch.manual_seed(0)
    q, k, v = (torch.randn(Z, H, N, D, device="cuda", dtype=torch.float16) for _ in range(3))
    scale = D ** -0.5
    ref = torch.nn.functional.scaled_dot_product_attention(q, k, v, scale=scale)
    flops = 4 * Z * H * N * N * D
    o = torch.empty_like(q)
    m = torch.empty(Z, H, N, device="cuda", dtype=torch.float32)
    runs = {}
    for bm, bn, nw, ns in ((128, 64, 4, 3), (128, 128, 8, 3), (128, 128, 8, 2), (128, 64, 8, 3)):
        for name, kernel in (("example", fa.attn_fwd_kernel), ("pipelined", attn_fwd_pipe)):
            def f(kernel=kernel, bm=bm, bn=bn, nw=nw, ns=ns):
                launch(kernel, q, k, v, scale, m, o, bm, bn, num_warps=nw, num_stages=ns,
                       enable_tile=True)

            o.fill_(float("nan"))
            f()
            torch.cuda.synchronize()
            err = (o.float() - ref.float()).abs().max().item()
            if not err <= 1e-2:  # (a NaN fails too: the output was poisoned)
                raise SystemExit(f"{name} at {bm}x{bn}, nw{nw}, ns{ns}: max error {err} "
                                 "against sdpa")
            runs[(f"{bm}x{bn}, nw{nw}, ns{ns}", name)] = (f, err)
    times = {key: [] for key in runs}
    for _ in range(5):
        for key, (f, _) in runs.items():
            times[key].append(do_bench(f, warmup=25, rep=100, return_mode="median"))
    sdpa = do_bench(lambda: torch.nn.functional.scaled_dot_product_attention(q, k, v,
                                                                             scale=scale),
                    warmup=25, rep=100, return_mode="median")
    print(f"{torch.cuda.get_device_name()}, torch {torch.__version__}; TFLOP/s, the median "
          f"of 5 interleaved rounds (min-max); sdpa {flops / sdpa / 1e9:.1f}")
    print("config | kernel | TFLOP/s | min-max | max abs error against sdpa")
    for key, ts in times.items():
        r = sorted(flops / t / 1e9 for t in ts)
        print(f"{key[0]} | {key[1]} | {statistics.median(r):.1f} | {r[0]:.1f}-{r[-1]:.1f} | "
              f"{runs[key][1]:.2e}")


if __name__ == "__main__":
    main()
