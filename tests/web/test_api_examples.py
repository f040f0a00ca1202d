"""Every request body the API documents comes with an example, and every example is a valid body."""

import pytest
from pydantic import BaseModel

from tierplan.main import create_app
from tierplan.models import effects, measurements, plan_rows, specs

BODIES = [model for module in (plan_rows, effects, measurements, specs) for model in vars(module).values()
          if isinstance(model, type) and issubclass(model, BaseModel) and model.__name__.endswith(("Create", "Update"))]


@pytest.mark.parametrize("model", BODIES, ids=lambda m: m.__name__)
def test_each_example_is_a_valid_body(model):
    examples = model.model_json_schema()["examples"]
    assert examples and all(model.model_validate(example) for example in examples)


def test_every_json_body_of_the_api_shows_an_example_in_the_openapi_document():
    document = create_app().openapi()
    schemas = document["components"]["schemas"]
    bodies = []
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            content = operation.get("requestBody", {}).get("content", {})
            if "application/json" in content:
                name = content["application/json"]["schema"]["$ref"].rsplit("/", 1)[1]
                bodies.append(name)
                assert schemas[name].get("examples"), f"{method.upper()} {path}: {name} has no example"
    assert len(bodies) >= 15
