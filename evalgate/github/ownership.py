"""What the action writes into the workspace is handed to the workspace's owner.

A Docker container action runs as root, while the runner mounts the workspace owned by its own user
(uid 1001 on GitHub's hosted runners). Whatever root leaves there — the results file, the judge reply
cache, a history file, objects a deepening `git fetch` adds to .git — is root's: on a self-hosted
runner the next job's `actions/checkout` cannot clean it (a root-owned directory's entries cannot be
removed by the runner's user). So after the run every entry under the workspace that this process's
user owns gets the uid and gid of the workspace directory itself. Nothing happens unless the process
is root and the workspace belongs to another user.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Handover:
    """What `give_to_workspace_owner` did: entries re-owned, entries it could not re-own."""

    changed: int = 0
    failed: int = 0


def give_to_workspace_owner(workspace: Path) -> Handover:
    """Chown every entry under `workspace` (itself excluded, symlinks not followed) that the current
    user owns to the workspace's uid:gid, when the current user is root and the workspace is not."""
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        return Handover()  # only root can give files away, and only root leaves root-owned files
    try:
        owner = os.stat(workspace)
    except OSError:
        return Handover()
    if owner.st_uid == 0:
        return Handover()
    changed = failed = 0
    pending = [os.fspath(workspace)]
    while pending:
        try:
            entries = list(os.scandir(pending.pop()))
        except OSError:
            continue
        for entry in entries:
            try:
                if entry.is_dir(follow_symlinks=False):
                    pending.append(entry.path)
                if entry.stat(follow_symlinks=False).st_uid == 0:
                    os.chown(entry.path, owner.st_uid, owner.st_gid, follow_symlinks=False)
                    changed += 1
            except OSError:
                failed += 1
    return Handover(changed, failed)
