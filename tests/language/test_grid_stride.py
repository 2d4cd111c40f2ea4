"""Persistent loops over work items (`for item in range(tl.program_id(0), n, step)`): the Tile
path runs each (program, iteration) pair as a program of its own
(csrc/passes/grid_stride_loops.cpp, backends/grid_stride.py); the TTIR path runs the loop as
written. Both must do the original's work: its set of items (gaps and repeats included where
the grid is not the step), as many times as the grid repeats it. Kernels whose items cannot run
in any order keep their loop."""

import numpy as np
import pytest
from tt_utils import assert_equal, numpy_random, poisoned

import triton_tile as triton
import triton_tile.language as tl

BLOCK = 16


@pytest.fixture(autouse=True)
def _wherever_legal(monkeypatch):
    """These kernels' loops hold no inner loop, which the default (auto) leaves as written:
    the tests check the rewrite itself, wherever it is legal."""
    monkeypatch.setenv("TRITON_TILE_GRID_STRIDE", "on")


def _items(programs, n_items, step):
    """The work items the original loop runs, with repeats: program pid runs pid, pid + step,
    ... below n_items."""
    return [i for pid in range(programs) for i in range(pid, n_items, step)]


@triton.jit
def _scale_items(X, Y, n, STEP: tl.constexpr, BLOCK: tl.constexpr):
    for item in range(tl.program_id(0), tl.cdiv(n, BLOCK), STEP):
        offs = item * BLOCK + tl.arange(0, BLOCK)
        x = tl.load(X + offs, mask=offs < n)
        tl.store(Y + offs, x * 3 + item, mask=offs < n)


