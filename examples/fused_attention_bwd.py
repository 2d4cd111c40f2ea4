"""Fused attention backward (FlashAttention-2 style), the gradient of examples/fused_attention.py.

Given Q, K, V, the forward's output O and its per-row log-sum-exp M (base 2, as
attn_fwd_kernel stores it), and the output's gradient dO, it computes dQ, dK and dV without
ever materializing the [N_CTX, N_CTX] attention matrix, in two launches:

1. attn_bwd_preprocess_kernel: Delta = rowsum(O * dO), one fp32 per query row.
2. attn_bwd_kernel: each program owns one block of BLOCK_N1 keys and streams over the queries
   in BLOCK_M1 blocks, accumulating dK and dV in fp32; then it owns one block of BLOCK_M2
   queries (BLOCK_M2 == BLOCK_N1: the same program index) and streams over the keys in
   BLOCK_N2 blocks, accumulating dQ. No atomics: every gradient row has one owner.

With P = softmax(sm_scale * Q K^T) recomputed block by block as exp2(qk * sm_scale * log2(e) - M):

    dV = P^T dO      dP = dO V^T      dS = P * (dP - Delta)
    dQ = sm_scale * dS K              dK = sm_scale * dS^T Q

With causal=True the blocks on the diagonal run with the causal mask and the blocks past it are
skipped. Rows past N_CTX load as zeros (queries, dO and keys alike), which makes their terms
vanish (a zero dO row or key row contributes nothing), and their results are not stored, so
N_CTX need not be a multiple of the block sizes. The fused-attention tutorial of Triton counts
the backward as 2.5 times the forward's flops.

The second pass recomputes Q K^T and dO V^T for dQ: 7 matmuls per pair of blocks. The
atomic form (`attention_bwd(..., atomic=True)`, FlashAttention-2's own) makes 5: the key
block's program also forms dS K and adds it to a float32 dQ accumulator with atomics
(attn_bwd_atomic_kernel), which its preprocess zeroes and a last launch scales into dQ. Its dQ
sums its terms in whatever order the programs run. attn_bwd_atomic_persistent_kernel runs the
same work items (a key block of a head) on a persistent grid, as cuDNN's backward does.

    python examples/fused_attention_bwd.py
"""

import numpy as np

import triton_tile as triton
import triton_tile.language as tl

LOG2E = 1.4426950408889634


