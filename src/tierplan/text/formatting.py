"""Number formatting shared by the pages and the markdown export (templates format nothing)."""

from __future__ import annotations

import math
from datetime import datetime

from tierplan.planning.metrics import metric_label, metric_unit
from tierplan.planning.projection import Verdict

_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def digits(value: float) -> str:
    """A number to 3 significant figures by magnitude, every digit of the whole part kept and thousands separated
    (1,015; 910; 60.9; 9.27; 0.581), in powers of ten when absurdly large or small (6.62×10²⁰)."""
    magnitude = abs(value)
    if math.isinf(value) or math.isnan(value):
        return "∞" if value > 0 else "−∞" if value < 0 else "—"
    if magnitude >= 1e9 or 0 < magnitude < 1e-3:
        mantissa, exponent = f"{value:.2e}".split("e")
        return f"{mantissa}×10{str(int(exponent)).translate(_SUPERSCRIPT)}"
    rounded = abs(float(f"{value:.3g}"))  # 99.96 is 100, not 100.0
    if magnitude >= 100 or rounded >= 100:
        return f"{value:,.0f}"
    if rounded >= 10:
        return f"{value:.1f}"
    if rounded >= 1:
        return f"{value:.2f}"
    return "0" if value == 0 else f"{value:#.3g}"


def number(value: float | None, unit: str = "") -> str:
    """A value with its unit, 3 significant figures (digits); an em dash for None."""
    if value is None:
        return "—"
    return f"{digits(value)} {unit}".strip()


def tok_s(value: float | None) -> str:
    return number(value, "tok/s")


