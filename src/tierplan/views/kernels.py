"""The kernels a regime's profile named, largest first: what an effect that targets kernels can name, and, where
Nsight Compute gave them, how each launched (how far it is from its floor)."""

from __future__ import annotations

from tierplan.services.profiles import KernelShare
from tierplan.text import formatting as fmt

SHOWN = 15


def kernel_rows(kernels: list[KernelShare]) -> list[dict]:
    """Each kernel for the regime page: its short name (the full one on hover), bucket, share of the step, launches a
    step, launch figures and blocks per SM."""
    return [{"name": fmt.kernel_name(k.name), "full_name": k.name, "bucket": k.bucket, "share": fmt.share(k.share),
             "calls": f"{k.calls_a_step:.3g}" if k.calls_a_step else "", "launch": k.launch,
             "blocks": f"{k.blocks_per_sm:.3g}" if k.blocks_per_sm is not None else ""} for k in kernels]
