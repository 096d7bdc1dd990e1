"""The memories behind the fake Mem0 server: filters, scoring, search, add, list, get, delete.

Python 3.11 standard library only; no HTTP here (fake_mem0.py serves it).

Filters (search and list): a non-empty object whose keys must all hold (implicit AND):
    {"AND": [F, ...]}, {"OR": [F, ...]}       nested freely
    {"user_id"|"agent_id"|"app_id"|"run_id": value}   "*" = the field is set (not null)
    {"metadata": {"type": T, ...}}            every listed metadata key equals its value;
    {"metadata": {K: {"contains": V}}}        ... or, for a list value, holds V (0.3's `dirs`)
    {"categories": {"contains": C}}           the memory's categories hold C
A search with "latest_only": true leaves out memories a newer version replaced (a seed marks
them "latest": false; the Platform keeps such history, docs/api.md#two-layouts).
A filter must name at least one of the four ids with a concrete (non-"*") value somewhere,
or it is rejected with 400, as the real API rejects wildcard-only filters (docs/api.md).
A memory may have any of the ids unset (shared project memory has agent_id and no user_id,
docs/api.md#filters); a leaf on an unset id does not match it.

Scoring (deterministic, so tests can predict it):
    tokens(text): lower-case, split into [a-z0-9]+ runs, drop STOP_WORDS, strip one trailing
                  "s" from tokens longer than 3 chars, keep the distinct set.
    base score   = |query tokens & memory tokens| / |memory tokens|
    rerank score = |query tokens & memory tokens| / |query tokens|
A memory is a hit when base score > 0 and base score >= threshold (default 0.3). Without
rerank hits are ordered by base score desc, then created_at desc (newest first), then id.
With "rerank": true they are re-ordered by rerank score desc, then created_at asc (oldest
first), then id. The returned "score" is the score used for ordering; top_k (default 10)
cuts the list.

Adds (docs/api.md#add): `messages` must be a non-empty list of {role: user|assistant|system,
content: string}, and one of user_id, agent_id, app_id, run_id must be given.
    infer true (default): one memory whose text is the message contents joined by newlines;
        the answer is {"event_id", "status": "PENDING", "message"}, and the event (GET
        /v1/event/<id>/) is SUCCEEDED with the stored memory as its one result.
    infer false: one memory per message, its content as text; the answer lists them,
        {"results": [{"id", "memory", "event": "ADD"}, ...]}.
    0.3's team layout (an infer add with both user_id and agent_id and
        `agent_custom_instructions`): the Platform classifies each memory itself (how is not
        visible from outside, docs/api.md#two-layouts); the stand-in files it as project
        knowledge under agent_id without user_id, unless its text speaks of the user's own
        preferences (PERSONAL), which goes under user_id without agent_id; app_id and run_id
        kept either way, and the first `custom_categories` name its keywords pick (CATEGORY_WORDS,
        else the first given) as its category.
Blank texts are not stored. With store=False (the `store` knob) the add is answered the same
way but nothing is kept: the event has no results, a synchronous answer lists none.
A stored memory has user_id, app_id, run_id (null when not given), agent_id and
expiration_date (only when given), metadata (null when not given), categories [], and
created_at = updated_at = now (microseconds, so that newest-first order is exact).

Lists (docs/hooks.md#session-start-hook): the memories matching `filters`, newest first (created_at, then the
order they were stored in), one page of `page_size` (default 100, at most 1000) from `page`
(default 1): {"count": all that match, "next": url|null, "previous": url|null, "results"}.
A page past the last is 404 {"detail": "Invalid page."} (the first page always exists).

Self-hosted flavour (the open-source Mem0 REST server; the *_selfhosted methods): filters are
flat, {"user_id"|"agent_id"|"run_id": value, <metadata key>: value, ...}, every key an equality
(an entity id against the memory, any other key, app_id included, against its metadata), and at
least one entity id must be a non-empty string (else 400). Searches rank as above without
rerank (top_k default 20, threshold 0.1); adds are synchronous ({"results": [...]}); lists
take the ids and top_k from the query string and answer in storage order. Items carry hash and
the entity ids that are set, no categories (selfhosted_item). Malformed fields are 422 with a
FastAPI-style detail list (Invalid).
"""

import hashlib
import json
import re
import threading
import uuid
from datetime import date, datetime, timezone

