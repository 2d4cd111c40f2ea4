"""The Tile IR -> bytecode walker (`_core.tile_to_bytecode`), end to end.

Every case of emit_cases.py is converted from TTIR, written as bytecode, decoded and
re-encoded byte for byte by our reader, and compiled by NVIDIA's tileiras for sm_90 (Hopper)
and sm_100 (Blackwell); tileirdisasm checks that attributes decode to what we meant. The
tileiras part skips when tileiras is not installed (CI installs it: see INSTALL_HINT).
"""

from __future__ import annotations

import os
import re
import subprocess
from concurrent.futures import ThreadPoolExecutor

import pytest
from emit_cases import Case, all_cases, convert, kernel

from triton_tile import _core as C
from triton_tile.backends import tileiras

CASES = all_cases()
ARCHS = ("sm_90", "sm_100")
MAGIC = b"\x7fTileIR\x00"


def emit(case: Case, version=None) -> bytes:
    module, _keep = convert(case)
    assert module is not None, f"conversion failed: {_keep.unsupported}"
    return C.tile_to_bytecode(module, version)


@pytest.fixture(scope="module")
def bytecodes():
    return {name: emit(case) for name, case in CASES.items()}


@pytest.mark.parametrize("name", sorted(CASES))
def test_round_trip(bytecodes, name):
    data = bytecodes[name]
    assert data[:8] == MAGIC and data[8:10] == bytes([13, 3])  # 13.3 unless 13.4 is needed
    assert data[-1] == 0  # the End section is the last byte
    assert C.bytecode_reencode(data) == data
    assert f"entry @{CASES[name].kernel}(" in C.bytecode_dump(data)


def test_golden_cases_are_covered():
    names = [n for n in CASES if n.startswith("golden/")]
    assert len(names) >= 10, names  # the capture of test_ttir_to_tile.py's cases works


def test_version_choice_and_13_4():
    case = CASES["control_flow"]
    module, _keep = convert(case)
    assert C.bytecode_version(module) == "13.3"
    v134 = C.tile_to_bytecode(module, "13.4")
    assert v134[8:10] == bytes([13, 4]) and C.bytecode_reencode(v134) == v134
    for bad in ("13.9", "13", "x.y", "12.0"):
        with pytest.raises(RuntimeError, match="version"):
            C.tile_to_bytecode(module, bad)
    try:
        tileiras.info()
    except tileiras.TileirasNotFoundError:
        return
    for arch in ARCHS:
        assert tileiras.compile(v134, arch, cache=False)[:4] == b"\x7fELF"


# ------------------------------------------------------------------------ errors name the op


def _first(module, name):
    def walk(block):
        for op in block.ops:
            if op.name == name:
                return op
            for r in range(op.num_regions):
                for b in op.region(r).blocks:
                    found = walk(b)
                    if found is not None:
                        return found
        return None

    return walk(module.funcs[0].region(0).blocks[0])


def _vadd():
    return convert(CASES["golden/views/masked_contiguous_access"])


def test_unknown_attribute_is_an_error():
    module, _keep = _vadd()
    _first(module, "cuda_tile.addf").set_attr("fancy", C.unit_attr())
    with pytest.raises(RuntimeError, match=r"op 'cuda_tile.addf'.*attribute 'fancy'"):
        C.tile_to_bytecode(module)


def test_out_of_range_enum_is_an_error():
    module, _keep = _vadd()
    _first(module, "cuda_tile.cmpi").set_attr("comparison_predicate",
                                              C.int_attr(9, C.int_type(32)))
    with pytest.raises(RuntimeError, match=r"cuda_tile.cmpi.*comparison_predicate.*range"):
        C.tile_to_bytecode(module)


def test_non_tile_op_is_an_error():
    module, _keep = _vadd()
    b = C.Builder(module)
    b.set_insertion_point_before(_first(module, "cuda_tile.return"))
    i32 = C.int_type(32)
    b.create("arith.constant", [], [i32], {"value": C.int_attr(1, i32)})
    with pytest.raises(RuntimeError, match=r"op 'arith.constant'.*no Tile IR bytecode encoding"):
        C.tile_to_bytecode(module)


