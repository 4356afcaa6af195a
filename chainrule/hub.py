"""torch.hub: entrypoints published in a `hubconf.py` (in a GitHub repository or a local
directory), and files fetched by URL into a cache directory (`get_dir()`).

Repositories given as "owner/name[:ref]" are kept in get_dir() as owner_name_ref; a missing
one is downloaded as GitHub's zip archive (after the trust prompt and the check that the ref is
the repository's own, as PyTorch does). Files are fetched with urllib, so any URL it opens
works (file:// included); downloads need the network, as PyTorch's do. One difference:
`load_state_dict_from_url` reads checkpoints with chainrule.load, so they must be in
chainrule's format; PyTorch's pickled checkpoints are refused with a clear error, never
unpickled."""
import contextlib
import errno
import hashlib
import importlib.util
import json
import os
import re
import shutil
import sys
import tempfile
import uuid
import warnings
import zipfile
from pathlib import Path
from urllib.error import HTTPError, URLError
from urllib.parse import urlparse
from urllib.request import Request, urlopen

__all__ = ["download_url_to_file", "get_dir", "help", "list", "load",
           "load_state_dict_from_url", "set_dir"]

# PyTorch's module constants (some programs read them)
HASH_REGEX = re.compile(r"-([a-f0-9]*)\.")  # the hash in e.g. resnet18-bfd8deac.pth
ENV_GITHUB_TOKEN = "GITHUB_TOKEN"
ENV_TORCH_HOME = "TORCH_HOME"
ENV_XDG_CACHE_HOME = "XDG_CACHE_HOME"
DEFAULT_CACHE_DIR = "~/.cache"
VAR_DEPENDENCY = "dependencies"
MODULE_HUBCONF = "hubconf.py"
READ_DATA_CHUNK = 128 * 1024

# owners whose repositories need no trust prompt
_TRUSTED_REPO_OWNERS = ("facebookresearch", "facebookincubator", "pytorch", "fairinternal")
_hub_dir = None  # set by set_dir()


class _StderrProgress:
    """Stand-in for tqdm when it is not installed: percent (or bytes) on stderr."""

    def __init__(self, total=None, disable=False, unit=None, *args, **kwargs):
        self.total, self.disable, self.n = total, disable, 0

    def update(self, n):
        if self.disable:
            return
        self.n += n
        shown = (f"{self.n:.1f} bytes" if self.total is None
                 else f"{100 * self.n / float(self.total):.1f}%")
        sys.stderr.write("\r" + shown)
        sys.stderr.flush()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if not self.disable:
            sys.stderr.write("\n")


try:
    from tqdm import tqdm
except ImportError:
    tqdm = _StderrProgress


def _get_torch_home():
    """$TORCH_HOME, else $XDG_CACHE_HOME/torch, else ~/.cache/torch."""
    cache = os.getenv(ENV_XDG_CACHE_HOME, DEFAULT_CACHE_DIR)
    return os.path.expanduser(os.getenv(ENV_TORCH_HOME, os.path.join(cache, "torch")))


def get_dir():
    """The directory where hub keeps repositories and downloaded files: set_dir's, else
    $TORCH_HOME/hub, else $XDG_CACHE_HOME/torch/hub, else ~/.cache/torch/hub."""
    if os.getenv("TORCH_HUB"):
        warnings.warn("TORCH_HUB is deprecated, please use env TORCH_HOME instead", stacklevel=2)
    return _hub_dir if _hub_dir is not None else os.path.join(_get_torch_home(), "hub")


def set_dir(d):
    """Make `d` the hub directory."""
    global _hub_dir
    _hub_dir = os.path.expanduser(d)


def _delete(path):
    """Remove a file or a directory tree, if there."""
    if not os.path.exists(path):
        return
    if os.path.isfile(path):
        os.remove(path)
    else:
        shutil.rmtree(path)


# ---- hubconf.py --------------------------------------------------------------------------

@contextlib.contextmanager
def _importable_from(directory):
    """hubconf.py may import modules beside it: its directory leads sys.path meanwhile."""
    sys.path.insert(0, directory)
    try:
        yield
    finally:
        sys.path.remove(directory)


def _exec_hubconf(directory):
    spec = importlib.util.spec_from_file_location(
        MODULE_HUBCONF, os.path.join(directory, MODULE_HUBCONF))
    hubconf = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hubconf)
    return hubconf