ENTITY_KEYS = ("user_id", "agent_id", "app_id", "run_id")
SELFHOSTED_IDS = ("user_id", "agent_id", "run_id")
ROLES = ("user", "assistant", "system")
STOP_WORDS = frozenset(
    "the a an and or of to in on for is are we i it this that with what how "
    "do does be use our my should which".split())
TOKEN_RE = re.compile(r"[a-z0-9]+")
DATE_RE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
DEFAULT_PAGE_SIZE = 100
MAX_PAGE_SIZE = 1000
QUEUED = "Memory processing has been queued for background execution"
NO_SELFHOSTED_ID = ("filters must contain at least one of: user_id, agent_id, run_id. "
                    "Example: filters={'user_id': 'u1'}")


class ApiError(Exception):
    """An error answer: `status` with {"detail": detail}."""

    status = 400

    def __init__(self, detail):
        super().__init__(detail)
        self.detail = detail


class BadRequest(ApiError):
    """400 with {"detail": str(exc)}."""


class NotFound(ApiError):
    """404 with {"detail": str(exc)}."""

    status = 404


class Forbidden(ApiError):
    """403 with {"detail": str(exc)}."""

    status = 403


class Invalid(ApiError):
    """422 with a FastAPI-style detail list: one error at `loc` ("body"|"query", field...)."""

    status = 422

    def __init__(self, msg, *loc):
        super().__init__([{"type": "value_error", "loc": list(loc), "msg": msg}])


def tokens(text):
    out = set()
    for tok in TOKEN_RE.findall(text.lower()):
        if tok in STOP_WORDS:
            continue
        if len(tok) > 3 and tok.endswith("s"):
            tok = tok[:-1]
        out.add(tok)
    return out


def created_ts(mem):
    try:
        dt = datetime.fromisoformat(str(mem.get("created_at")))
    except ValueError:
        return 0.0
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=timezone.utc)
    return dt.timestamp()


def now_iso(micro=False):
    fmt = "%Y-%m-%dT%H:%M:%S.%fZ" if micro else "%Y-%m-%dT%H:%M:%SZ"
    return datetime.now(timezone.utc).strftime(fmt)


# -- filters ----------------------------------------------------------------------------------
def check_filter(f):
    """Validate a filter tree; True when it has an entity anchor (an id key with a concrete,
    non-"*" value somewhere)."""
    if not isinstance(f, dict) or not f:
        raise BadRequest("unsupported filter: expected a non-empty object")
    anchored = False
    for key, value in f.items():
        if key in ("AND", "OR"):
            if not isinstance(value, list) or not value:
                raise BadRequest(f"unsupported filter {key}: expected a non-empty list")
            for sub in value:
                anchored = check_filter(sub) or anchored
        elif key in ENTITY_KEYS:
            if not isinstance(value, str) or not value:
                raise BadRequest(f"unsupported filter value for {key}: {value!r}")
            anchored = anchored or value != "*"
        elif key == "metadata":
            if not isinstance(value, dict) or not value:
                raise BadRequest(f"unsupported filter metadata: {value!r}")
            for sub in value.values():
                if isinstance(sub, dict) and (set(sub) != {"contains"}
                                              or not isinstance(sub["contains"], str)):
                    raise BadRequest(f"unsupported filter metadata operator: {sub!r}")
        elif key == "categories":
            if not isinstance(value, dict) or set(value) != {"contains"} \
                    or not isinstance(value["contains"], str):
                raise BadRequest(f"unsupported filter categories: {value!r}")
        else:
            raise BadRequest(f"unsupported filter key: {key}")
    return anchored


def check_anchored(filters):
    if not isinstance(filters, dict):
        raise BadRequest("filters is required and must be an object")
    if not check_filter(filters):
        raise BadRequest("filters must contain at least one of user_id, agent_id, "
                         "app_id, run_id with a concrete (non-wildcard) value")


def matches(f, mem):
    """All keys of one filter dict must hold (implicit AND)."""
    for key, value in f.items():
        if key == "AND":
            ok = all(matches(sub, mem) for sub in value)
        elif key == "OR":
            ok = any(matches(sub, mem) for sub in value)
        elif key == "metadata":
            md = mem.get("metadata")
            ok = isinstance(md, dict) and all(k in md and metadata_holds(md[k], v)
                                              for k, v in value.items())
        elif key == "categories":
            ok = value["contains"] in (mem.get("categories") or [])
        else:
            field = mem.get(key)
            ok = field is not None if value == "*" else field == value
        if not ok:
            return False
    return True


def metadata_holds(stored, wanted):
    """A metadata leaf: equality, or {"contains": V} for a list that holds V."""
    if isinstance(wanted, dict):
        return isinstance(stored, list) and wanted["contains"] in stored
    return stored == wanted


