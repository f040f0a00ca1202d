"""schemathesis against the OpenAPI document of a real `tierplan serve` (a process of its own, on the demo):
generated requests to every operation, path ids pinned to the demo's rows so that the handlers run. No server
error, every response matches the document, and every schema-invalid request is refused. (A schema-valid body may
still be refused with 422 when it breaks a domain rule the schema cannot say, such as low <= likely <= high, so
schemathesis's positive-data check is left out.)

(schemathesis's pytest fixture loader reads a pytest attribute that pytest 9.2 removed, so each operation's
Hypothesis strategy is run here by hand.)"""

import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis.specs.openapi.checks import positive_data_acceptance

from tests.serving import start

PINNED = {"campaign_id": 1, "regime_id": 1, "row_id": 1, "measurement_id": 1}
EXAMPLES = 40


def test_no_operation_answers_a_server_error_or_off_its_schema(sqlite_url, tmp_path):
    process, base = start(sqlite_url, tmp_path / "server.log", upload_dir=str(tmp_path / "uploads"))
    try:
        _fuzz(base)
    finally:
        process.terminate()
        process.wait(timeout=10)


def _fuzz(base: str) -> None:
    schema = schemathesis.openapi.from_url(f"{base}/openapi.json")
    operations = [result.ok() for result in schema.get_all_operations()]
    cases: list[str] = []
    for operation in operations:

        @given(case=operation.as_strategy())
        @settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True,
                  database=None)
        def run(case):
            for name, value in PINNED.items():
                if case.path_parameters and name in case.path_parameters:
                    case.path_parameters[name] = value
            cases.append(f"{case.method} {case.formatted_path}")
            case.call_and_validate(excluded_checks=[positive_data_acceptance])

        run()
    print(f"{len(cases)} generated requests over {len(operations)} operations")
    assert len(operations) >= 30 and len(cases) >= 1000, (len(operations), len(cases))
