"""Fused attention forward (Flash-Attention style), in the style of Triton's sixth tutorial.

Each program owns BLOCK_M query rows of one (batch, head) and streams over the keys in
BLOCK_N blocks with an online softmax: a running row maximum m_i, a running denominator l_i
and an fp32 accumulator rescaled whenever the maximum grows. Scores use exp2 with the scale
folded in (sm_scale * log2(e)). With causal=True, key blocks strictly before the query block
run without masking (stage 1) and the diagonal block with the causal mask (stage 2). Keys
past N_CTX are masked, so N_CTX need not be a multiple of the block sizes. Besides the
output, the kernel stores M = m_i + log2(l_i), the per-row log-sum-exp in base 2.

    python examples/fused_attention.py
"""

import numpy as np

import triton_tile as triton
import triton_tile.language as tl

LOG2E = 1.4426950408889634


@triton.jit
def _attn_fwd_inner(acc, l_i, m_i, q, k_base, v_base, stride_kn, stride_kd, stride_vn,
                    stride_vd, start_m, qk_scale, N_CTX, offs_m, offs_n, offs_d,
                    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, STAGE: tl.constexpr,
                    EVEN: tl.constexpr):
    if STAGE == 1:  # causal, key blocks entirely before this query block
        lo, hi = 0, start_m * BLOCK_M
    elif STAGE == 2:  # causal, the diagonal block
        lo, hi = start_m * BLOCK_M, (start_m + 1) * BLOCK_M
    else:  # not causal: every key
        lo, hi = 0, N_CTX
    for start_n in range(lo, hi, BLOCK_N):
        start_n = tl.multiple_of(start_n, BLOCK_N)
        cols = start_n + offs_n
        key_ok = cols < N_CTX
        if EVEN:  # whole key blocks: no masks
            kt = tl.load(k_base + cols[None, :] * stride_kn + offs_d[:, None] * stride_kd)
        else:
            kt = tl.load(k_base + cols[None, :] * stride_kn + offs_d[:, None] * stride_kd,
                         mask=key_ok[None, :], other=0.0)  # K^T block: [HEAD_DIM, BLOCK_N]
        s = tl.dot(q, kt)
        # As Triton's tutorial: the scale goes into the max and into one fused multiply-add
        # with it (sm_scale > 0), and masked scores into an added -1e6.
        if STAGE == 2 or not EVEN:
            keep = key_ok[None, :]
            if STAGE == 2:
                keep = keep & (offs_m[:, None] >= cols[None, :])
            s = s * qk_scale + tl.where(keep, 0.0, -1.0e6)
            m_new = tl.maximum(m_i, tl.max(s, 1))
            s = s - m_new[:, None]
        else:
            m_new = tl.maximum(m_i, tl.max(s, 1) * qk_scale)
            s = s * qk_scale - m_new[:, None]
        p = tl.math.exp2(s)
        alpha = tl.math.exp2(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, 1)
        if EVEN:
            v = tl.load(v_base + cols[:, None] * stride_vn + offs_d[None, :] * stride_vd)
        else:
            v = tl.load(v_base + cols[:, None] * stride_vn + offs_d[None, :] * stride_vd,
                        mask=key_ok[:, None], other=0.0)
        acc = tl.dot(p.to(v.dtype), v, acc * alpha[:, None])
        m_i = m_new
    return acc, l_i, m_i


@triton.jit
def attn_fwd_kernel(Q, K, V, sm_scale, M, Out,
                    stride_qz, stride_qh, stride_qm, stride_qd,
                    stride_kz, stride_kh, stride_kn, stride_kd,
                    stride_vz, stride_vh, stride_vn, stride_vd,
                    stride_oz, stride_oh, stride_om, stride_od,
                    H, N_CTX, HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr,
                    BLOCK_N: tl.constexpr, CAUSAL: tl.constexpr, EVEN: tl.constexpr = False):
    """EVEN: the host checked that N_CTX is a multiple of BLOCK_M (so of BLOCK_N): every block
    of keys is whole, and the loads and scores take no masks."""
    tl.static_assert(BLOCK_M % BLOCK_N == 0)
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
    row_ok = offs_m < N_CTX
    q = tl.load(q_base + offs_m[:, None] * stride_qm + offs_d[None, :] * stride_qd,
                mask=row_ok[:, None], other=0.0)

    m_i = tl.full([BLOCK_M], float("-inf"), tl.float32)
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    qk_scale = sm_scale * 1.4426950408889634  # exp(x) == exp2(x * log2(e))
    if CAUSAL:
        acc, l_i, m_i = _attn_fwd_inner(acc, l_i, m_i, q, k_base, v_base, stride_kn,
                                        stride_kd, stride_vn, stride_vd, start_m, qk_scale,
                                        N_CTX, offs_m, offs_n, offs_d, BLOCK_M, BLOCK_N, 1, EVEN)
        acc, l_i, m_i = _attn_fwd_inner(acc, l_i, m_i, q, k_base, v_base, stride_kn,
                                        stride_kd, stride_vn, stride_vd, start_m, qk_scale,
                                        N_CTX, offs_m, offs_n, offs_d, BLOCK_M, BLOCK_N, 2, EVEN)
    else:
        acc, l_i, m_i = _attn_fwd_inner(acc, l_i, m_i, q, k_base, v_base, stride_kn,
                                        stride_kd, stride_vn, stride_vd, start_m, qk_scale,
                                        N_CTX, offs_m, offs_n, offs_d, BLOCK_M, BLOCK_N, 3, EVEN)
    m_i += tl.math.log2(l_i)
    acc = acc / l_i[:, None]
    tl.store(M + off_hz * N_CTX + offs_m, m_i, mask=row_ok)
    tl.store(o_base + offs_m[:, None] * stride_om + offs_d[None, :] * stride_od,
             acc.to(Out.dtype.element_ty), mask=row_ok[:, None])