def filter_types(f, found=None):
    """Every metadata.type value mentioned anywhere in a (possibly invalid) tree, as JSON."""
    found = set() if found is None else found
    if isinstance(f, dict):
        for key, value in f.items():
            if key in ("AND", "OR") and isinstance(value, list):
                for sub in value:
                    filter_types(sub, found)
            elif key == "metadata" and isinstance(value, dict) and "type" in value:
                found.add(json.dumps(value["type"]))
    return found


def flat_filter_types(f):
    """The metadata.type value of a self-hosted (flat) filter, as JSON, in a set."""
    return {json.dumps(f["type"])} if isinstance(f, dict) and "type" in f else set()


def flat_matches(f, mem):
    """Every key of a flat filter equals the memory's entity id or metadata value."""
    md = mem.get("metadata") if isinstance(mem.get("metadata"), dict) else {}
    return all(mem.get(k) == v if k in SELFHOSTED_IDS else (k in md and md[k] == v)
               for k, v in f.items())


def selfhosted_item(mem, score=None):
    """A memory as the self-hosted server shows it (score only in search results)."""
    item = {"id": mem["id"], "memory": mem["memory"],
            "hash": mem.get("hash") or memory_hash(mem["memory"]),
            "metadata": mem.get("metadata")}
    if score is not None:
        item["score"] = score
    item.update(created_at=mem.get("created_at"), updated_at=mem.get("updated_at"))
    item.update((k, mem[k]) for k in SELFHOSTED_IDS if mem.get(k) is not None)
    return item


def memory_hash(text):
    return hashlib.md5(text.encode("utf-8")).hexdigest()


# -- request fields ---------------------------------------------------------------------------
def positive_int(value, name, default, maximum=None):
    """A positive JSON integer (at most `maximum`); `default` when absent."""
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int) or value < 1 \
            or (maximum is not None and value > maximum):
        limit = f" of at most {maximum}" if maximum else ""
        raise BadRequest(f"{name} must be a positive integer{limit}")
    return value


def add_entities(body):
    entities = {}
    for key in ENTITY_KEYS:
        value = body.get(key)
        if value is None:
            continue
        if not isinstance(value, str) or not value.strip() or value == "*":
            raise BadRequest(f"{key} must be a non-empty string")
        entities[key] = value
    if not entities:
        raise BadRequest("one of user_id, agent_id, app_id, run_id is required")
    return entities


def add_messages(body):
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        raise BadRequest("messages is required: a non-empty list of {role, content}")
    for i, msg in enumerate(messages):
        if not isinstance(msg, dict) or msg.get("role") not in ROLES \
                or not isinstance(msg.get("content"), str):
            raise BadRequest(f"messages[{i}] must be {{role: user|assistant|system, "
                             f"content: string}}")
    return messages


def add_options(body):
    """(metadata, infer, extra memory fields) of an add request, validated."""
    metadata = body.get("metadata")
    if metadata is not None and not isinstance(metadata, dict):
        raise BadRequest("metadata must be an object")
    infer = body.get("infer", True)
    if not isinstance(infer, bool):
        raise BadRequest("infer must be a boolean")
    extra = {}
    expiration = body.get("expiration_date")
    if expiration is not None:
        if not is_date(expiration):
            raise BadRequest("expiration_date must be a date YYYY-MM-DD")
        extra["expiration_date"] = expiration
    for name in ("custom_instructions", "agent_custom_instructions"):
        if body.get(name) is not None and not isinstance(body[name], str):
            raise BadRequest(f"{name} must be a string")
    return metadata, infer, extra


# The stand-in's classification of 0.3's team layout (see the module doc).
PERSONAL = re.compile(r"\b(?:i|the user|user)\s+(?:prefers?|likes?|always uses?)\b", re.I)
CATEGORY_WORDS = (("problems_and_fixes", re.compile(r"\b(?:fail\w*|error|bug|fix\w*)\b", re.I)),
                  ("decisions_and_constraints", re.compile(r"\b(?:decid\w*|must|agreed)\b", re.I)),
                  ("workflows", re.compile(r"\b(?:run|test|deploy|build)\b", re.I)))


def custom_categories(body):
    """The names of an add's `custom_categories` ([{name: description}, ...]), validated."""
    value = body.get("custom_categories")
    if value is None:
        return []
    if not isinstance(value, list) or not all(
            isinstance(c, dict) and len(c) == 1 and all(isinstance(v, str) for v in c.values())
            for c in value):
        raise BadRequest("custom_categories must be a list of {name: description}")
    return [next(iter(c)) for c in value]