def _attribute(hubconf, name):
    return getattr(hubconf, name) if name in dir(hubconf) else None


def _entrypoint(hubconf, model):
    """The callable `model` of hubconf, once the modules it lists as dependencies exist."""
    if not isinstance(model, str):
        raise ValueError("Invalid input: model should be a string of function name")
    needed = _attribute(hubconf, VAR_DEPENDENCY)
    if needed is not None:
        absent = [pkg for pkg in needed if importlib.util.find_spec(pkg) is None]
        if absent:
            raise RuntimeError(f"Missing dependencies: {', '.join(absent)}")
    entry = _attribute(hubconf, model)
    if entry is None or not callable(entry):
        raise RuntimeError(f"Cannot find callable {model} in hubconf")
    return entry


# ---- GitHub repositories -----------------------------------------------------------------

def _default_branch(owner, name):
    """main if the repository has it, else master; offline, whichever is cached."""
    try:
        with urlopen(f"https://github.com/{owner}/{name}/tree/main/"):
            return "main"
    except HTTPError as e:
        if e.code != 404:
            raise
        return "master"
    except URLError as e:
        for branch in ("main", "master"):
            if os.path.exists(f"{get_dir()}/{owner}_{name}_{branch}"):
                return branch
        raise RuntimeError("It looks like there is no internet connection and the repo could "
                           f"not be found in the cache ({get_dir()})") from e


def _split_github(github):
    """"owner/name[:ref]" -> (owner, name, ref)."""
    repo, ref = github.split(":") if ":" in github else (github, None)
    owner, name = repo.split("/")
    return owner, name, ref if ref is not None else _default_branch(owner, name)


def _github_json(url, headers):
    with urlopen(Request(url, headers=headers)) as response:
        return json.loads(response.read().decode(response.headers.get_content_charset("utf-8")))


def _check_ref_is_the_repos_own(owner, name, ref):
    """A ref must be a branch or tag of the repository (or a prefix of one's commit), not a
    commit of some fork, which GitHub would also serve under this repository's name."""
    headers = {"Accept": "application/vnd.github.v3+json"}
    token = os.environ.get(ENV_GITHUB_TOKEN)
    if token is not None:
        headers["Authorization"] = f"token {token}"
    api = f"https://api.github.com/repos/{owner}/{name}"
    for kind in ("branches", "tags"):
        page = 1
        while True:
            url = f"{api}/{kind}?per_page=100&page={page}"
            try:
                listed = _github_json(url, headers)
            except HTTPError:
                headers.pop("Authorization")  # the token may lack permissions: retry without
                listed = _github_json(url, headers)
            if not listed:
                break
            if any(item["name"] == ref or item["commit"]["sha"].startswith(ref)
                   for item in listed):
                return
            page += 1
    raise ValueError(f"Cannot find {ref} in https://github.com/{owner}/{name}. If it's a commit "
                     "from a forked repo, please call hub.load() with forked repo directly.")


def _ask_trust(owner, name, folder, trust_repo):
    """Ask before using a repository not yet trusted (trust_repo="check") or always
    (trust_repo=False); trusted repositories are remembered in get_dir()/trusted_list."""
    hub_dir = get_dir()
    listing = os.path.join(hub_dir, "trusted_list")
    if not os.path.exists(listing):
        Path(listing).touch()
    with open(listing) as f:
        trusted = tuple(line.strip() for line in f)
    owner_name = f"{owner}_{name}"
    # repositories downloaded before the list existed count as trusted
    downloaded = next(os.walk(hub_dir))[1]
    known = owner_name in trusted or folder in downloaded or owner in _TRUSTED_REPO_OWNERS
    if trust_repo is False or (trust_repo == "check" and not known):
        answer = input(f"The repository {owner_name} does not belong to the list of trusted "
                       "repositories and as such cannot be downloaded. Do you trust this "
                       "repository and wish to add it to the trusted list of repositories "
                       "(y/N)?")
        if answer.lower() in ("y", "yes"):
            if known:
                print("The repository is already trusted.")
        elif answer.lower() in ("n", "no", ""):
            raise Exception("Untrusted repository.")  # noqa: TRY002  (PyTorch's class)
        else:
            raise ValueError(f"Unrecognized response {answer}.")
    if not known:
        with open(listing, "a") as f:
            f.write(owner_name + "\n")


