"""Memory records as a Mem0 backend stores and answers them, for seeding the loopback stand-in
(tests/fake_mem0): the one builder of the Python tests."""


def memory(mem_id, text, mtype=None, *, user, project, backend="platform",
           created="2026-11-20T10:00:00Z", metadata=None, **fields):
    """One memory: the Platform files the project under `app_id`, with categories; the
    self-hosted server under `agent_id`, without them (docs/api.md). `metadata` replaces the
    default `{"type": mtype}` (None when there is no type); `fields` are added or override."""
    if metadata is None and mtype:
        metadata = {"type": mtype}
    record = {"id": mem_id, "memory": text, "user_id": user, "metadata": metadata,
              "created_at": created}
    if backend == "platform":
        record.update(app_id=project, categories=[])
    else:
        record["agent_id"] = project
    record.update(fields)
    return record