def classify(text, entities, names):
    """(entity ids, categories) of one memory of 0.3's team layout."""
    ids = dict(entities)
    ids.pop("agent_id" if PERSONAL.search(text) else "user_id")
    picked = [name for name, words in CATEGORY_WORDS if name in names and words.search(text)]
    return ids, (picked or names)[:1]


def is_date(value):
    """True for a string YYYY-MM-DD naming a real date."""
    if not isinstance(value, str) or not DATE_RE.match(value):
        return False
    try:
        date.fromisoformat(value)
    except ValueError:
        return False
    return True


def add_texts(messages, infer):
    """The texts to store: the joined contents (infer) or one per message; blank ones
    dropped."""
    texts = ["\n".join(m["content"] for m in messages)] if infer \
        else [m["content"] for m in messages]
    return [t for t in texts if t.strip()]


def optional(body, name, kinds):
    """body[name] when it is one of `kinds` or null/absent (None); else Invalid (422)."""
    value = body.get(name)
    if value is not None and (isinstance(value, bool) and bool not in kinds
                              or not isinstance(value, kinds)):
        raise Invalid(f"{name} has the wrong type", "body", name)
    return value


def query_int(query, name, default, lo, hi):
    value = query.get(name)
    if value is None:
        return default
    if not re.fullmatch(r"[+-]?\d+", value.strip()) or not lo <= int(value) <= hi:
        raise Invalid(f"{name} must be an integer from {lo} to {hi}", "query", name)
    return int(value)


def normalize_seed(items):
    if not isinstance(items, list):
        raise ValueError("seed must be a JSON array of memory objects")
    out = {}
    for i, item in enumerate(items):
        if not isinstance(item, dict):
            raise ValueError(f"seed item {i} is not an object")
        mem = dict(item)
        mem["id"] = str(mem.get("id") or uuid.uuid4())
        if not isinstance(mem.get("memory"), str):
            raise ValueError(f"seed item {i}: 'memory' must be a string")
        for key in ("user_id", "app_id", "run_id", "metadata"):
            mem.setdefault(key, None)
        if mem.get("categories") is None:
            mem["categories"] = []
        if not mem.get("created_at"):
            mem["created_at"] = now_iso()
        if not mem.get("updated_at"):
            mem["updated_at"] = mem["created_at"]
        out[mem["id"]] = mem
    return out