def _download_repo(owner, name, ref, hub_dir, folder):
    """Fetch the repository's zip archive and unpack it as hub_dir/folder."""
    archive = os.path.join(hub_dir, ref.replace("/", "_") + ".zip")
    _delete(archive)
    url = f"https://github.com/{owner}/{name}/zipball/{ref}"
    try:
        sys.stdout.write(f'Downloading: "{url}" to {archive}\n')
        download_url_to_file(url, archive, progress=False)
    except HTTPError as e:
        if e.code != 300:
            raise
        # 300: the ref names both a tag and a branch; take the branch, as git does (the
        # warning points at the caller of load/list/help's helper, as PyTorch's does)
        warnings.warn(f"The ref {ref} is ambiguous. Perhaps it is both a tag and a branch in "
                      "the repo? Torchhub will now assume that it's a branch. You can "
                      "disambiguate tags and branches by explicitly passing "
                      "refs/heads/branch_name or refs/tags/tag_name as the ref. That might "
                      "require using skip_validation=True.", stacklevel=3)
        download_url_to_file(f"https://github.com/{owner}/{name}/zipball/refs/heads/{ref}",
                             archive, progress=False)
    with zipfile.ZipFile(archive) as zf:
        # GitHub puts everything under one top-level folder
        unpacked = os.path.join(hub_dir, zf.infolist()[0].filename)
        _delete(unpacked)
        _safe_extract_zip(zf, hub_dir)
    _delete(archive)
    target = os.path.join(hub_dir, folder)
    _delete(target)
    shutil.move(unpacked, target)


def _repo_dir(github, force_reload, trust_repo, verbose=True, skip_validation=False):
    """The local copy of repository `github`, downloaded unless cached (or force_reload)."""
    hub_dir = get_dir()
    os.makedirs(hub_dir, exist_ok=True)
    owner, name, ref = _split_github(github)
    folder = f"{owner}_{name}_{ref.replace('/', '_')}"  # a branch name may hold '/'
    _ask_trust(owner, name, folder, trust_repo)
    local = os.path.join(hub_dir, folder)
    if os.path.exists(local) and not force_reload:
        if verbose:
            sys.stderr.write(f"Using cache found in {local}\n")
        return local
    if not skip_validation:
        _check_ref_is_the_repos_own(owner, name, ref)
    _download_repo(owner, name, ref, hub_dir, folder)
    return local


# ---- the public entry points -------------------------------------------------------------

def list(github, force_reload=False, skip_validation=False, trust_repo="check", verbose=True):
    """The entrypoints (public callables of hubconf.py) of repository `github`
    ("owner/name[:ref]")."""
    directory = _repo_dir(github, force_reload, trust_repo, verbose=verbose,
                          skip_validation=skip_validation)
    with _importable_from(directory):
        hubconf = _exec_hubconf(directory)
    return [attr for attr in dir(hubconf)
            if callable(getattr(hubconf, attr)) and not attr.startswith("_")]


def help(github, model, force_reload=False, skip_validation=False, trust_repo="check"):
    """The docstring of entrypoint `model` of repository `github`."""
    directory = _repo_dir(github, force_reload, trust_repo, verbose=True,
                          skip_validation=skip_validation)
    with _importable_from(directory):
        hubconf = _exec_hubconf(directory)
    return _entrypoint(hubconf, model).__doc__


def load(repo_or_dir, model, *args, source="github", trust_repo="check", force_reload=False,
         verbose=True, skip_validation=False, **kwargs):
    """Call entrypoint `model` of the hubconf.py in a GitHub repository (source="github",
    "owner/name[:ref]") or a local directory (source="local") with `args` and `kwargs`."""
    source = source.lower()
    if source == "github":
        repo_or_dir = _repo_dir(repo_or_dir, force_reload, trust_repo, verbose=verbose,
                                skip_validation=skip_validation)
    elif source != "local":
        raise ValueError(f'Unknown source: "{source}". Allowed values: "github" | "local".')
    with _importable_from(repo_or_dir):
        return _entrypoint(_exec_hubconf(repo_or_dir), model)(*args, **kwargs)


# ---- files by URL --------------------------------------------------------------------------

def _new_partial_file(dst):
    """A fresh dst.<random>.partial opened for writing (the download lands there first)."""
    for _ in range(tempfile.TMP_MAX):
        try:
            return open(dst + "." + uuid.uuid4().hex + ".partial", "w+b")  # noqa: SIM115
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "No usable temporary file name found")