@pytest.mark.parametrize("programs, step, n", [
    (4, 4, 1000),  # the persistent idiom: the grid is the step
    (3, 7, 1000),  # fewer programs than the step: items 3..6 of every 7 never run
    (8, 3, 1000),  # more programs than the step: items run twice
    (16, 16, 100),  # fewer items than programs
    (5, 5, 0),  # no items
    (1, 1, 1000),  # one program walks every item
])
def test_persistent_loop_runs_the_same_items(programs, step, n, path, rng):
    size = max(n, 1)  # (n = 0: one element, untouched; the GPU harness places no empty array)
    x = numpy_random(size, "int32", rng, low=-1000, high=1000)
    y = poisoned(size, "int32")
    compiled = _scale_items[(programs,)](x, y, n, STEP=step, BLOCK=BLOCK)
    want = poisoned(size, "int32")
    for item in _items(programs, -(-n // BLOCK), step):
        s = slice(item * BLOCK, min(n, (item + 1) * BLOCK))
        want[s] = x[s] * 3 + item
    assert_equal(y, want)
    assert ("grid" in compiled.asm) == (path == "tile")


@triton.jit
def _count_items(Count, Y, n, step):
    for item in range(tl.program_id(0), n, step):
        tl.atomic_add(Count + item % 4, 1)
        tl.store(Y + item, item * 2)


@pytest.mark.parametrize("grid, step, n", [
    ((6,), 6, 100),
    ((6, 3), 6, 100),  # axes the kernel does not read repeat the whole loop: three times
    ((4, 2, 2), 3, 50),
    ((2,), 1, 70000),  # more iterations than one grid axis holds (65535)
])
def test_atomic_counts_and_repeats(grid, step, n, path):
    count = np.zeros(4, np.int32)
    y = poisoned(n, "int32")
    compiled = _count_items[grid](count, y, n, step)
    repeats = int(np.prod(grid[1:]))
    items = _items(grid[0], n, step)
    assert_equal(count, np.bincount(np.array(items, np.int64) % 4, minlength=4) * repeats)
    want = poisoned(n, "int32")
    want[sorted(set(items))] = np.array(sorted(set(items)), np.int32) * 2
    assert_equal(y, want)
    assert ("grid" in compiled.asm) == (path == "tile")


@triton.jit
def _step_is_the_grid(X, Y, n):
    for item in range(tl.program_id(0), n, tl.num_programs(0)):
        tl.store(Y + item, tl.load(X + item) + tl.num_programs(0))


def test_step_from_num_programs(path, rng):
    x = numpy_random(300, "int32", rng, low=-100, high=100)
    y = poisoned(300, "int32")
    compiled = _step_is_the_grid[(7,)](x, y, 300)
    assert_equal(y, x + 7)  # num_programs(0) keeps its meaning in the body
    assert ("grid" in compiled.asm) == (path == "tile")


def test_bad_step_is_an_error_naming_the_kernel(path):
    y = poisoned(8, "int32")
    if path == "ptx":
        pytest.skip("the loop as written: scf.for's step must be positive, not checked")
    with pytest.raises(ValueError, match="_count_items.*step 0"):
        _count_items[(2,)](np.zeros(4, np.int32), y, 8, 0)


def test_items_past_the_int64_range_are_refused(path):
    """item = pid + j * step is computed in i64: on a grid whose last program's item would pass
    2^63 (an i64 bound near it, a large step), a wrapped item of an idle program would be below
    the bound and run. The host refuses such a launch, naming the kernel."""
    if path == "ptx":
        pytest.skip("the loop as written")
    from triton_tile.backends.grid_stride import GridStride

    compiled = _count_items[(2,)](np.zeros(4, np.int32), poisoned(8, "int32"), 8, 2)
    g = GridStride("_count_items", compiled.asm["grid"])
    assert g.launches((3, 1, 1), (8, 2)) == [(3, 4, 1)]  # the grid function itself
    end, step = 2**63 - 2, 2**40
    g._evaluate = lambda programs, values: (end, step)
    with pytest.raises(ValueError, match="_count_items.*past the int64 range"):
        g.launches((3, 1, 1), (end, step))
    end = 2**62  # 2**22 iterations: the last program's item, 2 + (65535 * 65 - 1) * 2**40, fits
    assert g.launches((3, 1, 1), (end, step)) == [(3, 65535, 65)]
    # The edge: 131070 iterations on (programs, 65535, 2), the last program's item exactly
    # 2^63 - 1 with 110592 programs; one program more passes it.
    step = (2**63 - 1) // (65535 * 2 - 1)
    end, programs = step * (65535 * 2 - 1) + 1, 2**63 - (65535 * 2 - 1) * step
    assert (programs - 1) + (65535 * 2 - 1) * step == 2**63 - 1
    assert g.launches((programs, 1, 1), (end, step)) == [(programs, 65535, 2)]
    with pytest.raises(ValueError, match="past the int64 range"):
        g.launches((programs + 1, 1, 1), (end, step))


@triton.jit
def _counter_beside_the_item(X, Y, n, step):
    """Tutorial 09's persistent matmuls carry their epilogue's tile counter beside the loop's
    own (tile_id_c += NUM_SMS): a closed form of the iteration, so the loop still flattens."""
    tile_c = tl.program_id(0) - step
    for item in range(tl.program_id(0), n, step):
        x = tl.load(X + item)
        tile_c += step
        tl.store(Y + tile_c, x * 5 + tile_c)


@pytest.mark.parametrize("programs, step", [(4, 4), (3, 5), (6, 2)])
def test_a_counter_stepped_with_the_loop(programs, step, path, rng):
    x = numpy_random(123, "int32", rng, low=-100, high=100)
    y = poisoned(123, "int32")
    compiled = _counter_beside_the_item[(programs,)](x, y, 123, step)
    want = poisoned(123, "int32")
    items = sorted(set(_items(programs, 123, step)))
    want[items] = x[items] * 5 + np.array(items, np.int32)
    assert_equal(y, want)
    assert ("grid" in compiled.asm) == (path == "tile")


# Kernels whose items cannot run in any order keep their loop.

@triton.jit
def _running_sum(X, Y, n):  # each item reads what the one before it wrote
    for item in range(tl.program_id(0), n, 1):
        prev = tl.load(Y + item - 1, mask=item > 0, other=0)
        tl.store(Y + item, prev + tl.load(X + item))


def test_items_reading_what_items_write_keep_the_loop(path, rng):
    x = numpy_random(200, "int32", rng, low=-50, high=50)
    y = poisoned(200, "int32")
    compiled = _running_sum[(1,)](x, y, 200)
    assert_equal(y, np.cumsum(x).astype(np.int32))
    assert "grid" not in compiled.asm


@triton.jit
def _last_item(Last, n, step):  # one location per program, each item overwrites it
    for item in range(tl.program_id(0), n, step):
        tl.store(Last + tl.program_id(0), item)


def test_a_store_not_addressed_by_the_item_keeps_the_loop(path):
    last = poisoned(5, "int32")
    compiled = _last_item[(5,)](last, 103, 5)
    assert_equal(last, np.array([max(range(p, 103, 5)) for p in range(5)], np.int32))
    assert "grid" not in compiled.asm


@triton.jit
def _ticket_items(Tickets, Next, n, step):  # the atomic's old value is used
    for item in range(tl.program_id(0), n, step):
        tl.store(Tickets + item, tl.atomic_add(Next, 1))


@triton.jit
def _carried_sum(X, Sums, n, step):  # a value carried from item to item
    acc = 0
    for item in range(tl.program_id(0), n, step):
        acc += tl.load(X + item)
    tl.store(Sums + tl.program_id(0), acc)


@triton.jit
def _second_axis(X, Y, n, step):  # program_id(1) would number iterations
    for item in range(tl.program_id(0), n, step):
        tl.store(Y + tl.program_id(1) * n + item, tl.load(X + item) + tl.program_id(1))


def test_other_loops_keep_their_form(path, rng):
    x = numpy_random(100, "int32", rng, low=-50, high=50)
    tickets, nxt = poisoned(100, "int32"), np.zeros(1, np.int32)
    k1 = _ticket_items[(4,)](tickets, nxt, 100, 4)
    assert_equal(np.sort(tickets), np.arange(100, dtype=np.int32))
    sums = poisoned(4, "int32")
    k2 = _carried_sum[(4,)](x, sums, 100, 4)
    assert_equal(sums, np.array([x[p::4].sum() for p in range(4)], np.int32))
    y = poisoned(200, "int32")
    k3 = _second_axis[(3, 2)](x, y, 100, 3)
    assert_equal(y, np.concatenate([x, x + 1]))
    assert not any("grid" in k.asm for k in (k1, k2, k3))


def test_aliased_arguments_keep_the_loop(path, rng):
    """The same array as X and Y (the launch's alias classes): items read what others wrote."""
    x = numpy_random(64, "int32", rng, low=-50, high=50)
    want = x.copy()
    for item in range(4):
        s = slice(item * BLOCK, (item + 1) * BLOCK)
        want[s] = want[s] * 3 + item
    compiled = _scale_items[(2,)](x, x, 64, STEP=2, BLOCK=BLOCK)
    assert_equal(x, want)
    assert "grid" not in compiled.asm


def test_switched_off(path, rng, monkeypatch):
    monkeypatch.setenv("TRITON_TILE_GRID_STRIDE", "0")
    x = numpy_random(100, "int32", rng, low=-50, high=50)
    y = poisoned(100, "int32")
    compiled = _scale_items[(3,)](x, y, 100, STEP=3, BLOCK=BLOCK)
    assert_equal(y, x * 3 + np.repeat(np.arange(7), BLOCK)[:100])
    assert "grid" not in compiled.asm


def test_per_launch_and_per_config(path, rng):
    """grid_stride=False (a launch keyword, or a Config's) keeps the loop for one kernel where
    the loop as written is faster (tutorial 09's pointer matmul at 4 stages on an H200)."""
    x = numpy_random(100, "int32", rng, low=-50, high=50)
    want = x * 3 + np.repeat(np.arange(7), BLOCK)[:100]
    for flag in (False, True):
        y = poisoned(100, "int32")
        compiled = _scale_items[(3,)](x, y, 100, STEP=3, BLOCK=BLOCK, grid_stride=flag)
        assert_equal(y, want)
        assert ("grid" in compiled.asm) == (flag and path == "tile")
    with pytest.raises(Exception, match="grid_stride must be True, False or None"):
        _scale_items[(3,)](x, y, 100, STEP=3, BLOCK=BLOCK, grid_stride="yes")

    tuned = triton.autotune(configs=[triton.Config({}, grid_stride=False)], key=["n"])(
        _scale_items)
    y = poisoned(100, "int32")
    compiled = tuned[(3,)](x, y, 100, STEP=3, BLOCK=BLOCK)
    assert_equal(y, want)
    assert "grid_stride: False" in str(tuned.best_config) and "grid" not in compiled.asm


@triton.jit
def _rows_then_blocks(X, Y, n, step, INNER: tl.constexpr):
    for item in range(tl.program_id(0), n, step):
        acc = 0
        for k in range(INNER):  # an inner loop: the default makes a grid of the outer one
            acc += tl.load(X + item * INNER + k)
        tl.store(Y + item, acc)


def test_the_default_flattens_loops_that_hold_loops(path, rng, monkeypatch):
    monkeypatch.setenv("TRITON_TILE_GRID_STRIDE", "auto")
    x = numpy_random(300, "int32", rng, low=-50, high=50)
    y = poisoned(100, "int32")
    nested = _rows_then_blocks[(7,)](x, y, 100, 7, INNER=3)
    assert_equal(y, x.reshape(100, 3).sum(1).astype(np.int32))
    y = poisoned(100, "int32")
    flat = _scale_items[(3,)](x, y, 100, STEP=3, BLOCK=BLOCK)  # no inner loop: as written
    assert_equal(y, x[:100] * 3 + np.repeat(np.arange(7), BLOCK)[:100])
    assert ("grid" in nested.asm) == (path == "tile") and "grid" not in flat.asm


@triton.jit
def _iteration_counter(Y, n, step):
    k = 0
    for item in range(tl.program_id(0), n, step):
        tl.store(Y + item, k)  # the program's iteration: item // step when the grid is the step
        k += 1


def test_a_counter_of_iterations_keeps_its_value(path):
    """A counter stepped with the loop depends on the iteration, not only the item: the grid
    of items stays two-dimensional (the one-dimensional grid has no iteration number)."""
    y = poisoned(50, "int32")
    compiled = _iteration_counter[(4,)](y, 50, 4)
    assert_equal(y, (np.arange(50) // 4).astype(np.int32))
    assert ("grid" in compiled.asm) == (path == "tile")


@triton.jit
def _step_read_by_the_body(Y, n, two):
    step = tl.num_programs(0) * two  # on a grid of n programs the kernel's count is n, not G
    for item in range(tl.program_id(0), n, step):
        tl.store(Y + item, step)


@triton.jit
def _bound_from_the_grid(Y, c):
    g = tl.num_programs(0)
    for item in range(tl.program_id(0), c - g, g):
        tl.store(Y + item, item + 1)


def test_values_of_the_grid_keep_their_meaning(path):
    """A bound or step computed from num_programs(0) keeps the launch's value (a 1-D grid of
    items would change the count the kernel reads: such kernels get the 2-D one)."""
    y = poisoned(4, "int32")
    _step_read_by_the_body[(8,)](y, 4, 2)
    assert_equal(y, np.full(4, 16, np.int32))
    y = poisoned(100, "int32")
    _bound_from_the_grid[(10,)](y, 100)
    want = poisoned(100, "int32")
    want[:90] = np.arange(1, 91, dtype=np.int32)
    assert_equal(y, want)


@triton.jit
def _slot_of_a_counter(Y, n, step, s):
    c = 0
    for item in range(tl.program_id(0), n, step):
        tl.store(Y + c, item)  # c += s may stay put (s = 0): one address for every item
        c += s


def test_a_store_through_a_counter_that_may_not_move_keeps_the_loop(path):
    y = poisoned(4, "int32")
    compiled = _slot_of_a_counter[(1,)](y, 4000, 1, 0)
    assert y[0] == 3999 and "grid" not in compiled.asm
