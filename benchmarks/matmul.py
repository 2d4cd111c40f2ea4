"""Matmul through tl.dot (tutorial 03 kernel, fp32 in and out, ieee precision);
GFLOP/s = 2 M N K / t."""

import sys

from common import dev, host, interp_main, np, time_ms, tl, triton

NAME = "matmul fp32 (tl.dot)"
FULL = {"m": 1024, "n": 1024, "k": 1024}
SMALL = {"m": 128, "n": 128, "k": 128}
BM, BN, BK, GROUP = 64, 64, 64, 8


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn,
                  stride_cm, stride_cn, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                  BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    num_pid_in_group = GROUP_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m
    offs_am = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
    offs_bn = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
    b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_K, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_K, other=0.0)
        acc = tl.dot(a, b, acc, input_precision="ieee")
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    offs_cm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_cn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
    c_mask = (offs_cm[:, None] < M) & (offs_cn[None, :] < N)
    tl.store(c_ptrs, acc, mask=c_mask)


def setup(size):
    m, n, k = size["m"], size["n"], size["k"]
    rng = np.random.default_rng(0)
    a = rng.standard_normal((m, k), dtype=np.float32)
    b = rng.standard_normal((k, n), dtype=np.float32)
    return {"m": m, "n": n, "k": k, "a": a, "b": b, "ref": np.empty((m, n), np.float32),
            "da": dev(a), "db": dev(b), "dc": dev(np.empty((m, n), np.float32))}


def ours(s):
    m, n, k = s["m"], s["n"], s["k"]
    grid = (triton.cdiv(m, BM) * triton.cdiv(n, BN),)
    return lambda: matmul_kernel[grid](s["da"], s["db"], s["dc"], m, n, k, k, 1, n, 1, n, 1,
                                       BLOCK_M=BM, BLOCK_N=BN, BLOCK_K=BK, GROUP_M=GROUP)


def numpy_ref(s):
    return lambda: np.matmul(s["a"], s["b"], out=s["ref"])


def check(s):
    ours(s)()
    numpy_ref(s)()
    return np.allclose(host(s["dc"]), s["ref"], rtol=1e-4, atol=1e-3)


def work(size):
    return size["m"] * size["n"] * size["k"]


def metric(size, ms):
    return 2 * size["m"] * size["n"] * size["k"] / (ms * 1e-3) / 1e9, "GFLOP/s"


def label(size):
    return f"{size['m']}x{size['n']}x{size['k']}"


if __name__ == "__main__":
    if "--interp" in sys.argv:
        interp_main(sys.modules[__name__])
    else:
        s = setup(FULL)
        print(NAME, label(FULL), "correct" if check(s) else "WRONG",
              f"{time_ms(ours(s)):.3f} ms", f"numpy {time_ms(numpy_ref(s)):.3f} ms")
