"""The kernels a regime's profile named, largest first: what an effect that targets kernels can name, and, where
Nsight Compute gave them, how each launched (how far it is from its floor)."""

from __future__ import annotations

from tierplan.db.repo import CampaignRows
from tierplan.db.tables import pk
from tierplan.text import formatting as fmt

SHOWN = 15


def profile_kernels(rows: CampaignRows, regime_id: int) -> list[dict]:
    """The largest SHOWN kernels of the regime's newest profile: name, bucket, share of the step, launches a step and
    launch figures; empty where the profile named no kernels (entered shares, an older import)."""
    profile = rows.profiles.get(regime_id)
    if profile is None:
        return []
    bucket_share = {s.bucket: s.share for s in rows.shares.get(pk(profile), [])}
    kernels = [(k, k.fraction * bucket_share.get(k.bucket, 0.0)) for k in rows.kernels.get(pk(profile), [])]
    kernels.sort(key=lambda pair: -pair[1])
    return [{"name": fmt.kernel_name(k.name), "full_name": k.name, "bucket": k.bucket, "share": fmt.share(share),
             "calls": f"{k.calls_a_step:.3g}" if k.calls_a_step else "", "launch": k.launch}
            for k, share in kernels[:SHOWN]]
