"""What every reference file written by the scripts of tests/reference records about how it was made.

Each file gets a "provenance" block: the script, the Python and package versions, the sha256 of every input it
read (paths relative to the repository root, or to ../shared for the shared data), and the pip command that
recreates the environment. The C++ tests check the input hashes, so a changed input cannot silently keep an old
reference.
"""
import hashlib
import importlib.metadata
import os
import platform

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SHARED = os.environ.get("HFCORE_SHARED_DIR", os.path.join(ROOT, "..", "shared"))

# The environment the reference files were made in (Python 3.11); mpmath only for the 50-digit values.
PIP_PINS = "pip install pyhf==0.7.6 numpy==2.4.6 scipy==1.17.1 iminuit==2.33.0 mpmath==1.3.0"


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def shared_path(rel):
    return os.path.join(SHARED, rel)


def repo_path(rel):
    return os.path.join(ROOT, rel)


def provenance(script, packages, shared_inputs=(), repo_inputs=()):
    """The provenance block: `shared_inputs` relative to ../shared, `repo_inputs` relative to the repository."""
    return {
        "generator": "tests/reference/" + script,
        "python": platform.python_version(),
        "versions": {p: importlib.metadata.version(p) for p in packages},
        "recreate": PIP_PINS,
        "shared_sha256": {rel: sha256(shared_path(rel)) for rel in shared_inputs},
        "repo_sha256": {rel: sha256(repo_path(rel)) for rel in repo_inputs},
    }
