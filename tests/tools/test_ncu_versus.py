"""benchmarks/ncu_versus.py's specs are checked before anything is profiled, and its SASS
counter reads cuobjdump's listing. Runs on the CPU: no ncu, no GPU."""

import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "benchmarks"))
import ncu_versus as nv  # noqa: E402

FAMILIES = ["matmul", "grouped_gemm"]


def test_a_full_spec_splits_into_its_five_fields():
    spec = "grouped_gemm:1:BLOCK_N=256,occupancy=1:num_stages=3:grouped_matmul"
    assert nv.parse_spec(spec, FAMILIES) == ("grouped_gemm", "1", "BLOCK_N=256,occupancy=1",
                                             "num_stages=3", "grouped_matmul")
    assert nv.parse_spec("matmul:2", FAMILIES) == ("matmul", "2", "", "", "")


@pytest.mark.parametrize("spec, says", [
    ("softmax:0", "unknown family 'softmax'"),
    ("matmul:x", "INDEX 'x'"),
    ("matmul:2:BLOCK_N=2x6", "TILE_META entry 'BLOCK_N=2x6'"),
    ("matmul:2::num_stages", "STOCK_META entry 'num_stages'"),
    ("matmul", "want FAMILY:INDEX"),
    ("matmul:1:a=1:b=2:k:extra", "want FAMILY:INDEX"),
])
def test_a_bad_spec_is_named_with_its_field(spec, says):
    with pytest.raises(ValueError, match=f"'{spec}'.*" + says.replace("(", r"\(")):
        nv.parse_spec(spec, FAMILIES)


def test_the_sass_counter_reads_opcodes_predicates_and_widths(tmp_path, monkeypatch):
    listing = "\n".join([
        "        Function : k",
        "        /*0000*/                   LDC R1, c[0x0][0x28] ;   /* 0x00000a00ff017b82 */",
        "        /*0010*/               @P0 STG.E.U16 desc[UR4][R2.64], R5 ;   /* 0x0 */",
        "        /*0020*/              @!P1 STG.E.128 desc[UR4][R2.64], R4 ;   /* 0x0 */",
        "        /*0030*/                   HGMMA.64x256x16.F32 R24, gdesc[UR8], RZ ;   /* 0x0 */",
        "        /*0040*/                   WARPGROUP.DEPBAR.LE gsb0, 0x1 ;   /* 0x0 */",
        "        /*0050*/                   LDGSTS.E.BYPASS.128 [R1], desc[UR4][R2.64] ;   /* 0 */",
    ])
    usage = " Function k:\n  REG:168 STACK:0 SHARED:1024 LOCAL:0 CONSTANT[0]:584"

    class Done:
        def __init__(self, out):
            self.stdout = out

    monkeypatch.setattr(nv.subprocess, "run",
                        lambda cmd, **kw: Done(usage if "-res-usage" in cmd else listing))
    counts = nv._sass_counts("k.cubin", str(tmp_path / "k.sass"))
    assert counts["total"] == 6
    assert (counts["STG"], counts["HGMMA"], counts["WARPGROUP.DEPBAR"]) == (2, 1, 1)
    assert counts["LDGSTS"] == 1 and "LDG" not in counts  # (an LDGSTS is not an LDG)
    assert counts["widths"] == {"STG.E.U16": 1, "STG.E.128": 1}
    assert (counts["reg"], counts["stack"], counts["shared"]) == (168, 0, 1024)


def test_a_row_without_a_metric_shows_it_missing():
    row = nv._row("ours", {"Kernel Name": "k", "gpu__time_duration.sum": "2,500",
                           "launch__grid_size": "132"})
    assert row.startswith("| ours | k | 2.5 us | 132x?, ? regs |")


def test_the_memory_row_scales_rates_by_the_unit_ncu_gave():
    """DRAM bytes per second come in whatever unit ncu picked (its units row); the memory table
    prints GB/s, and a rate without a unit it knows as nan, not as a wrong number."""
    r = {"gpu__time_duration.sum": "21,500", "dram__bytes.sum.per_second": "2,125,412,816,691.5",
         "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed": "44.3"}
    r[nv.UNITS] = {"dram__bytes.sum.per_second": "byte/s"}
    assert nv._memory_row("ours", r).startswith("| ours | 21.5 us | 2125 | 44.3% |")
    r["dram__bytes.sum.per_second"] = "2.13"
    r[nv.UNITS] = {"dram__bytes.sum.per_second": "Tbyte/second"}
    assert nv._memory_row("ours", r).startswith("| ours | 21.5 us | 2130 |")
    r[nv.UNITS] = {"dram__bytes.sum.per_second": "furlong/s"}
    assert nv._memory_row("ours", r).startswith("| ours | 21.5 us | nan |")
