"""PostgreSQL + pgvector backends (optional extra ``remem[postgres]``)."""
