"""A real SIGKILL in the middle of LifecycleManager.execute: recovery reconciles the stores."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from datetime import timedelta
from pathlib import Path

from remem.lifecycle import FilePlanJournal
from tests.lifecycle.conftest import T0, open_stack

N = 300

EXECUTOR = textwrap.dedent(
    f"""
    import asyncio, sys, time
    from datetime import timedelta
    from pathlib import Path
    from tests.lifecycle.conftest import T0, open_stack, rec

    async def main(root):
        async with open_stack("duckdb", root) as s:
            await s.add([rec(f"r{{i:04d}}") for i in range({N})])
            s.clock.set(T0 + timedelta(hours=170))
            manager = s.manager()
            plan = await manager.preview()
            real_delete = s.vectors.delete

            async def slow_delete(collection, ids):
                # Vectors were copied to the target; the source copy is not yet deleted.
                print("MID-MOVE", flush=True)
                time.sleep(60)
                return await real_delete(collection, ids)

            s.vectors.delete = slow_delete
            await manager.execute(plan)

    asyncio.run(main(Path(sys.argv[1])))
    """
)


REPO = Path(__file__).resolve().parents[2]


def kill_mid_execute(root: Path) -> None:
    """Run EXECUTOR and SIGKILL it once it is between the copy and the delete of a move."""
    proc = subprocess.Popen(
        [sys.executable, "-c", EXECUTOR, str(root)], stdout=subprocess.PIPE, text=True, cwd=REPO
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line.strip() == "MID-MOVE", line
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.kill()
        proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL


async def test_sigkill_mid_execute_is_completed_on_reopen(tmp_path: Path) -> None:
    kill_mid_execute(tmp_path)
    pending = FilePlanJournal(tmp_path / "plans.jsonl").pending()
    assert len(pending) == 1
    assert pending[0].records_applied
    async with open_stack("duckdb", tmp_path) as s:
        stages = await s.stages()
        assert set(stages.values()) == {"decayed"}  # the record batch committed before the kill
        s.clock.set(T0 + timedelta(hours=171))
        async with s.manager() as manager:  # opening rolls the interrupted plan forward
            assert manager.recovered_plans == 1
            placed = await s.collection_of()  # asserts no vector is in two collections
            assert placed == stages
            assert (await manager.preview()).total == 0
        assert not (tmp_path / "plans.jsonl").exists()
