"""Quick runs take turns: one a turn of the event loop, in order of arrival, nobody waits alone."""

from __future__ import annotations

import asyncio

import pytest

from toolbay.loop_turns import LoopTurns

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def test_a_run_alone_goes_at_once_without_giving_up_the_loop() -> None:
    turns = LoopTurns()
    turned: list[str] = []
    asyncio.get_running_loop().call_soon(turned.append, "the loop turned")
    await turns.turn()
    assert turned == []  # nothing else ran: the caller did not wait for the loop
    await asyncio.sleep(0)
    await asyncio.sleep(0)
    await turns.turn()  # a later turn of the loop: again at once
    assert turned == ["the loop turned"]


async def test_runs_that_arrive_together_go_one_a_turn_in_order_and_later_ones_queue_behind() -> None:
    turns = LoopTurns()
    loop_turn = 0
    ran: list[tuple[str, int]] = []

    async def count_turns() -> None:
        nonlocal loop_turn
        while True:
            loop_turn += 1
            await asyncio.sleep(0)

    async def run(name: str) -> None:
        await turns.turn()
        ran.append((name, loop_turn))

    counter = asyncio.create_task(count_turns())
    await asyncio.sleep(0)
    first = [asyncio.create_task(run(f"early {n}")) for n in range(4)]
    await asyncio.sleep(0)  # they have all asked; one ran
    late = asyncio.create_task(run("late"))
    await asyncio.gather(*first, late)
    counter.cancel()
    assert [name for name, _ in ran] == ["early 0", "early 1", "early 2", "early 3", "late"]
    turns_taken = [turn for _, turn in ran]
    assert len(set(turns_taken)) == len(turns_taken)  # never two runs in one turn of the loop


async def test_a_caller_cancelled_in_line_does_not_hold_up_the_others() -> None:
    turns = LoopTurns()
    ran: list[str] = []

    async def run(name: str) -> None:
        await turns.turn()
        ran.append(name)

    tasks = [asyncio.create_task(run(name)) for name in ("a", "b", "c", "d")]
    await asyncio.sleep(0)  # a ran; b, c and d wait
    tasks[1].cancel()
    tasks[2].cancel()
    await asyncio.wait_for(asyncio.gather(*tasks, return_exceptions=True), 10)
    assert ran == ["a", "d"]
    await asyncio.wait_for(turns.turn(), 10)  # and the turns go on afterwards
