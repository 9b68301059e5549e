import asyncio
from remem import SimpleVectorStore

class DemoEmbeddings:
    async def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [await self.embed_query(text) for text in texts]

    async def embed_query(self, text: str) -> list[float]:
        return [1.0, 0.0] if "python" in text.lower() else [0.0, 1.0]

async def main() -> None:
    store = SimpleVectorStore(embedding_function=DemoEmbeddings())
    await store.add_documents(
        texts=["Python project", "Gardening notes"],
        metadatas=[{"source": "demo"}, {"source": "demo"}],
        ids=["python", "garden"],
    )
    matches = await store.query("Python", n_results=1)
    print(matches[0]["id"])

asyncio.run(main())
