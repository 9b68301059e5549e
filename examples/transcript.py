import asyncio
from pathlib import Path
from tempfile import TemporaryDirectory
from remem import SQLiteTranscriptStore, TranscriptEntry, TranscriptSession

async def main() -> None:
    with TemporaryDirectory() as directory:
        store = SQLiteTranscriptStore(Path(directory) / "transcript.db")
        await store.create_session(TranscriptSession(
            session_id="demo", model_name="offline-example",
        ))
        await store.append_entry(TranscriptEntry(
            id="entry-1", session_id="demo", turn_number=1,
            user_message="Name the project.", assistant_message="Friday",
        ))
        entries = await store.get_entries("demo")
        print(entries[0].assistant_message)

asyncio.run(main())
