"""Number formatting shared by the pages and the markdown export (templates format nothing)."""

from __future__ import annotations

from datetime import datetime


def number(value: float | None, unit: str = "") -> str:
    """3-4 significant figures, thousands separated, with the unit; an em dash for None."""
    if value is None:
        return "—"
    magnitude = abs(value)
    if magnitude >= 1000:
        text = f"{value:,.0f}"
    elif magnitude >= 10:
        text = f"{value:.1f}"
    elif magnitude >= 1:
        text = f"{value:.2f}"
    else:
        text = f"{value:.3g}"
    return f"{text} {unit}".strip()


def tok_s(value: float | None) -> str:
    return number(value, "tok/s")


def size(n_bytes: float) -> str:
    """Bytes in GB, MB or KB, whichever reads best."""
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("KB", 1e3)):
        if abs(n_bytes) >= scale:
            return number(n_bytes / scale, unit)
    return number(n_bytes, "B")


def factor(value: float | None) -> str:
    return "—" if value is None else f"{value:.2f}x"


def share(value: float) -> str:
    return f"{value * 100:.0f}%" if value >= 0.01 or value == 0 else f"{value * 100:.1f}%"


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


def kernel_name(name: str, limit: int = 100) -> str:
    """A readable kernel name: no "void ", template arguments and parameter lists folded to "…"."""
    text = name.removeprefix("void ")
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
    """A measured value as the benchmark tools print it: two decimals (2249.25, 89.77), more when small, and
    in powers of ten when absurdly large (1e+308 stays readable)."""
    if abs(value) >= 1e9:
        return f"{value:.4g}"
    return f"{value:.2f}" if abs(value) >= 1 or value == 0 else f"{value:.4g}"