def test_bad_hints_are_errors():
    vadd = CASES["golden/views/masked_contiguous_access"]
    # tileiras ignores hints it does not understand, so a wrong value would be lost silently.
    module, _keep = convert(vadd._replace(options=dict(occupancy=64)))
    with pytest.raises(RuntimeError, match=r"hint 'occupancy' out of range: 64"):
        C.tile_to_bytecode(module)


def test_print_may_carry_its_token(tmp_path):
    """A print with a token result and operand (to keep prints in program order)."""
    module, _keep = convert(CASES["debug"])
    b = C.Builder(module)
    b.set_insertion_point_before(_first(module, "cuda_tile.return"))
    tok = b.create("cuda_tile.make_token", [], [C.token_type()]).result(0)
    for text in ("first\n", "second\n"):
        tok = b.create("cuda_tile.print", [tok], [C.token_type()],
                       {"format": C.str_attr(text),
                        "operandSegmentSizes": C.i32_array_attr([0, 1])}).result(0)
    data = C.tile_to_bytecode(module)
    assert C.bytecode_reencode(data) == data
    listing = _disasm(data, tmp_path)
    first = re.search(r'(%\w+) = print_tko "first\\0A" token=(%\w+)', listing)
    assert first, listing
    assert f'print_tko "second\\0A" token={first.group(1)}' in listing
    assert tileiras.compile(data, "sm_90", cache=False)[:4] == b"\x7fELF"


def test_assume_predicates(tmp_path):
    """The conversion emits no assume yet; the walker encodes div_by and bounded."""
    module, _keep = _vadd()
    body = module.funcs[0].region(0).blocks[0]
    b = C.Builder(module)
    b.set_insertion_point_before(body.ops[0])
    i32 = C.int_type(32)
    ptr, n = body.arg(0), body.arg(3)
    b.create("cuda_tile.assume", [ptr], [ptr.type], {"div_by": C.int_attr(16, i32)})
    b.create("cuda_tile.assume", [n], [n.type],
             {"bounded": C.i32_array_attr([0, -(2**63)])})  # lb 0, no upper bound
    data = C.tile_to_bytecode(module)
    assert C.bytecode_reencode(data) == data
    listing = _disasm(data, tmp_path)
    assert "assume div_by<16>, %arg0 : tile<ptr<f32>>" in listing
    assert "assume bounded<0, ?>, %arg3 : tile<i32>" in listing
    assert tileiras.compile(data, "sm_90", cache=False)[:4] == b"\x7fELF"


def test_all_false_mask_load():
    body = """
    %0 = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
    %c0 = arith.constant dense<0> : tensor<16xi32>
    %m = arith.cmpi slt, %0, %c0 : tensor<16xi32>
    %1 = tt.splat %arg0 : !tt.ptr<f32> -> tensor<16x!tt.ptr<f32>>
    %2 = tt.addptr %1, %0 : tensor<16x!tt.ptr<f32>>, tensor<16xi32>
    %3 = tt.load %2, %m : tensor<16x!tt.ptr<f32>>
    %4 = tt.splat %arg1 : !tt.ptr<f32> -> tensor<16x!tt.ptr<f32>>
    %5 = tt.addptr %4, %0 : tensor<16x!tt.ptr<f32>>, tensor<16xi32>
    tt.store %5, %3 : tensor<16x!tt.ptr<f32>>"""
    emit(Case(kernel(body), "k", {}))


# ------------------------------------------------------------------------------- tileiras


