"""Effects that target kernels: a bucket effect may name kernels (a case-insensitive pattern over the kernel names a
trace or kernel table gave the regime's profile, matched by RE2 as kernel rules are) and then acts on their share of
its bucket alone.

Before planning, each regime's profile is split: the kernels of a bucket that an effect's pattern matches leave it
for a part named `bucket~pattern` (the first pattern that matches a kernel takes it). An effect on a bucket acts on
the bucket and every part split from it, so an attention-wide change still speeds up the split-K kernel; an effect
on kernels acts on its part alone. A profile with no kernel list (entered or assumed shares) has nothing to split,
and a kernel effect finds nothing to act on there: the plan says so rather than guess the kernels' share.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from tierplan.patterns import compile_pattern
from tierplan.planning.model import Campaign, Effect, PlanningError, Profile

PART = "~"  # between a bucket and the pattern of the kernels split from it


def target_of(effect: Effect) -> str:
    """What a bucket effect acts on: its bucket, or the part `bucket~pattern` of it."""
    if effect.kernels:
        return f"{effect.bucket or ''}{PART}{effect.kernels}"
    return effect.bucket or ""


def parent_of(bucket: str) -> str:
    """The bucket a part was split from (a bucket is its own)."""
    return bucket.split(PART, 1)[0]


def covers(target: str, bucket: str) -> bool:
    """Whether an effect on `target` acts on the step's `bucket`: a bucket covers the parts split from it."""
    return bucket == target if PART in target else parent_of(bucket) == target


def check_pattern(pattern: str) -> None:
    """PlanningError at the field unless `pattern` is a usable regular expression over kernel names."""
    if PART in pattern:
        raise PlanningError(f"a kernel pattern cannot hold {PART!r}", "kernels")
    try:
        compile_pattern(pattern)
    except ValueError as exc:
        raise PlanningError(str(exc), "kernels") from None


def split(profile: Profile, targets: Iterable[str]) -> Profile:
    """The profile with the kernels of each `bucket~pattern` target split from their bucket (see the module's
    docstring); a part no kernel falls in is not made."""
    if not profile.kernels:
        return profile
    shares, original = profile.as_dict(), profile.as_dict()
    taken: set[int] = set()
    for target in dict.fromkeys(t for t in targets if PART in t):
        bucket, pattern = target.split(PART, 1)
        found = compile_pattern(pattern)
        for n, (name, own, fraction, _calls) in enumerate(profile.kernels):
            if n in taken or own != bucket or bucket not in shares or not found.search(name):
                continue
            taken.add(n)
            moved = min(fraction * original[bucket], shares[bucket])
            shares[target] = shares.get(target, 0.0) + moved
            shares[bucket] -= moved
    return replace(profile, shares=tuple(shares.items()))


def kernel_share(profile: Profile | None, effect: Effect) -> float:
    """The share of the step the effect's kernels take in a profile (0: none matched, or no kernel list)."""
    if profile is None or not effect.kernels:
        return 0.0
    target = target_of(effect)
    return dict(split(profile, [target]).shares).get(target, 0.0)


def with_kernel_parts(campaign: Campaign) -> Campaign:
    """Every regime's profile split by the kernels the campaign's effects name (in plan order)."""
    targets = [target_of(e) for i in campaign.interventions for e in i.effects if e.kernels]
    if not targets:
        return campaign
    regimes = tuple(replace(r, profile=split(r.profile, targets)) if r.profile is not None else r
                    for r in campaign.regimes)
    return replace(campaign, regimes=regimes)
