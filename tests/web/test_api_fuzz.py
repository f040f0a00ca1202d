"""schemathesis against the OpenAPI document of a real `tierplan serve` (a process of its own, on the demo),
with every check it has and the project's schemathesis.toml: generated requests to every operation, schema-valid
and schema-breaking ones, path ids pinned to the demo's rows so that the handlers run, the deletes last so that
the others meet rows. No server error, every response as documented, every schema-invalid request refused and
every schema-valid one accepted (or answered 404, 409 or 412 for what the campaign holds, or 422 for the
cross-field rules the toml names). Once in single-user mode, once with a user and an API token.

(schemathesis's pytest fixture loader reads a pytest attribute that pytest 9.2 removed, so each operation's
Hypothesis strategy is run here by hand.)"""

from collections import Counter
from datetime import UTC, datetime
from itertools import product
from pathlib import Path

import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis.config import SchemathesisConfig
from schemathesis.generation.modes import GenerationMode

from tests.serving import start
from tierplan.db.engine import Sessions, make_engine
from tierplan.services.accounts import add_token, add_user

PINNED = {"campaign_id": 1, "regime_id": 1, "row_id": 1, "measurement_id": 1}
EXAMPLES = 12  # a mode and an operation
CONFIG = Path(__file__).parents[2] / "schemathesis.toml"


def test_single_user_mode_meets_every_check(sqlite_url, tmp_path):
    _served_fuzz(sqlite_url, tmp_path, headers={})


def test_with_users_and_a_token_meets_every_check(sqlite_url, tmp_path):
    engine = make_engine(sqlite_url)
    with Sessions(engine).writer() as session:
        add_user(session, "ana", "a long enough password", now=datetime.now(UTC))
        _, token = add_token(session, "ana", "fuzz", now=datetime.now(UTC))
    engine.dispose()
    _served_fuzz(sqlite_url, tmp_path, headers={"Authorization": f"Bearer {token}"})


def _served_fuzz(database_url: str, tmp_path: Path, headers: dict[str, str]) -> None:
    process, base = start(database_url, tmp_path / "server.log", upload_dir=str(tmp_path / "uploads"))
    try:
        cases, answered, failures = _fuzz(base, headers)
    finally:
        process.terminate()
        process.wait(timeout=10)
    print(f"{cases} generated requests, {len(failures)} failures; answers by status: {sorted(answered.items())}")
    assert cases >= 1000, cases
    assert answered[200] + answered[201] + answered[204] >= 300, answered  # the handlers ran, not only refusals
    assert not failures, "\n\n".join(failures[:10])


def _fuzz(base: str, headers: dict[str, str]) -> tuple[int, Counter[int], list[str]]:
    schema = schemathesis.openapi.from_url(f"{base}/openapi.json", config=SchemathesisConfig.from_path(CONFIG))
    operations = sorted((result.ok() for result in schema.get_all_operations()),
                        key=lambda operation: operation.method.upper() == "DELETE")
    assert len(operations) >= 30, len(operations)
    count, answered, failures = 0, Counter[int](), []
    for operation, mode in product(operations, GenerationMode):

        @given(case=operation.as_strategy(mode))
        @settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True,
                  database=None)
        def run(case):
            nonlocal count
            count += 1
            for name, value in PINNED.items():
                if case.path_parameters and name in case.path_parameters:
                    case.path_parameters[name] = value
            answered[case.call_and_validate(headers=headers).status_code] += 1

        try:
            run()
        except Unsatisfiable:  # nothing of the operation can break the schema (no body, no parameter)
            assert mode is GenerationMode.NEGATIVE, operation.label
        except BaseException as exc:  # schemathesis's FailureGroup: every distinct failure of the operation
            if not hasattr(exc, "exceptions") and not type(exc).__module__.startswith("schemathesis"):
                raise
            failures.append(f"{operation.label} ({mode.value}): {exc}")
    return count, answered, failures