@pytest.fixture(scope="module")
def tileiras_results(bytecodes):
    """Compiles every case for every arch once, in parallel: (case, arch) -> error or None."""
    try:
        tileiras.info()
    except tileiras.TileirasNotFoundError as e:
        pytest.skip(f"tileiras not installed ({e}); CI installs it with: "
                    f"{tileiras.INSTALL_HINT}")

    def one(job):
        name, arch = job
        try:
            assert tileiras.compile(bytecodes[name], arch, cache=False)[:4] == b"\x7fELF"
            return job, None
        except tileiras.TileirasError as e:
            return job, str(e)

    jobs = [(n, a) for n in sorted(bytecodes) for a in ARCHS]
    with ThreadPoolExecutor(max_workers=min(8, os.cpu_count() or 2)) as pool:
        return dict(pool.map(one, jobs))


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("name", sorted(CASES))
def test_tileiras_accepts(tileiras_results, name, arch):
    error = tileiras_results[(name, arch)]
    assert error is None, error


def _disasm(data: bytes, tmp_path) -> str:
    try:
        tool = tileiras.info().path
    except tileiras.TileirasNotFoundError:
        pytest.skip("tileiras not installed")
    disasm = os.path.join(os.path.dirname(tool), "tileirdisasm")
    if not os.path.exists(disasm):
        pytest.skip("tileirdisasm not next to tileiras")
    src = tmp_path / "k.tilebc"
    src.write_bytes(data)
    run = subprocess.run([disasm, str(src)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    return run.stdout


def test_disasm_shows_what_we_meant(bytecodes, tmp_path):
    casts = _disasm(bytecodes["casts"], tmp_path)
    assert "constant <f16: 1.500000e+00> : tile<16xf16>" in casts
    assert "constant <bf16: -2.000000e+00> : tile<16xbf16>" in casts
    assert "constant <i1: true> : tile<16xi1>" in casts
    atomics = _disasm(bytecodes["atomics"], tmp_path)
    assert "atomic_rmw_tko acq_rel device" in atomics and ", add," in atomics
    assert "atomic_rmw_tko relaxed tl_blk" in atomics and ", max," in atomics
    assert "atomic_rmw_tko release sys" in atomics and ", xchg," in atomics
    assert "atomic_cas_tko acq_rel device" in atomics
    debug = _disasm(bytecodes["debug"], tmp_path)
    assert 'assert %1, "x must be non-negative"' in debug
    assert re.search(r'print_tko " n:  %d\\0A", %arg2 (token=%\w+ )?: tile<i32> -> token', debug)
    hints = _disasm(bytecodes["hints/sm_100"], tmp_path)
    assert "optimization_hints=<default = {num_cta_in_cga = 2, occupancy = 4}>" in hints
    assert "optimization_hints = <default = {latency = 3}>" in hints
    fast = _disasm(bytecodes["math/approx_ftz"], tmp_path)
    assert "sqrt %tile rounding<approx> flush_to_zero" in fast
    scan = _disasm(bytecodes["reduce_scan"], tmp_path)
    assert "reverse=true" in scan and "identities=[1 : i32]" in scan


def test_line_info_round_trips_and_corrupt_bytes_are_errors(bytecodes):
    """Every case carries its ops' source lines (a Debug section, id 3 with the alignment flag)
    that the reader decodes and the writer reproduces; a file with any one byte changed or cut
    short is a clean error or another valid module, never a crash."""
    data = bytecodes["control_flow"]
    assert tileiras.has_line_info(data) and C.bytecode_reencode(data) == data
    bare = C.tile_to_bytecode(convert(CASES["control_flow"])[0], line_info=False)
    assert not tileiras.has_line_info(bare) and C.bytecode_reencode(bare) == bare
    assert len(bare) < len(data)
    for i in range(len(data)):
        for value in (0x00, 0xFF, data[i] ^ 0x01):
            corrupt = data[:i] + bytes([value]) + data[i + 1:]
            try:
                C.bytecode_reencode(corrupt)
            except (RuntimeError, ValueError):
                pass
        try:
            C.bytecode_reencode(data[:i])
        except (RuntimeError, ValueError):
            pass
