"""A git checkout's files, written directly (the hooks read git's files and never run git).

    make_repo(project)                                    # .git/HEAD on main, no remote
    make_repo(project, origin="git@github.com:acme/billing.git")
    make_repo(main, origin=url, worktree=linked_dir)      # plus a linked worktree
"""

import os

CONFIG = "[core]\n\trepositoryformatversion = 0\n\tbare = false\n"
ORIGIN = '[remote "origin"]\n\turl = {url}\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n'


def _write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def make_repo(root, origin=None, branch="main", worktree=None, worktree_branch="feature"):
    """Write a repository at `root`: .git/HEAD on `branch`, .git/config with
    `[remote "origin"] url = origin` when origin is given, empty objects/ and refs/ (no
    commits). Files already under root stay.

    worktree: the path of a linked worktree to add, as `git worktree add` lays it out: a
    `.git` file `gitdir: <root>/.git/worktrees/<name>`, whose HEAD is on worktree_branch and
    whose `commondir` leads back to the shared .git (and so to its config).
    Returns root.
    """
    git = os.path.join(root, ".git")
    for sub in ("objects", os.path.join("refs", "heads")):  # so that git itself accepts it
        os.makedirs(os.path.join(git, sub), exist_ok=True)
    _write(os.path.join(git, "HEAD"), f"ref: refs/heads/{branch}\n")
    _write(os.path.join(git, "config"), CONFIG + (ORIGIN.format(url=origin) if origin else ""))
    if worktree is not None:
        admin = os.path.join(git, "worktrees", os.path.basename(os.path.normpath(worktree)))
        _write(os.path.join(admin, "HEAD"), f"ref: refs/heads/{worktree_branch}\n")
        _write(os.path.join(admin, "commondir"), "../..\n")
        _write(os.path.join(admin, "gitdir"), os.path.join(worktree, ".git") + "\n")
        _write(os.path.join(worktree, ".git"), f"gitdir: {admin}\n")
    return root