def size(n_bytes: float) -> str:
    """Bytes with an SI prefix: 1 B, 328 KB, 9.95 GB (never a parameter count: see params)."""
    for unit, scale in (("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("KB", 1e3)):
        if abs(n_bytes) >= scale:
            return number(n_bytes / scale, unit)
    return f"{n_bytes:g} B"  # a count of bytes: 1 B, 512 B


def params(billions: float) -> str:
    """A parameter count as models are named, kept apart from bytes: 284B params, 13B params, 0.6B params."""
    return f"{plain(billions)}B params"


def weight_size(n_bytes: float) -> str:
    """What one weight takes, in bits as quantization formats are named, bytes beside: "4.25 bits a weight
    (0.531 bytes)" for MXFP4 with its scales, never "0.53125 B" beside "284B params"."""
    return f"{plain(n_bytes * 8)} bits a weight ({digits(n_bytes)} bytes)"


def count(value: float) -> str:
    """A count of things, thousands separated: 8, 188, 1,024."""
    return f"{value:,.0f}" if float(value).is_integer() else plain(value)


def workload(concurrency: int, input_tokens: int, output_tokens: int) -> str:
    """A regime's workload in words: "concurrency 16, 1,024 in / 256 out tokens"."""
    return f"concurrency {count(concurrency)}, {count(input_tokens)} in / {count(output_tokens)} out tokens"


def factor(value: float | None) -> str:
    """A speedup or a shortfall: 1.70x, 16.4x, 100x, 1,234x, 6.62×10²⁰x."""
    return "—" if value is None else f"{digits(value)}x"


def verdict(v: Verdict) -> str:
    """A projection against its target in words: "short by 7.91x", "reaches the target"."""
    if v.ratio is None:
        return "no baseline measured"
    return "reaches the target" if v.reaches else f"short by {factor(v.ratio)}"


def ceiling_verdict(target_tok_s: float, ceiling_tok_s: float | None, achievable_tok_s: float | None = None,
                    planned_tok_s: float | None = None) -> str | None:
    """The target against the physical ceiling, the achievable one and where the plan gets: never "within the
    ceiling" without how far the plan falls short."""
    if ceiling_tok_s is None:
        return None
    if target_tok_s > ceiling_tok_s:
        return (f"target {factor(target_tok_s / ceiling_tok_s)} above the hardware ceiling: "
                "not reachable on this hardware whatever the plan")
    words = f"target within the hardware ceiling ({share(target_tok_s / ceiling_tok_s)} of it)"
    if achievable_tok_s and target_tok_s > achievable_tok_s:
        words += (f" but {factor(target_tok_s / achievable_tok_s)} above the achievable ceiling at the efficiency "
                  f"measured so far ({tok_s(achievable_tok_s)}): it needs kernels more efficient than the campaign's "
                  "best step")
    if planned_tok_s and planned_tok_s < target_tok_s:
        words += f"; the plan reaches {tok_s(planned_tok_s)}, {factor(target_tok_s / planned_tok_s)} short"
    return words


def metric(name: str, unit: bool = False) -> str:
    """A metric in words ("output throughput"), with its unit in brackets when asked ("output throughput
    (tok/s)")."""
    words = metric_label(name)
    shown = metric_unit(name)
    return f"{words} ({shown})" if unit and shown else words


def share(value: float) -> str:
    return f"{value * 100:.0f}%" if value >= 0.01 or value == 0 else f"{value * 100:.1f}%"


def change(ratio: float) -> str:
    """A relative change, new over old: "+3.2%", "-6.9%", and small ones kept visible: "-0.079%"."""
    pct = (ratio - 1) * 100
    return f"{pct:+.1f}%" if abs(pct) >= 0.1 or pct == 0 else f"{pct:+.2g}%"


def days(value: float) -> str:
    return f"{plain(value)} d"


def date(value: datetime | None) -> str:
    return "—" if value is None else value.strftime("%Y-%m-%d")


def timestamp(value: datetime | None) -> str:
    return "—" if value is None else value.strftime("%Y-%m-%d %H:%M UTC")


def datetime_input(value: datetime | None) -> str:
    """The value an <input type=datetime-local> expects (UTC)."""
    return "" if value is None else value.strftime("%Y-%m-%dT%H:%M")


def plain(value: float) -> str:
    """A short number without trailing zeros: 2.5, 4, 0.63."""
    return f"{value:.4g}"


def input_number(value: float) -> str:
    """A stored number as a form input shows it: every digit it was saved with (0.53125, not 0.5312), so saving
    the form again keeps it; float noise past 15 digits goes (15, not 15.000000000000002)."""
    return f"{value:.15g}"


def three_point(low: float, likely: float, high: float, suffix: str = "") -> str:
    """The likely value, then the range: "2.5x (2–3x)"."""
    if low == likely == high:
        return f"{plain(likely)}{suffix}"
    return f"{plain(likely)}{suffix} ({plain(low)}–{plain(high)}{suffix})"


def probability(value: float | None) -> str:
    """A share of samples as a percentage; "<1%" rather than a misleading 0% when any sample made it."""
    if value is None:
        return "—"
    if 0 < value < 0.01:
        return "<1%"
    if 0.99 < value < 1:
        return ">99%"
    return f"{value * 100:.0f}%"


def _itanium_nested(name: str) -> str | None:
    """The qualified name of an Itanium-mangled symbol ("_ZN7cutlass13device_kernelI...E" is
    "cutlass::device_kernel<…>", "_Z17fused_add_rmsnormPf" is "fused_add_rmsnorm"), enough to read it; None when
    it is not a mangled name."""
    if not (name.startswith("_ZN") or name[2:3].isdigit() and name.startswith("_Z")):
        return None
    parts, i = [], 3 if name.startswith("_ZN") else 2
    while i < len(name) and name[i] in "rVKL":  # cv-qualifiers of a member function
        i += 1
    while i < len(name) and name[i].isdigit():
        j = i
        while j < len(name) and name[j].isdigit():
            j += 1
        length = int(name[i:j])
        parts.append(name[j:j + length])
        i = j + length
    if not parts:
        return None
    templated = i < len(name) and name[i] == "I"
    return "::".join(parts) + ("<…>" if templated else "")


def kernel_name(name: str, limit: int = 100) -> str:
    """A readable kernel name: no "void ", template arguments and parameter lists folded to "…", a mangled
    name read back to its qualified name (the full name stays in the title)."""
    text = _itanium_nested(name) or name.removeprefix("void ")
    out, depth = [], 0
    for char in text:
        if char in "<(":
            if depth == 0:
                out.append("<…>" if char == "<" else "(…)")
            depth += 1
        elif char in ">)" and depth:
            depth -= 1
        elif depth == 0:
            out.append(char)
    short = "".join(out).strip()
    return short if len(short) <= limit else short[: limit - 1] + "…"


def measured(value: float) -> str:
    """A measured value in full, as the benchmark tools print it (2249.25), for a title or an input beside the
    value shown by `number`; in powers of ten when absurdly large (1e+308 stays readable)."""
    if abs(value) >= 1e9:
        return f"{value:.4g}"
    return f"{value:.2f}" if abs(value) >= 1 or value == 0 else f"{value:.4g}"
