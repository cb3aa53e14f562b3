"""How the hot loop manages memory: no reference counting inside it, borrowed views at its edge.

Every numba array carries a pointer to its reference count (its "meminfo"), and numba
increments and decrements that count, atomically, each time an array is passed to a function,
taken out of a tuple or sliced. In the game loop that happens hundreds of times a turn and was
measured to cost about two thirds of the time of a random game and three fifths of a
``balanced`` one (``_disable_atomicity`` in numba's NRT: 3.2k -> 9.8k and 1.1k -> 2.6k games per
CPU-second, 4 players, one thread).

A borrowed view has the same data, shape and strides but no meminfo, so those updates become a
null check. It owns nothing: its owner must outlive it. ``play_games_nb`` keeps to that by
borrowing only arrays that its caller holds for the whole call (the Python-side inputs and
outputs, and the work buffers, which its Python caller allocates: ``play.new_work``). Borrowed views
must never be returned to Python.

Even a null check is a call: the loop's functions are therefore compiled with ``hot_njit``,
without numba's runtime (NRT) at all, so no reference count is touched inside the loop. This was
worth 1.7x for ``balanced`` and 2.0x for ``random`` on top of borrowing (2.5k -> 4.3k and
8.3k -> 16.6k games per second, 4 players, one thread, same games bit for bit). Such a function
cannot allocate: numba refuses to compile one that does ("NRT required"), so the guarantee is
checked at compile time. Borrowed views still matter for users' policies, which are compiled
with the runtime and are called from the loop.

The flag is set on every loop function rather than inherited from the loop's entry point:
numba's dispatchers key compiled code by argument types only, so a callee first compiled for an
NRT caller would otherwise be reused, with its reference counting, inside the loop.
"""

import functools
import hashlib
import os
from pathlib import Path

from numba import njit, types

# numba imports its boxing module lazily, inside the first compile that needs it; a first import
# cut short leaves its registrations behind and every later one fails ("duplicate registration for
# Boolean", met once in a few full runs of the suite): imported here, once, as the engine loads
from numba.core import boxing as _boxing  # noqa: F401
from numba.core import cgutils
from numba.core.caching import CompileResultCacheImpl, FunctionCache

try:  # numba >= 0.61 names it without the underscore
    from numba.core.caching import UserProvidedCacheLocator
except ImportError:  # numba 0.60, the floor
    from numba.core.caching import _UserProvidedCacheLocator as UserProvidedCacheLocator
from numba.extending import intrinsic

from smsim._cache import PACKAGE_DIR, part_key


def markers_of(args) -> set[str]:
    """The names of the namedtuple types in a compiled signature, nested ones included: what says
    which parts (``_cache.PARTS``: the learned policy, the search) the compiled code holds."""
    found, todo = set(), list(getattr(args, "args", args))
    while todo:
        t = todo.pop()
        if isinstance(t, types.BaseNamedTuple):
            found.add(t.instance_class.__name__)
        if isinstance(t, types.BaseTuple):
            todo.extend(t.types)
    return found


@functools.cache
def _content_hash(path: str, mtime: float, size: int) -> str:  # keyed on mtime and size: an edit re-hashes
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


class PackageCacheLocator(UserProvidedCacheLocator):
    """Where numba keeps a function's machine code under ``NUMBA_CACHE_DIR``: in a subdirectory
    named after the module's folder within the package (``smsim_engine``), not after a hash of its
    absolute path as numba's own locator does. A fresh clone, a reinstall or a virtual environment
    elsewhere then finds what an earlier checkout of the same sources compiled: the directory above
    is named after every jit module's content (``_cache.py``) and numba checks each file's
    content hash (its source stamp) on load. A file outside the package (a user's policy) keeps
    numba's naming."""

    def get_source_stamp(self):
        """The file's content hash (numba 0.60 stamps with the modification time, which a fresh
        clone changes; later numba versions hash the content too)."""
        st = os.stat(self._py_file)
        return _content_hash(self._py_file, st.st_mtime, st.st_size)

    @classmethod
    def get_suitable_cache_subpath(cls, py_file):
        folder = Path(py_file).resolve().parent
        if not folder.is_relative_to(PACKAGE_DIR):
            return super().get_suitable_cache_subpath(py_file)
        return "_".join(folder.relative_to(PACKAGE_DIR.parent).parts)


