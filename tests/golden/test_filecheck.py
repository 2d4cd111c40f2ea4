"""The golden tests' FileCheck and the opt tool fail when they should."""

import pytest
from filecheck import CheckFailure, filecheck, parse_checks

from triton_tile.tools import opt

OUT = "a = 1\nb = add a, a\nc = mul b, b\nstore c\n"


def check(directives: str, output: str = OUT) -> None:
    filecheck(output, parse_checks(directives), "t")


def test_matches_in_order_with_captures():
    check("// CHECK: [[X:\\w]] = add a, a\n// CHECK-NEXT: = mul [[X]], [[X]]\n"
          "// CHECK-NOT: div\n// CHECK: store {{[a-z]}}")


@pytest.mark.parametrize("directives", [
    "// CHECK: sub",                                   # absent
    "// CHECK: mul\n// CHECK: add",                    # out of order
    "// CHECK: a = 1\n// CHECK-NEXT: mul",             # not on the next line
    "// CHECK: add\n// CHECK-NOT: mul\n// CHECK: store",  # forbidden between
    "// CHECK: add\n// CHECK-SAME: mul",               # not on the same line
    "// CHECK: [[X:\\w]] = add\n// CHECK: store [[X]]",  # capture differs
    "// CHECK-COUNT-2: add",                           # only one
])
def test_fails(directives):
    with pytest.raises(CheckFailure):
        check(directives)


def test_a_test_without_checks_or_with_a_misspelt_one_fails():
    with pytest.raises(CheckFailure, match="cannot fail"):
        check("// nothing here")
    with pytest.raises(CheckFailure, match="unknown directive"):
        check("// CHECK-NXT: add")


def test_opt_reports_bad_input_and_unsupported_ops(tmp_path, capsys):
    f = tmp_path / "k.ttir"
    f.write_text("module {\n  tt.func public @k(%arg0: !tt.ptr<f32>) {\n"
                 "    %0 = tt.make_range {end = 2048 : i32, start = 0 : i32} : tensor<2048xi32>\n"
                 "    %1 = tt.histogram %0 : tensor<2048xi32> -> tensor<1024xi32>\n"
                 "    %2 = tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32>\n"
                 "    %3 = arith.sitofp %1 : tensor<1024xi32> to tensor<1024xf32>\n"
                 "    %4 = tt.splat %arg0 : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>>\n"
                 "    %5 = tt.addptr %4, %2 : tensor<1024x!tt.ptr<f32>>, tensor<1024xi32>\n"
                 "    tt.store %5, %3 : tensor<1024x!tt.ptr<f32>>\n    tt.return\n  }\n}\n")
    assert opt.main([str(f), "--passes", "no-such-pass"]) == 2
    assert "unknown pass 'no-such-pass'" in capsys.readouterr().err
    assert opt.main([str(f), "--convert-to-tile", "--tile-option", "occupancy=x"]) == 2
    assert "occupancy takes a int" in capsys.readouterr().err
    assert opt.main([str(tmp_path / "missing.ttir")]) == 2
    assert "missing.ttir" in capsys.readouterr().err
    assert opt.main([str(f), "--convert-to-tile"]) == 1
    err = capsys.readouterr().err
    assert "k.ttir:4:5: 'tt.histogram'" in err
