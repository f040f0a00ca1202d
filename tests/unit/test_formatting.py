"""One way to write a number: 3 significant figures by magnitude, a unit on every value, bytes apart from
parameter counts, metrics in words, verdicts written with the same digits."""

import pytest

from tierplan.planning.projection import verdict
from tierplan.text import formatting as fmt


@pytest.mark.parametrize(("value", "text"), [
    (910.0, "910"), (1015.4, "1,015"), (2249.25, "2,249"), (60.94, "60.9"), (9.274, "9.27"), (0.5812, "0.581"), (0.6, "0.600"),
    (99.96, "100"), (9.996, "10.0"), (0.9996, "1.00"), (0.0, "0"), (-12.34, "-12.3"),
    (6.62494686567164e20, "6.62×10²⁰"), (0.000123, "1.23×10⁻⁴"), (float("inf"), "∞"),
])
def test_digits_keeps_three_significant_figures_by_magnitude(value, text):
    assert fmt.digits(value) == text


def test_every_value_carries_its_unit_and_none_is_a_dash():
    assert fmt.tok_s(2249.25) == "2,249 tok/s"
    assert fmt.number(89.77, "ms") == "89.8 ms"
    assert fmt.tok_s(None) == "—"


def test_bytes_take_si_prefixes_and_parameter_counts_stay_apart():
    assert fmt.size(1) == "1 B"
    assert fmt.size(327_680) == "328 KB"
    assert fmt.size(9.95e9) == "9.95 GB"
    assert fmt.size(1.2e12) == "1.20 TB"
    assert fmt.params(284) == "284B params"
    assert fmt.params(0.6) == "0.6B params"
    assert fmt.weight_size(0.53125) == "4.25 bits a weight (0.531 bytes)"
    assert fmt.weight_size(2) == "16 bits a weight (2.00 bytes)"


def test_counts_and_workloads_are_thousands_separated():
    assert fmt.count(1024) == "1,024" and fmt.count(8) == "8"
    assert fmt.workload(16, 1024, 256) == "concurrency 16, 1,024 in / 256 out tokens"


def test_factors_and_verdicts_are_written_with_the_same_digits():
    assert fmt.factor(1.7) == "1.70x"
    assert fmt.factor(6.62494686567164e20) == "6.62×10²⁰x"
    assert fmt.verdict(verdict(126.46, 1000.0)) == "short by 7.91x"
    assert fmt.verdict(verdict(1000.0, 1000.0)) == "reaches the target"
    assert fmt.verdict(verdict(None, 1000.0)) == "no baseline measured"
    assert fmt.ceiling_verdict(1000.0, 320.0) == (
        "target 3.12x above the hardware ceiling: not reachable on this hardware whatever the plan")
    assert fmt.ceiling_verdict(300.0, 400.0) == "target within the hardware ceiling (75% of it)"
    assert fmt.ceiling_verdict(300.0, None) is None
    assert fmt.ceiling_verdict(300.0, 400.0, 200.0, 120.0) == (
        "target within the hardware ceiling (75% of it) but 1.50x above the achievable ceiling at the efficiency "
        "measured so far (200 tok/s): it needs kernels more efficient than the campaign's best step; the plan reaches "
        "120 tok/s, 2.50x short")


def test_metrics_read_in_words_with_their_unit_on_request():
    assert fmt.metric("output_tok_s") == "output throughput"
    assert fmt.metric("p99_ttft_ms", unit=True) == "P99 time to first token (ms)"
    assert fmt.metric("median_tpot_ms") == "median time per output token"


def test_relative_changes_keep_small_ones_visible():
    assert fmt.change(1.0315) == "+3.2%" and fmt.change(0.931) == "-6.9%"
    assert fmt.change(0.999214) == "-0.079%" and fmt.change(1.0) == "+0.0%"


def test_kernel_names_are_read_back_from_their_mangled_form():
    mangled = ("_ZN7cutlass13device_kernelIN4at4cuda6detail25enable_3x_kernel_for_sm9xINS_4gemm6kernel13Gemm"
               "UniversalEEEvNT_6ParamsE")
    assert fmt.kernel_name(mangled) == "cutlass::device_kernel<…>"
    assert fmt.kernel_name("_Z17fused_add_rmsnormPf") == "fused_add_rmsnorm"
    assert fmt.kernel_name("void at::native::elementwise_kernel<128, 4>(int, Foo)") == (
        "at::native::elementwise_kernel<…>(…)")
    assert fmt.kernel_name("_ZN") == "_ZN"  # not a name it can read: shown as it is
