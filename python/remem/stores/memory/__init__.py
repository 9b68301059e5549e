"""In-process stores: MemoryVectorStore (no durability) and the SimpleVectorStore convenience."""