class PackageCacheImpl(CompileResultCacheImpl):
    _locator_classes = (PackageCacheLocator, *CompileResultCacheImpl._locator_classes)


class PartKeyedCache(FunctionCache):
    """numba's on-disk cache of one function, each compiled signature's entry keyed also on the
    sources of the parts it holds (``_cache.part_key``): the directory is named after the base
    sources only, so without this a loop compiled with the learned policy would outlive an edit
    of the policy. Located by ``PackageCacheLocator``."""

    _impl_class = PackageCacheImpl

    def _index_key(self, sig, codegen):
        return (*super()._index_key(sig, codegen), part_key(self._py_func.__module__, markers_of(sig)))


def cached_njit(fn=None, **options):
    """``njit`` with smsim's on-disk cache (``PartKeyedCache``) in place of numba's ``cache=True``."""

    def wrap(f):
        dispatcher = njit(**options)(f)
        dispatcher._cache = PartKeyedCache(dispatcher.py_func)
        return dispatcher

    return wrap if fn is None else wrap(fn)


def is_cached(dispatcher, args: tuple) -> bool:
    """Whether calling ``dispatcher`` with ``args`` would find its machine code compiled, in this
    process or in the on-disk cache (``on_disk``)."""
    sig = tuple(dispatcher.typeof_pyval(a) for a in args)
    return sig in dispatcher.overloads or on_disk(dispatcher, sig)


def on_disk(dispatcher, sig: tuple) -> bool:
    """Whether numba's on-disk index of ``dispatcher`` holds machine code for the signature ``sig``
    (a tuple of numba types) under today's key: the sources' stamp, the signature, the parts."""
    cache = dispatcher._cache
    if not isinstance(cache, FunctionCache):
        return False
    key = cache._index_key(sig, dispatcher.targetctx.codegen())
    return key in cache._cache_file._load_index()


# njit for a function of the game loop: cached, and compiled without reference counting
# (``_nrt`` is numba's own switch for it; numba is pinned in pyproject.toml). ``nogil`` is for the
# batch entry ``play.play_games_nb``, set on all so that every loop function shares one set of
# flags: numba builds the implementations of the builtins a function uses once per set of flags.
# ``forceinline`` is set (to False) so that a function's callees do not inherit a caller's True
# (numba passes it down when unset).
hot_njit = functools.partial(cached_njit, _nrt=False, nogil=True, forceinline=False)


def loop_njit(fn=None, **options):
    """hot_njit for a function that only compiled code calls (one taking the ``Work`` tuple):
    numba then builds no wrapper to call it from Python, whose code to unbox and box a tuple of
    some thirty arrays was compiled, optimised and linked into every caller for nothing (about
    3 s of the first compile). Python must never call such a function: there is no entry for it
    to call (a test that needs one calls it from an njit function of its own).

    ``loop_njit(forceinline=True)``: the function is compiled once and LLVM inlines it at every
    call site, for the speed of numba's ``inline="always"`` without numba typing its code again
    at each site (the arguments must then have one type at every site: a literal constant
    compiles a specialisation of its own)."""
    options = {"no_cpython_wrapper": True, "no_cfunc_wrapper": True, **options}
    return hot_njit(**options) if fn is None else hot_njit(fn, **options)


@intrinsic
def borrow_nb(typingctx, arr):
    """A view of ``arr`` without reference counting (see the module docstring)."""
    if not isinstance(arr, types.Array):
        return None

    def codegen(context, builder, signature, args):
        src = context.make_array(arr)(context, builder, value=args[0])
        dst = context.make_array(arr)(context, builder)
        dst.meminfo = cgutils.get_null_value(dst.meminfo.type)
        dst.parent = cgutils.get_null_value(dst.parent.type)
        dst.nitems = src.nitems
        dst.itemsize = src.itemsize
        dst.data = src.data
        dst.shape = src.shape
        dst.strides = src.strides
        return dst._getvalue()

    return arr(arr), codegen