@triton.jit
def _delta_rows(O, DO, Delta, stride_z, stride_h, stride_tok, stride_d, H, N_CTX,
                HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr):
    """Delta = rowsum(O * dO) for the program's BLOCK_M query rows; returns (off_hz, rows,
    cols, row_ok)."""
    start_m = tl.program_id(0)
    off_hz = tl.program_id(1)
    base = (off_hz // H).to(tl.int64) * stride_z + (off_hz % H).to(tl.int64) * stride_h
    rows = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.arange(0, HEAD_DIM)
    row_ok = rows < N_CTX
    offs = base + rows[:, None] * stride_tok + cols[None, :] * stride_d
    o = tl.load(O + offs, mask=row_ok[:, None], other=0.0).to(tl.float32)
    do = tl.load(DO + offs, mask=row_ok[:, None], other=0.0).to(tl.float32)
    tl.store(Delta + off_hz * N_CTX + rows, tl.sum(o * do, 1), mask=row_ok)
    return off_hz, rows, cols, row_ok


@triton.jit
def attn_bwd_preprocess_kernel(O, DO, Delta, stride_z, stride_h, stride_tok, stride_d, H,
                               N_CTX, HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr):
    _delta_rows(O, DO, Delta, stride_z, stride_h, stride_tok, stride_d, H, N_CTX, HEAD_DIM,
                BLOCK_M)


@triton.jit
def _bwd_dk_dv(dk, dv, k, v, q_base, do_base, m_base, delta_base, acc_base, stride_tok,
               stride_d, qk_scale, lo, hi, N_CTX, offs_n, offs_d, BLOCK_M1: tl.constexpr,
               HEAD_DIM: tl.constexpr, CAUSAL_MASK: tl.constexpr, ATOMIC_DQ: tl.constexpr):
    """dK and dV of one key block over the query rows [lo, hi), BLOCK_M1 at a time; with
    ATOMIC_DQ, each query block's dS K added to the float32 dQ accumulator at acc_base."""
    for start_m in range(lo, hi, BLOCK_M1):
        start_m = tl.multiple_of(start_m, BLOCK_M1)
        offs_m = start_m + tl.arange(0, BLOCK_M1)
        row_ok = offs_m < N_CTX
        # Q^T block [HEAD_DIM, BLOCK_M1]; padded rows are zero, so are their dO rows below
        qt = tl.load(q_base + offs_m[None, :] * stride_tok + offs_d[:, None] * stride_d,
                     mask=row_ok[None, :], other=0.0)
        m = tl.load(m_base + offs_m, mask=row_ok, other=0.0)
        pt = tl.math.exp2(tl.dot(k, qt) * qk_scale - m[None, :])  # P^T: [BLOCK_N1, BLOCK_M1]
        if CAUSAL_MASK:
            pt = tl.where(offs_m[None, :] >= offs_n[:, None], pt, 0.0)
        do = tl.load(do_base + offs_m[:, None] * stride_tok + offs_d[None, :] * stride_d,
                     mask=row_ok[:, None], other=0.0)  # [BLOCK_M1, HEAD_DIM]
        dv = tl.dot(pt.to(do.dtype), do, dv)
        delta = tl.load(delta_base + offs_m, mask=row_ok, other=0.0)
        dpt = tl.dot(v, tl.trans(do))  # dP^T = V dO^T: [BLOCK_N1, BLOCK_M1]
        dst = (pt * (dpt - delta[None, :])).to(qt.dtype)
        dk = tl.dot(dst, tl.trans(qt), dk)
        if ATOMIC_DQ:
            # padded keys: their rows of k are zero, so their dS terms add nothing
            dq = tl.dot(tl.trans(dst), k)  # [BLOCK_M1, HEAD_DIM]
            tl.atomic_add(acc_base + offs_m[:, None] * HEAD_DIM + offs_d[None, :], dq,
                          mask=row_ok[:, None], sem="relaxed")
    return dk, dv


@triton.jit
def attn_bwd_preprocess_acc_kernel(O, DO, Delta, DQ_ACC, stride_z, stride_h, stride_tok,
                                   stride_d, H, N_CTX, HEAD_DIM: tl.constexpr,
                                   BLOCK_M: tl.constexpr):
    """attn_bwd_preprocess_kernel, and zeroes the rows' float32 dQ accumulator
    (DQ_ACC: [Z * H, N_CTX, HEAD_DIM], dense)."""
    off_hz, rows, cols, row_ok = _delta_rows(O, DO, Delta, stride_z, stride_h, stride_tok,
                                             stride_d, H, N_CTX, HEAD_DIM, BLOCK_M)
    acc = DQ_ACC + off_hz.to(tl.int64) * N_CTX * HEAD_DIM
    tl.store(acc + rows[:, None] * HEAD_DIM + cols[None, :],
             tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32), mask=row_ok[:, None])


