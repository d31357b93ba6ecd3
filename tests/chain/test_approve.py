"""Approval: the human is asked before tools of the configured tiers run."""

from __future__ import annotations

import pytest

from tests.chain.conftest import make_call, run_handler, tool
from toolbay.chain.approve import Answer, Approve, Approver
from toolbay.chain.call import ToolCall
from toolbay.errors import ApprovalDenied
from toolbay.words import PermissionTier

pytestmark = pytest.mark.anyio


class Human:
    """Answers every question the same way and remembers what was asked."""

    def __init__(self, answer: Answer) -> None:
        self.answer = answer
        self.asked: list[str] = []

    async def __call__(self, call: ToolCall, message: str) -> Answer:
        self.asked.append(message)
        return self.answer


async def run(approver: Approver, tier: PermissionTier = PermissionTier.EXEC, **arguments: object) -> int:
    handler = tool("sh", tier=tier)
    await Approve(approver)(make_call(handler, dict(arguments) or None), run_handler)
    return handler.calls


async def test_an_accepted_call_runs() -> None:
    assert await run(Approver(Human("accept"))) == 1


@pytest.mark.parametrize(("answer", "words"), [("decline", "declined"), ("cancel", "cancelled")])
async def test_a_declined_or_cancelled_call_does_not_run(answer: Answer, words: str) -> None:
    handler = tool("sh", tier=PermissionTier.EXEC)
    with pytest.raises(ApprovalDenied, match=words):
        await Approve(Approver(Human(answer)))(make_call(handler), run_handler)
    assert handler.calls == 0


async def test_a_client_that_cannot_be_asked_is_refused_by_default() -> None:
    with pytest.raises(ApprovalDenied, match="cannot ask its user"):
        await run(Approver(Human("unsupported")))


async def test_a_client_that_cannot_be_asked_may_be_allowed_by_configuration() -> None:
    assert await run(Approver(Human("unsupported"), when_unsupported="allow")) == 1


async def test_tools_of_other_tiers_run_without_asking() -> None:
    human = Human("decline")
    assert await run(Approver(human, tiers=["exec"]), tier=PermissionTier.READ) == 1
    assert human.asked == []


async def test_a_failing_question_counts_as_cancelled() -> None:
    async def broken(call: ToolCall, message: str) -> Answer:
        raise RuntimeError("the session went away")

    with pytest.raises(ApprovalDenied, match="cancelled"):
        await run(Approver(broken, when_unsupported="allow"))


async def test_the_question_names_the_tool_and_shows_the_arguments_with_secrets_hidden() -> None:
    human = Human("accept")
    await run(Approver(human), text="rm -rf build", api_key="sk-123")
    assert human.asked == ["Allow the tool 'sh' (exec tier) to run with the arguments "
                           '{"text": "rm -rf build", "api_key": "[REDACTED]"}?']


async def test_a_question_nobody_answers_refuses_the_call_when_its_time_is_up() -> None:
    """It waited for ever: a person who walked away held the call (and its caller) open."""
    import anyio

    async def walked_away(call: ToolCall, message: str) -> Answer:
        await anyio.sleep_forever()
        raise AssertionError("never answered")

    handler = tool("sh", tier=PermissionTier.EXEC)
    unanswered = "Nobody answered the approval of 'sh' within 0.05 s"
    with anyio.fail_after(30), pytest.raises(ApprovalDenied, match=unanswered):
        await Approve(Approver(walked_away, timeout_s=0.05))(make_call(handler), run_handler)
    assert handler.calls == 0