# -- the store --------------------------------------------------------------------------------
class Store:
    """Memories by id (in the order they were stored) and add events, behind one lock."""

    def __init__(self, memories=None):
        self.lock = threading.Lock()
        self.memories = dict(memories or {})
        self.events = {}

    def replace(self, memories):
        with self.lock:
            self.memories = dict(memories)

    def all(self):
        """Copies of every memory, in the order they were stored."""
        with self.lock:
            return [dict(m) for m in self.memories.values()]

    def newest_first(self):
        mems = self.all()
        order = sorted(range(len(mems)), key=lambda i: (created_ts(mems[i]), i), reverse=True)
        return [mems[i] for i in order]

    def get(self, mem_id):
        with self.lock:
            mem = self.memories.get(mem_id) or self.memories.get(mem_id.lower())
            return dict(mem) if mem else None

    def delete(self, mem_id):
        """True when the memory existed."""
        with self.lock:
            for key in (mem_id, mem_id.lower()):
                if key in self.memories:
                    del self.memories[key]
                    return True
            return False

    def update(self, mem_id, body, selfhosted=False):
        """Replace a memory's text with body["text"] and its metadata with body["metadata"]
        (an object, stored in place of the old; the self-hosted server merges it into the old):
        the memory as updated, or None when it does not
        exist. The Platform needs text or metadata; the self-hosted server one of text,
        metadata, expiration_date."""
        if not isinstance(body, dict):
            raise (Invalid("Input should be a valid dictionary", "body") if selfhosted
                   else BadRequest("request body must be a JSON object"))
        text = body.get("text")
        metadata = body.get("metadata")
        if metadata is not None and not isinstance(metadata, dict):
            raise BadRequest("metadata must be an object")
        if selfhosted:
            text = optional(body, "text", (str,))
            if text is None and not any(k in body for k in ("metadata", "expiration_date")):
                raise BadRequest("At least one of text, metadata, or expiration_date must be "
                                 "provided.")
        elif metadata is None and (not isinstance(text, str) or not text.strip()):
            raise BadRequest("text is required and must be a non-empty string")
        elif text is not None and (not isinstance(text, str) or not text.strip()):
            raise BadRequest("text must be a non-empty string")
        with self.lock:
            key = mem_id if mem_id in self.memories else mem_id.lower()
            mem = self.memories.get(key)
            if mem is None:
                return None
            if text is not None:
                mem.update(memory=text, hash=memory_hash(text))
            if metadata is not None:  # the self-hosted server merges into what it holds
                kept = (mem.get("metadata") or {}) if selfhosted else {}
                mem["metadata"] = {**kept, **json.loads(json.dumps(metadata))}
            mem["updated_at"] = now_iso(micro=selfhosted)
            return dict(mem)

    def event(self, event_id):
        with self.lock:
            event = self.events.get(event_id)
            return json.loads(json.dumps(event)) if event else None

    def search(self, body):
        if not isinstance(body, dict):
            raise BadRequest("request body must be a JSON object")
        query = body.get("query")
        if not isinstance(query, str) or not query.strip():
            raise BadRequest("query is required and must be a non-empty string")
        filters = body.get("filters")
        check_anchored(filters)
        top_k = positive_int(body.get("top_k"), "top_k", 10)
        threshold = body.get("threshold", 0.3)
        threshold = 0.3 if threshold is None else threshold
        if isinstance(threshold, bool) or not isinstance(threshold, (int, float)) \
                or not 0 <= threshold <= 1:
            raise BadRequest("threshold must be a number between 0 and 1")
        rerank = body.get("rerank", False)
        if not isinstance(rerank, bool) and rerank is not None:
            raise BadRequest("rerank must be a boolean")
        latest_only = body.get("latest_only", False)
        if not isinstance(latest_only, bool):
            raise BadRequest("latest_only must be a boolean")
        keep = (lambda m: matches(filters, m) and m.get("latest", True) is not False) \
            if latest_only else (lambda m: matches(filters, m))
        return [dict(mem, score=score) for score, mem in
                self.ranked(query, keep, threshold, top_k, rerank)]

    def ranked(self, query, keep, threshold, top_k, rerank=False):
        """(score, memory) of the best top_k memories that keep(memory) and that score above
        0 and at least threshold (see the module doc)."""
        q = tokens(query)
        hits = []
        for mem in self.all():
            if not keep(mem):
                continue
            mt = tokens(mem["memory"])
            shared = len(q & mt)
            base = shared / len(mt) if mt else 0.0
            if base <= 0 or base < threshold:
                continue
            hits.append((base, shared / len(q), created_ts(mem), mem["id"], mem))
        if rerank:
            hits.sort(key=lambda h: (-h[1], h[2], h[3]))
        else:
            hits.sort(key=lambda h: (-h[0], -h[2], h[3]))
        return [(h[1] if rerank else h[0], h[4]) for h in hits[:top_k]]

    def add(self, body, store=True):
        """The answer to an add request (see the module doc)."""
        if not isinstance(body, dict):
            raise BadRequest("request body must be a JSON object")
        messages = add_messages(body)
        entities = add_entities(body)
        metadata, infer, extra = add_options(body)
        names = custom_categories(body)
        team = infer and {"user_id", "agent_id"} <= set(entities) \
            and body.get("agent_custom_instructions") is not None
        now = now_iso(micro=True)
        stored = []
        for text in add_texts(messages, infer):
            ids, categories = classify(text, entities, names) if team else (entities, [])
            mem = {"id": str(uuid.uuid4()), "memory": text,
                   "user_id": ids.get("user_id"), "app_id": ids.get("app_id"),
                   "run_id": ids.get("run_id"), "metadata": metadata,
                   "categories": categories, "created_at": now, "updated_at": now, **extra}
            if "agent_id" in ids:
                mem["agent_id"] = ids["agent_id"]
            stored.append(mem)
        results = [{"id": m["id"], "memory": m["memory"], "event": "ADD"} for m in stored]
        with self.lock:
            if store:
                for mem in stored:
                    self.memories[mem["id"]] = mem
            if not infer:
                return {"results": results if store else []}
            event_id = str(uuid.uuid4())
            self.events[event_id] = {"id": event_id, "status": "SUCCEEDED",
                                     "results": results if store else []}
        return {"event_id": event_id, "status": "PENDING", "message": QUEUED}

    def list(self, body, query, base_url):
        """One page of the memories matching body["filters"]; page and page_size come from
        the query string (a dict of str) or else the body."""
        if not isinstance(body, dict):
            raise BadRequest("request body must be a JSON object")
        filters = body.get("filters")
        check_anchored(filters)
        for name in ("page", "page_size"):
            if name in query:
                if not (query[name].isascii() and query[name].isdigit()):
                    raise BadRequest(f"{name} must be a positive integer")
                body = dict(body, **{name: int(query[name])})
        page = positive_int(body.get("page"), "page", 1)
        size = positive_int(body.get("page_size"), "page_size", DEFAULT_PAGE_SIZE,
                            MAX_PAGE_SIZE)
        found = [m for m in self.newest_first() if matches(filters, m)]
        pages = max(1, -(-len(found) // size))
        if page > pages:
            raise NotFound("Invalid page.")

        def link(p):
            return f"{base_url}/v3/memories/?page={p}&page_size={size}"

        return {"count": len(found),
                "next": link(page + 1) if page < pages else None,
                "previous": link(page - 1) if page > 1 else None,
                "results": found[(page - 1) * size:page * size]}

    # -- the self-hosted flavour (see the module doc) -----------------------------------------
    def search_selfhosted(self, body):
        if not isinstance(body, dict):
            raise Invalid("Input should be a valid dictionary", "body")
        query = optional(body, "query", (str,))
        if not query or not query.strip():
            raise Invalid("query is required and must be a non-empty string", "body", "query")
        filters = dict(optional(body, "filters", (dict,)) or {})
        for key in SELFHOSTED_IDS:              # deprecated top-level ids join the filters
            if optional(body, key, (str,)):
                filters[key] = body[key]
        top_k = optional(body, "top_k", (int,))
        if top_k is not None and top_k < 1:
            raise Invalid("top_k must be a positive integer", "body", "top_k")
        threshold = optional(body, "threshold", (int, float))
        if not any(isinstance(filters.get(k), str) and filters[k] for k in SELFHOSTED_IDS):
            raise BadRequest(NO_SELFHOSTED_ID)
        hits = self.ranked(query, lambda m: flat_matches(filters, m),
                           0.1 if threshold is None else threshold,
                           20 if top_k is None else top_k)
        return {"results": [selfhosted_item(mem, score) for score, mem in hits]}

    def add_selfhosted(self, body, store=True):
        if not isinstance(body, dict):
            raise Invalid("Input should be a valid dictionary", "body")
        messages = body.get("messages")
        if not isinstance(messages, list) or not all(
                isinstance(m, dict) and isinstance(m.get("role"), str)
                and isinstance(m.get("content"), str) for m in messages):
            raise Invalid("messages must be a list of {role: string, content: string}",
                          "body", "messages")
        ids = {key: optional(body, key, (str,)) or None for key in SELFHOSTED_IDS}
        metadata = optional(body, "metadata", (dict,))
        infer = optional(body, "infer", (bool,))
        for name in ("memory_type", "prompt"):
            optional(body, name, (str,))
        expiration = optional(body, "expiration_date", (str,))
        if expiration is not None and not is_date(expiration):
            raise Invalid("expiration_date must be a date YYYY-MM-DD", "body",
                          "expiration_date")
        if not any(ids.values()):
            raise BadRequest("At least one identifier (user_id, agent_id, run_id) is required.")
        now = now_iso(micro=True)
        extra = {"expiration_date": expiration} if expiration else {}
        stored = [{"id": str(uuid.uuid4()), "memory": text, "hash": memory_hash(text), **ids,
                   "metadata": metadata, "created_at": now, "updated_at": now, **extra}
                  for text in add_texts(messages, infer is not False)]
        if not store:
            return {"results": []}
        with self.lock:
            for mem in stored:
                self.memories[mem["id"]] = mem
        return {"results": [{"id": m["id"], "memory": m["memory"], "event": "ADD"}
                            for m in stored]}

    def list_selfhosted(self, query):
        """The memories of the ids in the query string (a dict of str), oldest first."""
        top_k = query_int(query, "top_k", 20, 0, 1000)
        ids = {key: query[key] for key in SELFHOSTED_IDS if query.get(key)}
        if not ids:
            raise Forbidden("Admin role required to list all memories.")
        found = [selfhosted_item(m) for m in self.all() if flat_matches(ids, m)]
        return {"results": found[:top_k]}

    def get_selfhosted(self, mem_id):
        """The memory, or None (the server answers null)."""
        mem = self.get(mem_id)
        return selfhosted_item(mem) if mem else None