@triton.jit
def _attn_bwd_atomic_block(Q, K, V, sm_scale, DO, DQ_ACC, DK, DV, M, Delta, stride_z, stride_h,
                           stride_tok, stride_d, H, N_CTX, off_hz, start_n,
                           HEAD_DIM: tl.constexpr, BLOCK_M1: tl.constexpr,
                           BLOCK_N1: tl.constexpr, CAUSAL: tl.constexpr):
    """dK, dV of the keys [start_n, start_n + BLOCK_N1) of batch-head off_hz, and their dQ
    terms added to DQ_ACC (float32, unscaled)."""
    base = (off_hz // H).to(tl.int64) * stride_z + (off_hz % H).to(tl.int64) * stride_h
    q_base, k_base, v_base, do_base = Q + base, K + base, V + base, DO + base
    m_base = M + off_hz * N_CTX
    delta_base = Delta + off_hz * N_CTX
    acc_base = DQ_ACC + off_hz.to(tl.int64) * N_CTX * HEAD_DIM
    offs_d = tl.arange(0, HEAD_DIM)
    qk_scale = sm_scale * 1.4426950408889634
    offs_n = start_n + tl.arange(0, BLOCK_N1)
    key_ok = offs_n < N_CTX
    kv_offs = offs_n[:, None] * stride_tok + offs_d[None, :] * stride_d
    k = tl.load(k_base + kv_offs, mask=key_ok[:, None], other=0.0)
    v = tl.load(v_base + kv_offs, mask=key_ok[:, None], other=0.0)
    dk = tl.zeros([BLOCK_N1, HEAD_DIM], dtype=tl.float32)
    dv = tl.zeros([BLOCK_N1, HEAD_DIM], dtype=tl.float32)
    if CAUSAL:
        dk, dv = _bwd_dk_dv(dk, dv, k, v, q_base, do_base, m_base, delta_base, acc_base,
                            stride_tok, stride_d, qk_scale, start_n, start_n + BLOCK_N1, N_CTX,
                            offs_n, offs_d, BLOCK_M1, HEAD_DIM, True, True)
        dk, dv = _bwd_dk_dv(dk, dv, k, v, q_base, do_base, m_base, delta_base, acc_base,
                            stride_tok, stride_d, qk_scale, start_n + BLOCK_N1, N_CTX, N_CTX,
                            offs_n, offs_d, BLOCK_M1, HEAD_DIM, False, True)
    else:
        dk, dv = _bwd_dk_dv(dk, dv, k, v, q_base, do_base, m_base, delta_base, acc_base,
                            stride_tok, stride_d, qk_scale, 0, N_CTX, N_CTX, offs_n, offs_d,
                            BLOCK_M1, HEAD_DIM, False, True)
    tl.store(DV + base + kv_offs, dv.to(DV.dtype.element_ty), mask=key_ok[:, None])
    tl.store(DK + base + kv_offs, (dk * sm_scale).to(DK.dtype.element_ty),
             mask=key_ok[:, None])


@triton.jit
def attn_bwd_atomic_kernel(Q, K, V, sm_scale, DO, DQ_ACC, DK, DV, M, Delta,
                           stride_z, stride_h, stride_tok, stride_d, H, N_CTX,
                           HEAD_DIM: tl.constexpr, BLOCK_M1: tl.constexpr,
                           BLOCK_N1: tl.constexpr, CAUSAL: tl.constexpr):
    """attn_bwd_kernel's first half, with dQ's terms added to DQ_ACC (float32, unscaled): one
    program per key block (axis 0) and batch-head (axis 1)."""
    tl.static_assert(BLOCK_N1 % BLOCK_M1 == 0)  # the causal diagonal in whole query blocks
    _attn_bwd_atomic_block(Q, K, V, sm_scale, DO, DQ_ACC, DK, DV, M, Delta, stride_z, stride_h,
                           stride_tok, stride_d, H, N_CTX, tl.program_id(1),
                           tl.program_id(0) * BLOCK_N1, HEAD_DIM, BLOCK_M1, BLOCK_N1, CAUSAL)


@triton.jit
def attn_bwd_atomic_persistent_kernel(Q, K, V, sm_scale, DO, DQ_ACC, DK, DV, M, Delta,
                                      stride_z, stride_h, stride_tok, stride_d, H, N_CTX,
                                      Z_H, HEAD_DIM: tl.constexpr, BLOCK_M1: tl.constexpr,
                                      BLOCK_N1: tl.constexpr, CAUSAL: tl.constexpr,
                                      NUM_PROGRAMS: tl.constexpr):
    """attn_bwd_atomic_kernel as a persistent grid of NUM_PROGRAMS programs, each looping over
    (batch-head, key block) work items, key blocks of one head adjacent (Z_H = Z * H)."""
    tl.static_assert(BLOCK_N1 % BLOCK_M1 == 0)
    n_blocks = tl.cdiv(N_CTX, BLOCK_N1)
    for item in range(tl.program_id(0), n_blocks * Z_H, NUM_PROGRAMS):
        _attn_bwd_atomic_block(Q, K, V, sm_scale, DO, DQ_ACC, DK, DV, M, Delta, stride_z,
                               stride_h, stride_tok, stride_d, H, N_CTX, item // n_blocks,
                               (item % n_blocks) * BLOCK_N1, HEAD_DIM, BLOCK_M1, BLOCK_N1,
                               CAUSAL)


@triton.jit
def attn_bwd_dq_kernel(DQ_ACC, DQ, sm_scale, stride_z, stride_h, stride_tok, stride_d, H, N_CTX,
                       HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr):
    """dQ = sm_scale * DQ_ACC, in DQ's type and layout."""
    start_m = tl.program_id(0)
    off_hz = tl.program_id(1)
    base = (off_hz // H).to(tl.int64) * stride_z + (off_hz % H).to(tl.int64) * stride_h
    rows = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.arange(0, HEAD_DIM)
    row_ok = rows < N_CTX
    acc = tl.load(DQ_ACC + off_hz.to(tl.int64) * N_CTX * HEAD_DIM + rows[:, None] * HEAD_DIM
                  + cols[None, :], mask=row_ok[:, None], other=0.0)
    tl.store(DQ + base + rows[:, None] * stride_tok + cols[None, :] * stride_d,
             (acc * sm_scale).to(DQ.dtype.element_ty), mask=row_ok[:, None])


@triton.jit
def _bwd_dq(dq, q, do, m, delta, k_base, v_base, stride_tok, stride_d, qk_scale, lo, hi,
            N_CTX, offs_m, offs_d, BLOCK_N2: tl.constexpr, CAUSAL_MASK: tl.constexpr):
    """dQ of one query block over the key rows [lo, hi), BLOCK_N2 at a time."""
    for start_n in range(lo, hi, BLOCK_N2):
        start_n = tl.multiple_of(start_n, BLOCK_N2)
        offs_n = start_n + tl.arange(0, BLOCK_N2)
        key_ok = offs_n < N_CTX
        # K^T and V^T blocks [HEAD_DIM, BLOCK_N2]; padded keys are zero, so dS K gets nothing
        kt = tl.load(k_base + offs_n[None, :] * stride_tok + offs_d[:, None] * stride_d,
                     mask=key_ok[None, :], other=0.0)
        vt = tl.load(v_base + offs_n[None, :] * stride_tok + offs_d[:, None] * stride_d,
                     mask=key_ok[None, :], other=0.0)
        p = tl.math.exp2(tl.dot(q, kt) * qk_scale - m[:, None])  # [BLOCK_M2, BLOCK_N2]
        if CAUSAL_MASK:
            p = tl.where(offs_m[:, None] >= offs_n[None, :], p, 0.0)
        dp = tl.dot(do, vt)
        ds = p * (dp - delta[:, None])
        dq = tl.dot(ds.to(kt.dtype), tl.trans(kt), dq)
    return dq


@triton.jit
def attn_bwd_kernel(Q, K, V, sm_scale, DO, DQ, DK, DV, M, Delta,
                    stride_z, stride_h, stride_tok, stride_d, H, N_CTX,
                    HEAD_DIM: tl.constexpr, BLOCK_M1: tl.constexpr, BLOCK_N1: tl.constexpr,
                    BLOCK_M2: tl.constexpr, BLOCK_N2: tl.constexpr, CAUSAL: tl.constexpr):
    """Q, K, V, dO and the gradients share one [Z, H, N_CTX, HEAD_DIM] layout (strides);
    M and Delta are [Z * H, N_CTX] fp32."""
    tl.static_assert(BLOCK_N1 == BLOCK_M2)  # one program index: a key block, a query block
    tl.static_assert(BLOCK_N1 % BLOCK_M1 == 0)  # the causal diagonal in whole query blocks
    tl.static_assert(BLOCK_M2 % BLOCK_N2 == 0)  # and in whole key blocks
    pid = tl.program_id(0)
    off_hz = tl.program_id(1)
    base = (off_hz // H).to(tl.int64) * stride_z + (off_hz % H).to(tl.int64) * stride_h
    q_base, k_base, v_base, do_base = Q + base, K + base, V + base, DO + base
    m_base = M + off_hz * N_CTX
    delta_base = Delta + off_hz * N_CTX
    offs_d = tl.arange(0, HEAD_DIM)
    qk_scale = sm_scale * 1.4426950408889634  # P = exp2(qk * sm_scale * log2(e) - M)

    # dK, dV of the keys [start_n, start_n + BLOCK_N1)
    start_n = pid * BLOCK_N1
    offs_n = start_n + tl.arange(0, BLOCK_N1)
    key_ok = offs_n < N_CTX
    kv_offs = offs_n[:, None] * stride_tok + offs_d[None, :] * stride_d
    k = tl.load(k_base + kv_offs, mask=key_ok[:, None], other=0.0)
    v = tl.load(v_base + kv_offs, mask=key_ok[:, None], other=0.0)
    dk = tl.zeros([BLOCK_N1, HEAD_DIM], dtype=tl.float32)
    dv = tl.zeros([BLOCK_N1, HEAD_DIM], dtype=tl.float32)
    if CAUSAL:  # queries before the block see none of its keys
        dk, dv = _bwd_dk_dv(dk, dv, k, v, q_base, do_base, m_base, delta_base, None, stride_tok,
                            stride_d, qk_scale, start_n, start_n + BLOCK_N1, N_CTX, offs_n,
                            offs_d, BLOCK_M1, HEAD_DIM, True, False)
        dk, dv = _bwd_dk_dv(dk, dv, k, v, q_base, do_base, m_base, delta_base, None, stride_tok,
                            stride_d, qk_scale, start_n + BLOCK_N1, N_CTX, N_CTX, offs_n,
                            offs_d, BLOCK_M1, HEAD_DIM, False, False)
    else:
        dk, dv = _bwd_dk_dv(dk, dv, k, v, q_base, do_base, m_base, delta_base, None, stride_tok,
                            stride_d, qk_scale, 0, N_CTX, N_CTX, offs_n, offs_d, BLOCK_M1,
                            HEAD_DIM, False, False)
    tl.store(DV + base + kv_offs, dv.to(DV.dtype.element_ty), mask=key_ok[:, None])
    tl.store(DK + base + kv_offs, (dk * sm_scale).to(DK.dtype.element_ty),
             mask=key_ok[:, None])

    # dQ of the queries [start_m, start_m + BLOCK_M2)
    start_m = pid * BLOCK_M2
    offs_m = start_m + tl.arange(0, BLOCK_M2)
    row_ok = offs_m < N_CTX
    q_offs = offs_m[:, None] * stride_tok + offs_d[None, :] * stride_d
    q = tl.load(q_base + q_offs, mask=row_ok[:, None], other=0.0)
    do = tl.load(do_base + q_offs, mask=row_ok[:, None], other=0.0)
    m = tl.load(m_base + offs_m, mask=row_ok, other=0.0)
    delta = tl.load(delta_base + offs_m, mask=row_ok, other=0.0)
    dq = tl.zeros([BLOCK_M2, HEAD_DIM], dtype=tl.float32)
    if CAUSAL:  # keys after the block are seen by none of its queries
        dq = _bwd_dq(dq, q, do, m, delta, k_base, v_base, stride_tok, stride_d, qk_scale, 0,
                     start_m, N_CTX, offs_m, offs_d, BLOCK_N2, False)
        dq = _bwd_dq(dq, q, do, m, delta, k_base, v_base, stride_tok, stride_d, qk_scale,
                     start_m, start_m + BLOCK_M2, N_CTX, offs_m, offs_d, BLOCK_N2, True)
    else:
        dq = _bwd_dq(dq, q, do, m, delta, k_base, v_base, stride_tok, stride_d, qk_scale, 0,
                     N_CTX, N_CTX, offs_m, offs_d, BLOCK_N2, False)
    tl.store(DQ + base + q_offs, (dq * sm_scale).to(DQ.dtype.element_ty), mask=row_ok[:, None])


def _strides(x):
    return [s // x.itemsize for s in x.strides]


def attention_bwd(q, k, v, o, m, do, causal, sm_scale, block_m1=16, block_n1=32,
                  block_m2=32, block_n2=16, atomic=False, num_programs=0):
    """dQ, dK, dV for [Z, H, N_CTX, HEAD_DIM] numpy arrays of one layout; m: [Z, H, N_CTX]
    fp32, the forward's base-2 log-sum-exp. Returns (dq, dk, dv, delta, compiled main kernel).
    Every output starts poisoned with NaN: each element must be written. `atomic`: the
    5-matmul form (block_m2 and block_n2 unused); with `num_programs`, its persistent kernel
    on that many programs."""
    Z, H, n_ctx, head_dim = q.shape
    assert k.shape == v.shape == o.shape == do.shape == q.shape and head_dim in (16, 32, 64, 128)
    st = _strides(q)
    assert all(_strides(x) == st for x in (k, v, o, do)), "one layout for every operand"
    dq, dk, dv = (np.full_like(q, np.nan) for _ in range(3))
    delta = np.full((Z, H, n_ctx), np.nan, dtype=np.float32)
    pre_m = 32
    if atomic:
        acc = np.full((Z * H, n_ctx, head_dim), np.nan, dtype=np.float32)
        grid = (triton.cdiv(n_ctx, pre_m), Z * H)
        attn_bwd_preprocess_acc_kernel[grid](o, do, delta, acc, *st, H, n_ctx,
                                             HEAD_DIM=head_dim, BLOCK_M=pre_m)
        blocks = dict(HEAD_DIM=head_dim, BLOCK_M1=block_m1, BLOCK_N1=block_n1, CAUSAL=causal)
        if num_programs:
            compiled = attn_bwd_atomic_persistent_kernel[(num_programs,)](
                q, k, v, sm_scale, do, acc, dk, dv, m, delta, *st, H, n_ctx, Z * H, **blocks,
                NUM_PROGRAMS=num_programs)
        else:
            compiled = attn_bwd_atomic_kernel[(triton.cdiv(n_ctx, block_n1), Z * H)](
                q, k, v, sm_scale, do, acc, dk, dv, m, delta, *st, H, n_ctx, **blocks)
        attn_bwd_dq_kernel[grid](acc, dq, sm_scale, *st, H, n_ctx, HEAD_DIM=head_dim,
                                 BLOCK_M=pre_m)
        return dq, dk, dv, delta, compiled
    attn_bwd_preprocess_kernel[(triton.cdiv(n_ctx, pre_m), Z * H)](
        o, do, delta, *st, H, n_ctx, HEAD_DIM=head_dim, BLOCK_M=pre_m)
    compiled = attn_bwd_kernel[(triton.cdiv(n_ctx, block_n1), Z * H)](
        q, k, v, sm_scale, do, dq, dk, dv, m, delta, *st, H, n_ctx, HEAD_DIM=head_dim,
        BLOCK_M1=block_m1, BLOCK_N1=block_n1, BLOCK_M2=block_m2, BLOCK_N2=block_n2,
        CAUSAL=causal)
    return dq, dk, dv, delta, compiled


def forward_reference(q, k, v, causal, sm_scale):
    """float64 (O, P, M): the output, the attention matrix and the base-2 log-sum-exp."""
    qf, kf, vf = (x.astype(np.float64) for x in (q, k, v))
    s = np.einsum("zhmd,zhnd->zhmn", qf, kf) * sm_scale
    if causal:
        n = s.shape[-1]
        s = np.where(np.tril(np.ones((n, n), bool)), s, -np.inf)
    mx = s.max(-1, keepdims=True)
    e = np.exp(s - mx)
    den = e.sum(-1, keepdims=True)
    p = e / den
    return np.einsum("zhmn,zhnd->zhmd", p, vf), p, (mx[..., 0] + np.log(den[..., 0])) * LOG2E


def reference(q, k, v, o, do, causal, sm_scale):
    """float64 (dq, dk, dv, delta) from the definitions above (o: the fp16 output the
    kernel sees, so that Delta matches what it computes)."""
    qf, kf, vf, of, dof = (x.astype(np.float64) for x in (q, k, v, o, do))
    _, p, _ = forward_reference(q, k, v, causal, sm_scale)
    dv = np.einsum("zhmn,zhmd->zhnd", p, dof)
    dp = np.einsum("zhmd,zhnd->zhmn", dof, vf)
    delta = (of * dof).sum(-1)
    ds = p * (dp - delta[..., None])
    dq = np.einsum("zhmn,zhnd->zhmd", ds, kf) * sm_scale
    dk = np.einsum("zhmn,zhmd->zhnd", ds, qf) * sm_scale
    return dq, dk, dv, delta


def _path_of(compiled):
    md = getattr(compiled, "metadata", None)
    if isinstance(md, dict):
        return md.get("path")
    return getattr(md, "path", None)


def check(Z=1, H=2, n_ctx=100, head_dim=32, causal=True, seed=0, dtype=np.float16, **blocks):
    """Returns (correct, max_abs_err, compiled main kernel). O and M come from the float64
    forward (O rounded to fp16, M to fp32), as a forward pass would have left them."""
    rng = np.random.default_rng(seed)
    q, k, v, do = (rng.standard_normal((Z, H, n_ctx, head_dim)).astype(dtype)
                   for _ in range(4))
    sm_scale = 0.5
    o_ref, _, m_ref = forward_reference(q, k, v, causal, sm_scale)
    o, m = o_ref.astype(dtype), m_ref.astype(np.float32)
    dq, dk, dv, delta, compiled = attention_bwd(q, k, v, o, m, do, causal, sm_scale, **blocks)
    refs = reference(q, k, v, o, do, causal, sm_scale)
    err, ok = 0.0, True
    for got, ref in zip((dq, dk, dv, delta), refs):
        got = got.astype(np.float64)
        err = max(err, float(np.max(np.abs(got - ref))))
        # P and dS are rounded to fp16 before their matmuls, the gradients stored in fp16:
        # errors relative to the gradients' scale
        scale = float(np.max(np.abs(ref)))
        ok = ok and bool(np.allclose(got, ref, rtol=1e-2, atol=2e-3 * scale))
    return ok, err, compiled


def demo(quick=False):
    Z, H, n_ctx, head_dim = (1, 2, 128, 32) if quick else (1, 4, 512, 64)
    ok_causal, err_c, _ = check(Z, H, n_ctx, head_dim, causal=True)
    ok_full, err_f, compiled = check(Z, H, n_ctx, head_dim, causal=False)
    rng = np.random.default_rng(1)
    q, k, v, do = (rng.standard_normal((Z, H, n_ctx, head_dim)).astype(np.float16)
                   for _ in range(4))
    o_ref, _, m_ref = forward_reference(q, k, v, False, 0.125)
    o, m = o_ref.astype(np.float16), m_ref.astype(np.float32)
    ms = triton.testing.do_bench(lambda: attention_bwd(q, k, v, o, m, do, False, 0.125),
                                 warmup=10 if quick else 25, rep=50 if quick else 200)
    gflops = 10 * Z * H * n_ctx * n_ctx * head_dim / (ms * 1e-3) / 1e9
    return {"kernel": "fused_attention_bwd",
            "size": f"Z={Z} H={H} N={n_ctx} D={head_dim} fp16", "correct": ok_causal and ok_full,
            "ms": ms, "metric": gflops, "unit": "GFLOP/s", "path": _path_of(compiled),
            "max_err": max(err_c, err_f)}


if __name__ == "__main__":
    r = demo()
    print(f"fused_attention_bwd {r['size']}: correct={r['correct']} (max err "
          f"{r['max_err']:.2e}), {r['ms']:.3f} ms, {r['metric']:.1f} {r['unit']}")
