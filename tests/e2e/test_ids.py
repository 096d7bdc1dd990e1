"""docs/configuration.md#project-id, #user-id, docs/api.md#shared-memory: the user id, the
project id (app_id) and the shared agent id a prompt's search is filtered by are those Mem0's 0.3
plugins compute, for a table of origins and working directories (the hook input's cwd: a
subdirectory, a symbolic link); `mem0-hooks doctor` names bad input and the ids of the rules
before. The 0.3 rules are written out below on their own (hashlib for sha256, git itself for the
top level), not taken from the hooks.
"""

import hashlib
import json
import os
import re
import subprocess
import unittest
import urllib.parse

from hooklib import HookTest
import testmain  # noqa: E402
from gitrepo import make_repo
from hookevents import prompt_event


# --- Mem0's 0.3 plugin rules, written independently ------------------------------------------

def wildcard_free(value):
    value = (value or "").strip()
    return "" if re.fullmatch(r"\*+", value) else value


def user_id_03(env):
    group = (env.get("PLUGIN_OPTION_USER_ID") or env.get("CLAUDE_PLUGIN_OPTION_USER_ID")
             or env.get("MEM0_CODE_USER_ID") or "").strip()
    for value in (group, env.get("MEM0_USER_ID"), env.get("MEM0_RESOLVED_USER_ID"),
                  env.get("USER"), env.get("USERNAME")):
        if wildcard_free(value):
            return wildcard_free(value)
    return "default"


def normalize_03(remote):
    remote = remote.strip()
    if remote.startswith("git@") and ":" in remote:
        remote = "https://" + remote[4:].replace(":", "/", 1)
    if remote.endswith(".git"):
        remote = remote[:-4]
    if "://" in remote:
        parts = urllib.parse.urlsplit(remote)
        host = parts.hostname or ""
        if parts.port:
            host = f"{host}:{parts.port}"
        remote = urllib.parse.urlunsplit((parts.scheme, host, parts.path, parts.query,
                                          parts.fragment))
    return remote.rstrip("/")


def slug_03(raw):
    remote = raw.strip().removesuffix(".git")
    for prefix in ("https://", "http://", "ssh://", "git://"):
        if remote.startswith(prefix):
            remote = remote[len(prefix):]
            break
    else:
        remote = re.sub(r"^git@", "", remote)
    parts = [p for p in remote.replace(":", "/", 1).split("/") if p]
    if len(parts) >= 2:
        return f"{parts[-2]}-{parts[-1]}".replace(":", "-")
    return parts[-1].replace(":", "-") if parts else ""


def ids_03(cwd, env, project_map=None):
    """(app_id, agent_id) for a session in `cwd` as 0.3 resolves them."""
    given_cwd = os.path.abspath(cwd)
    top = subprocess.run(["git", "-C", os.path.realpath(given_cwd), "rev-parse",
                          "--show-toplevel"], capture_output=True, text=True)
    given_root = top.stdout.strip() if top.returncode == 0 else given_cwd
    root = os.path.realpath(given_root)
    raw = subprocess.run(["git", "-C", root, "config", "--get", "remote.origin.url"],
                         capture_output=True, text=True).stdout.strip()
    origin = normalize_03(raw)
    app = wildcard_free(env.get("MEM0_PROJECT_ID"))
    if not app and isinstance(project_map, dict):
        keys = list(dict.fromkeys([given_cwd, given_root, os.path.realpath(given_cwd), root]))
        if raw:
            keys.append("remote:" + hashlib.sha256(raw.encode()).hexdigest()[:16])
        values = [project_map[k].strip() for k in keys
                  if isinstance(project_map.get(k), str) and project_map[k].strip()]
        app = wildcard_free(values[0]) if values else ""
    if not app:
        app = (slug_03(raw) if raw else "") or os.path.basename(given_root) or "unknown"
    if origin:
        return app, f"{app}-{hashlib.sha256(origin.encode()).hexdigest()[:10]}"
    return app, f"local-{app}-{hashlib.sha256(root.encode()).hexdigest()[:10]}"


# --- the table --------------------------------------------------------------------------------