def attention(q, k, v, causal, sm_scale, block_m=64, block_n=32):
    """softmax(q k^T * sm_scale) v for [Z, H, N_CTX, HEAD_DIM] arrays; returns (o, M, compiled)."""
    Z, H, n_ctx, head_dim = q.shape
    assert k.shape == v.shape == q.shape and head_dim in (16, 32, 64, 128)
    assert sm_scale > 0, "the kernel folds the scale into the row max (max(s) * scale)"
    o = np.full_like(q, np.nan)  # poisoned: every row must be written
    m = np.full((Z, H, n_ctx), np.nan, dtype=np.float32)

    def strides(x):
        return [s // x.itemsize for s in x.strides]

    grid = (triton.cdiv(n_ctx, block_m), Z * H, 1)
    compiled = attn_fwd_kernel[grid](q, k, v, sm_scale, m, o, *strides(q), *strides(k),
                                     *strides(v), *strides(o), H, n_ctx, HEAD_DIM=head_dim,
                                     BLOCK_M=block_m, BLOCK_N=block_n, CAUSAL=causal,
                                     EVEN=n_ctx % block_m == 0)
    return o, m, compiled


def reference(q, k, v, causal, sm_scale):
    qf, kf, vf = (x.astype(np.float64) for x in (q, k, v))
    s = np.einsum("zhmd,zhnd->zhmn", qf, kf) * sm_scale
    if causal:
        n = s.shape[-1]
        s = np.where(np.tril(np.ones((n, n), bool)), s, -np.inf)
    mx = s.max(-1, keepdims=True)
    p = np.exp(s - mx)
    den = p.sum(-1, keepdims=True)
    o = np.einsum("zhmn,zhnd->zhmd", p / den, vf)
    lse2 = (mx[..., 0] + np.log(den[..., 0])) * LOG2E
    return o, lse2


def _path_of(compiled):
    md = getattr(compiled, "metadata", None)
    if isinstance(md, dict):
        return md.get("path")
    return getattr(md, "path", None)


def check(Z=1, H=2, n_ctx=100, head_dim=64, causal=True, seed=0, dtype=np.float16):
    """Returns (correct, max_abs_err, compiled_kernel)."""
    rng = np.random.default_rng(seed)
    q, k, v = (rng.standard_normal((Z, H, n_ctx, head_dim)).astype(dtype) for _ in range(3))
    sm_scale = 0.5
    o, m, compiled = attention(q, k, v, causal, sm_scale)
    o_ref, m_ref = reference(q, k, v, causal, sm_scale)
    err = float(np.max(np.abs(o.astype(np.float64) - o_ref)))
    # p is rounded to fp16 before the second matmul and o is stored in fp16
    ok = (np.allclose(o.astype(np.float64), o_ref, rtol=5e-3, atol=5e-3)
          and np.allclose(m, m_ref, rtol=1e-4, atol=1e-4))
    return bool(ok), err, compiled


def demo(quick=False):
    Z, H, n_ctx, head_dim = (1, 2, 128, 64) if quick else (1, 4, 1024, 64)
    ok_causal, err_c, _ = check(Z, H, n_ctx, head_dim, causal=True)
    ok_full, err_f, compiled = check(Z, H, n_ctx, head_dim, causal=False)
    rng = np.random.default_rng(1)
    q, k, v = (rng.standard_normal((Z, H, n_ctx, head_dim)).astype(np.float16)
               for _ in range(3))
    ms = triton.testing.do_bench(lambda: attention(q, k, v, False, 0.125),
                                 warmup=10 if quick else 25, rep=50 if quick else 200)
    gflops = 4 * Z * H * n_ctx * n_ctx * head_dim / (ms * 1e-3) / 1e9
    return {"kernel": "fused_attention", "size": f"Z={Z} H={H} N={n_ctx} D={head_dim} fp16",
            "correct": ok_causal and ok_full, "ms": ms, "metric": gflops, "unit": "GFLOP/s",
            "path": _path_of(compiled), "max_err": max(err_c, err_f)}


if __name__ == "__main__":
    r = demo()
    print(f"fused_attention {r['size']}: correct={r['correct']} (max err {r['max_err']:.2e}),"
          f" {r['ms']:.3f} ms, {r['metric']:.1f} {r['unit']}")