def download_url_to_file(url, dst, hash_prefix=None, progress=True):
    """Download `url` to `dst` (through a temporary file, so a failed download leaves no
    partial file), checking that its sha256 starts with `hash_prefix` when given."""
    dst = os.path.expanduser(dst)
    partial = _new_partial_file(dst)
    try:
        with urlopen(Request(url, headers={"User-Agent": "torch.hub"})) as response:
            lengths = response.info().get_all("Content-Length")
            size = int(lengths[0]) if lengths else None
            digest = hashlib.sha256() if hash_prefix is not None else None
            with tqdm(total=size, disable=not progress, unit="B", unit_scale=True,
                      unit_divisor=1024) as bar:
                for chunk in iter(lambda: response.read(READ_DATA_CHUNK), b""):
                    partial.write(chunk)
                    if digest is not None:
                        digest.update(chunk)
                    bar.update(len(chunk))
            partial.close()
            if digest is not None and not digest.hexdigest().startswith(hash_prefix):
                raise RuntimeError(f'invalid hash value (expected "{hash_prefix}", got '
                                   f'"{digest.hexdigest()}")')
        shutil.move(partial.name, dst)
    finally:
        partial.close()
        if os.path.exists(partial.name):
            os.remove(partial.name)


def _is_legacy_zip_format(filename):
    """PyTorch's legacy checkpoint: a zip holding just the one (non-directory) file. A
    chainrule file holding no tensor has one member too, its manifest, and is not one."""
    from .serialization import _MANIFEST
    if not zipfile.is_zipfile(filename):
        return False
    with zipfile.ZipFile(filename) as zf:
        members = zf.infolist()
    return len(members) == 1 and not members[0].is_dir() and members[0].filename != _MANIFEST


def _safe_extract_zip(zip_file, extract_to):
    """Extract every member, refusing absolute paths and paths leaving `extract_to`."""
    root = Path(extract_to).resolve(strict=False)
    for member in zip_file.infolist():
        path = os.path.normpath(member.filename)
        drive_letter = len(path) >= 2 and path[1] == ":" and path[0].isalpha()
        if path.startswith(("/", "\\")) or drive_letter:
            raise ValueError(f"Archive entry has absolute path: {member.filename}")
        if ".." in re.split(r"[/\\]", path):
            raise ValueError(f"Archive entry contains directory traversal: {member.filename}")
        if not (root / path).resolve(strict=False).is_relative_to(root):
            raise ValueError(f"Archive entry escapes target directory: {member.filename}")
        zip_file.extract(member, root)


def _load_checkpoint(path, map_location):
    from .serialization import load as _load
    try:
        return _load(path, map_location=map_location)
    except RuntimeError as e:
        if "is not a valid chainrule file" not in str(e):
            raise
        raise RuntimeError(f"{e}. chainrule reads only its own save format: it does not "
                           "unpickle PyTorch checkpoints. Convert the checkpoint with PyTorch "
                           "(load it there and save its tensors with chainrule.save).") from None


def load_state_dict_from_url(url, model_dir=None, map_location=None, progress=True,
                             check_hash=False, file_name=None, weights_only=False):
    """The object saved at `url`, downloaded once into `model_dir` (get_dir()/checkpoints)
    and read with chainrule.load. check_hash: the file name's -<hex>. part must prefix its
    sha256."""
    if os.getenv("TORCH_MODEL_ZOO"):
        warnings.warn("TORCH_MODEL_ZOO is deprecated, please use env TORCH_HOME instead",
                      stacklevel=2)
    if model_dir is None:
        model_dir = os.path.join(get_dir(), "checkpoints")
    os.makedirs(model_dir, exist_ok=True)
    base = file_name if file_name is not None else os.path.basename(urlparse(url).path)
    cached = os.path.join(model_dir, base)
    if not os.path.exists(cached):
        sys.stdout.write(f'Downloading: "{url}" to {cached}\n')
        found = HASH_REGEX.search(base) if check_hash else None
        download_url_to_file(url, cached, found.group(1) if found else None, progress=progress)
    if _is_legacy_zip_format(cached):
        with zipfile.ZipFile(cached) as zf:
            inner = zf.infolist()[0].filename
            _safe_extract_zip(zf, model_dir)
        cached = os.path.join(model_dir, inner)
    return _load_checkpoint(cached, map_location)