ORIGINS = [
    "git@github.com:Acme/Repo.git",                     # scp-like
    "deploy@git.example.com:team/app.git",              # user@host:path, not git@
    "https://ci-bot:s3cr3t-token@GitLab.Example.com:8443/Group/Sub/Proj.git",  # user-info, port
    "https://github.com/acme/trailing.git/",            # .git/
    "HTTPS://GitHub.COM/Acme/Upper",                    # upper-case scheme and host
    "ssh://git@host.example:22/owner/repo.git",
    "ssh://git@host.example/single",
    "/srv/git/plain-path.git",                          # an origin that is no URL
    None,                                               # no origin
]
SECRET = "s3cr3t-token"


class IdsTest(HookTest):
    def doctor(self, cwd, **env):
        result = self.run_bin("mem0-hooks", None, ["doctor"], env=self.env(**env), cwd=cwd,
                              text=True)
        rows = {}
        for line in result.stdout.splitlines():
            name, _, value = line.partition("  ")
            if name and not name.startswith(" ") and value:
                rows.setdefault(name.strip(), value.strip())
        self.assertNotIn(SECRET, result.stdout + result.stderr)
        return rows

    def searched_ids(self, cwd, env):
        """The user_id, app_id and agent_id values of the filters of a prompt's searches."""
        self.fake.reset()
        self.run_hook("on_user_prompt",
                      prompt_event("Why does the webhook retry invoices twice?", cwd=cwd,
                                   session_id="sess-ids"),
                      env=self.env(**env))
        found = {"user_id": set(), "app_id": set(), "agent_id": set()}

        def walk(node):
            if isinstance(node, dict):
                for key, value in node.items():
                    if key in found and isinstance(value, str):
                        found[key].add(value)
                    walk(value)
            elif isinstance(node, list):
                for item in node:
                    walk(item)
        searches = self.fake.searches()
        self.assertTrue(searches, "no search was sent")
        for search in searches:
            self.assertNotIn(SECRET, json.dumps(search))
            walk(search["filters"])
        return found

    def assert_ids(self, cwd, env, project_map=None):
        app, agent = ids_03(cwd, env, project_map)
        env_seen = {k: v for k, v in self.env(**env).items() if v is not None}
        found = self.searched_ids(cwd, env)
        self.assertEqual(found["app_id"], {app})
        self.assertEqual(found["agent_id"], {agent, app})  # the hashed and the legacy lane
        self.assertEqual(found["user_id"], {user_id_03(env_seen)})

    def make(self, name, origin):
        root = os.path.join(self.home, "code", name)
        make_repo(root, origin=origin)
        sub = os.path.join(root, "pkg", "deep")
        os.makedirs(sub, exist_ok=True)
        return root, sub

    def test_origins_at_the_root_in_a_subdirectory_and_through_a_symlink(self):
        env = {"MEM0_PROJECT_ID": None}
        for index, origin in enumerate(ORIGINS):
            with self.subTest(origin=origin):
                root, sub = self.make(f"checkout{index}", origin)
                link = os.path.join(self.home, f"link{index}")
                os.symlink(root, link)
                for cwd in (root, sub, link, os.path.join(link, "pkg", "deep")):
                    with self.subTest(cwd=cwd):
                        self.assert_ids(cwd, env)

    def test_outside_a_repository_the_base_name_and_the_real_path(self):
        plain = os.path.join(self.home, "plain", "service")
        os.makedirs(plain)
        link = os.path.join(self.home, "service-link")
        os.symlink(plain, link)
        for cwd in (plain, link):
            with self.subTest(cwd=cwd):
                self.assert_ids(cwd, {"MEM0_PROJECT_ID": None})

    def test_project_map_keys_root_real_paths_and_the_raw_url_hash(self):
        origin = "https://bot:" + SECRET + "@github.com/acme/mapped.git"
        root, sub = self.make("mapped", origin)
        link = os.path.join(self.home, "mapped-link")
        os.symlink(root, link)
        raw_key = "remote:" + hashlib.sha256(origin.encode()).hexdigest()[:16]
        maps = [{root: "by-root"}, {raw_key: "by-raw-url"}, {root: "  "}, {root: "*"},
                {os.path.join(root, "pkg"): "not-this-one"}]
        map_path = os.path.join(self.home, ".mem0", "project_map.json")
        os.makedirs(os.path.dirname(map_path), exist_ok=True)
        for project_map in maps:
            with self.subTest(project_map=project_map):
                for cwd in (sub, os.path.join(link, "pkg", "deep")):
                    with open(map_path, "w") as f:
                        json.dump(project_map, f)
                    self.assert_ids(cwd, {"MEM0_PROJECT_ID": None}, project_map)

    def test_the_key_our_previous_release_wrote_still_maps(self):
        origin = "https://bot:" + SECRET + "@github.com/acme/old-key.git"
        root, _ = self.make("old-key", origin)
        clean_key = "remote:" + hashlib.sha256(
            b"https://github.com/acme/old-key.git").hexdigest()[:16]
        os.makedirs(os.path.join(self.home, ".mem0"), exist_ok=True)
        with open(os.path.join(self.home, ".mem0", "project_map.json"), "w") as f:
            json.dump({clean_key: "kept-id"}, f)
        rows = self.doctor(root, MEM0_PROJECT_ID=None)
        self.assertEqual(rows["project id"], "kept-id (project_map.json (remote))")

    def test_user_id_sources_and_the_wildcard(self):
        root, _ = self.make("users", "git@github.com:acme/users.git")
        cases = [
            {"PLUGIN_OPTION_USER_ID": " opt ", "MEM0_USER_ID": "env"},
            {"CLAUDE_PLUGIN_OPTION_USER_ID": "claude", "MEM0_CODE_USER_ID": "code"},
            {"MEM0_CODE_USER_ID": "code", "MEM0_USER_ID": "env"},
            {"MEM0_USER_ID": "*", "MEM0_RESOLVED_USER_ID": "resolved"},
            {"MEM0_USER_ID": "***", "USER": "login"},
            {"USER": None, "USERNAME": "win"},
            {"USER": "*", "USERNAME": None},
        ]
        for case in cases:
            with self.subTest(env=case):
                env = {k: v for k, v in self.env(**case).items() if v is not None}
                found = self.searched_ids(root, case)
                self.assertEqual(found["user_id"], {user_id_03(env)})
                self.assertNotIn("", {u.strip("*") for u in found["user_id"]})
                rows = self.doctor(root, **case)
                self.assertEqual(rows["user id"].split(" (")[0], user_id_03(env), rows["user id"])

    def test_bad_input_is_named_and_falls_back(self):
        root, sub = self.make("bad", "git@github.com:acme/bad.git")
        map_path = os.path.join(self.home, ".mem0", "project_map.json")
        os.makedirs(os.path.dirname(map_path), exist_ok=True)
        with open(map_path, "w") as f:
            f.write('{"' + root + '": "trunc')
        rows = self.doctor(sub, MEM0_PROJECT_ID=None)
        self.assertTrue(rows["project id"].startswith("acme-bad (git remote origin)"),
                        rows["project id"])
        self.assertIn("project_map.json is not valid JSON: skipped", rows["project id"])
        rows = self.doctor(sub, MEM0_PROJECT_ID="*")
        self.assertTrue(rows["project id"].startswith("acme-bad (git remote origin)"),
                        rows["project id"])
        self.assertIn("MEM0_PROJECT_ID=* ignored", rows["project id"])

    def test_doctor_names_the_id_of_the_rules_before(self):
        root, sub = self.make("moved", "https://github.com/acme/moved.git/")
        rows = self.doctor(sub, MEM0_PROJECT_ID=None)
        # before: `/` then `.git` stripped (acme-moved); 0.3 keeps `.git` before a `/`
        self.assertEqual(rows["project id"], "acme-moved.git (git remote origin) "
                                             "(was: acme-moved before 0.3-compatible ids)")
        plain = os.path.join(self.home, "plain2", "top")
        os.makedirs(os.path.join(plain, "inner"))
        make_repo(plain)
        rows = self.doctor(os.path.join(plain, "inner"), MEM0_PROJECT_ID=None)
        self.assertEqual(rows["project id"],
                         "top (directory name) (was: inner before 0.3-compatible ids)")
        rows = self.doctor(plain, MEM0_PROJECT_ID=None)
        self.assertEqual(rows["project id"], "top (directory name)")


if __name__ == "__main__":
    testmain.main()
