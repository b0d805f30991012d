"""The client capabilities taskscope advertises (`advertised.ClientCapabilities`): taskscope's own
object on each era, what withholding takes out, a replaced object, and how a -32021 is read back
(pure logic)."""

from __future__ import annotations

from typing import Any

import pytest

from app.engine.rpc.advertised import WITHHOLDABLE, ClientCapabilities, fragment_names
from app.engine.tasks.protocol_keys import TASKS_EXTENSION

EXTENSION = {"extensions": {TASKS_EXTENSION: {}}}
OURS = {"elicitation": {"form": {}, "url": {}}, "sampling": {}, "roots": {}, **EXTENSION}


def test_by_default_everything_is_advertised_and_the_extension_only_on_the_modern_era() -> None:
    capabilities = ClientCapabilities()
    assert capabilities.modern() == OURS
    assert capabilities.legacy() == {key: OURS[key] for key in ("elicitation", "sampling", "roots")}
    assert capabilities.offered == WITHHOLDABLE
    assert capabilities.declares_tasks
    assert capabilities.describe() == "tasks, elicitation, sampling, roots"


def test_roots_are_advertised_only_when_configured() -> None:
    capabilities = ClientCapabilities(roots=False)
    assert "roots" not in capabilities.modern() and "roots" not in capabilities.legacy()
    assert "roots" not in capabilities.offered


def test_a_request_that_must_not_declare_tasks_goes_without_the_extension() -> None:
    assert "extensions" not in ClientCapabilities().modern(declare_tasks=False)


def test_withholding_tasks_drops_the_extension_and_stops_asking_for_tasks() -> None:
    capabilities = ClientCapabilities(withheld=frozenset({"tasks"}))
    assert capabilities.modern() == {k: v for k, v in OURS.items() if k != "extensions"}
    assert capabilities.legacy() == ClientCapabilities().legacy()  # legacy says it per request
    assert not capabilities.declares_tasks
    assert capabilities.describe() == "elicitation, sampling, roots · withheld: tasks"


@pytest.mark.parametrize("name", ["elicitation", "sampling", "roots"])
def test_withholding_a_capability_takes_it_out_on_both_eras(name: str) -> None:
    capabilities = ClientCapabilities(withheld=frozenset({name}))
    assert name not in capabilities.modern() and name not in capabilities.legacy()
    assert capabilities.declares_tasks
    assert capabilities.describe().endswith(f"· withheld: {name}")


def test_a_replaced_object_is_sent_as_given_less_what_is_withheld() -> None:
    given: dict[str, Any] = {
        "sampling": {},
        "experimental": {"x": 1},
        "extensions": {TASKS_EXTENSION: {}, "other/ext": {}},
    }
    capabilities = ClientCapabilities(replaced=given)
    assert capabilities.modern() == given and capabilities.legacy() == given
    assert capabilities.offered == ("tasks", "sampling")
    withheld = capabilities.withholding({"tasks", "sampling"})
    assert withheld.modern() == {"experimental": {"x": 1}, "extensions": {"other/ext": {}}}
    assert given["extensions"] == {TASKS_EXTENSION: {}, "other/ext": {}}  # never mutated


def test_a_replaced_object_without_the_extension_asks_for_no_task() -> None:
    capabilities = ClientCapabilities(replaced={"elicitation": {}})
    assert not capabilities.declares_tasks
    assert capabilities.modern() == {"elicitation": {}}
    assert capabilities.describe() == "elicitation · withheld: tasks"


def test_a_replaced_extensions_value_that_is_not_an_object_is_left_alone() -> None:
    capabilities = ClientCapabilities(replaced={"extensions": "odd"}, withheld=frozenset({"tasks"}))
    assert capabilities.modern() == {"extensions": "odd"}
    assert not capabilities.declares_tasks


def test_what_tasks_capabilities_prints() -> None:
    capabilities = ClientCapabilities(roots=False, withheld=frozenset({"tasks", "sampling"}))
    assert capabilities.as_json(legacy=False) == {
        "capabilities": {"elicitation": {"form": {}, "url": {}}},
        "withheld": ["sampling", "tasks"],
        "declaresTasks": False,
    }
    assert capabilities.as_json(legacy=True)["capabilities"] == {
        "elicitation": {"form": {}, "url": {}}
    }


def test_required_capabilities_are_named_and_the_withheld_ones_told_apart() -> None:
    required = {"extensions": {TASKS_EXTENSION: {}}, "elicitation": {"url": {}}}
    assert fragment_names(required) == [TASKS_EXTENSION, "elicitation"]
    assert fragment_names("not an object") == []
    assert ClientCapabilities().withheld_among(required) == []
    withheld = ClientCapabilities(withheld=frozenset({"tasks"}))
    assert withheld.withheld_among(required) == ["tasks"]
    replaced = ClientCapabilities(replaced={"sampling": {}})
    assert replaced.withheld_among(required) == ["tasks", "elicitation"]
    # roots without --root were never taskscope's to offer: not the user's withholding
    assert ClientCapabilities(roots=False).withheld_among({"roots": {}}) == []
