"""Memory records as a Mem0 backend stores and answers them, for seeding the loopback stand-in
(tests/fake_mem0): the one builder of the Python tests."""

import functools


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


def builder(*, user, project, **defaults):
    """memory() with the user, the project and other `defaults` given once: one test's
    seeding (a call may still override a default)."""
    return functools.partial(memory, user=user, project=project, **defaults)


def tag(mem_id):
    """How the hooks cite a memory in the context they give: `[mem0:<first 8 of its id>]`."""
    return f"[mem0:{mem_id[:8]}]"


# The categories Mem0's 0.3 plugins send as `custom_categories` (docs/api.md#two-layouts).
PLUGIN03_CATEGORIES = ("project_knowledge", "decisions_and_constraints", "workflows",
                       "problems_and_fixes", "results")


def plugin03_memory(mem_id, text, *, app, run_id, agent=None, user=None, author=None,
                    categories=("project_knowledge",), dirs=(), branch="main",
                    created="2026-11-21T10:00:00Z", **fields):
    """One memory laid out exactly as the Platform keeps what Mem0's 0.3 plugins write: project
    knowledge under `agent` (the hashed shared id, or the legacy one equal to `app`) with no
    user_id, a personal fact under `user` with no agent_id; both with app_id, the session's
    run_id, categories, and metadata {source, branch, git_sha, author, dirs}: no `type`."""
    metadata = {"source": "claude_code_plugin", "branch": branch, "git_sha": "0" * 40,
                "author": author or user or "teammate", "dirs": list(dirs)}
    record = {"id": mem_id, "memory": text, "user_id": user, "app_id": app, "run_id": run_id,
              "metadata": metadata, "categories": list(categories), "created_at": created}
    if agent is not None:
        record["agent_id"] = agent
    record.update(fields)
    return record
