"""A stand-in for ../shared (the benchmark data beside the checkout, which the scenario specs name as {shared}/...)
for the script tests: an empty file for every such path a spec names, in a temporary folder that
$MLNET_SHARED_DIR then points to. The tests hash and list those inputs but never run on them, so they read nothing
outside the repository."""
import atexit
import glob
import os
import re
import shutil
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# {shared}/path up to a quote, a space, a comma or a closing bracket; paths with other placeholders are skipped.
SHARED_PATH = re.compile(r"\{shared\}/([^\s\"',\]}]+)")


def install():
    """Creates the stand-in folder (removed at exit), points $MLNET_SHARED_DIR to it and returns its path."""
    root = tempfile.mkdtemp(prefix="mlnet-shared-stand-in-")
    atexit.register(shutil.rmtree, root, ignore_errors=True)
    for spec in glob.glob(os.path.join(ROOT, "scenarios", "*", "*.yaml")):
        with open(spec) as f:
            for match in SHARED_PATH.finditer(f.read()):
                name = match.group(1)
                if "{" in name or not os.path.splitext(name)[1]:
                    continue  # another placeholder inside, or a folder
                path = os.path.join(root, name)
                os.makedirs(os.path.dirname(path), exist_ok=True)
                open(path, "a").close()
    os.environ["MLNET_SHARED_DIR"] = root
    return root
