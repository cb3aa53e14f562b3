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
import importlib
import io
import os
import pickle
from pathlib import Path

import llvmlite.binding as llvm
from numba import njit, types

# numba imports its boxing module lazily, inside the first compile that needs it; a first import
# cut short leaves its registrations behind and every later one fails ("duplicate registration for
# Boolean", met once in a few full runs of the suite): imported here, once, as the engine loads
from numba.core import boxing as _boxing  # noqa: F401
from numba.core import cgutils
from numba.core.caching import CompileResultCacheImpl, FunctionCache, IndexDataCacheFile
from numba.core.codegen import JITCodeLibrary, JITCPUCodegen
from numba.core.compiler import Compiler
from numba.core.compiler_lock import require_global_compiler_lock

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

    def rebuild(self, target_context, payload):
        """A link-only function's entry is its IR (``LINK_ONLY``), which numba's own reader does
        not know: read it as a ``LinkOnlyLibrary`` (numba's compile lock is held here)."""
        if payload[0][1] != LINK_ONLY:
            return super().rebuild(target_context, payload)
        codegen = target_context.codegen()
        codegen.unserialize_library = functools.partial(LinkOnlyLibrary.unserialize, codegen)
        try:
            return super().rebuild(target_context, payload)
        finally:
            del codegen.unserialize_library


class Absent:
    """A class named in a cache index that this process cannot import: a probe kind or a policy
    defined in a script or a test module that another process compiled the loop with. numba
    keeps every signature of a function in one pickled index, so one such entry would make every
    load of the loop fail (``ModuleNotFoundError``) wherever that module is not on the path. Read
    as an ``Absent``, the entry's key matches nothing here, and it is written back as it was
    (``_global``), for the processes that can import it."""

    def __init__(self, module: str, name: str):
        self.module, self.name = module, name

    def __reduce__(self):
        return (_global, (self.module, self.name))

    def __call__(self, *args, **kwargs):  # the stream may build something with it: as absent
        return self

    def __setstate__(self, state):
        pass

    def __repr__(self) -> str:
        return f"Absent({self.module}.{self.name})"


def _global(module: str, name: str):
    """The global ``module.name``, or an ``Absent`` where its module cannot be imported."""
    try:
        found = importlib.import_module(module)
        for part in name.split("."):
            found = getattr(found, part)
        return found
    except (ImportError, AttributeError):
        return Absent(module, name)


class _IndexUnpickler(pickle.Unpickler):
    def find_class(self, module, name):
        try:
            return super().find_class(module, name)
        except (ImportError, AttributeError):
            return Absent(module, name)


class IndexFile(IndexDataCacheFile):
    """numba's index and data files of one function, read so that an entry naming a class this
    process cannot import is passed over (``Absent``), not fatal. An index unreadable for any
    other reason is a miss, and is then left as it is: nothing is saved beside it, since a new
    entry's data file could take the name of one it lists."""

    unreadable = False

    def _load_index(self):
        try:
            with open(self._index_path, "rb") as f:
                version = pickle.load(f)
                data = f.read()
        except FileNotFoundError:
            return {}
        if version != self._version:
            return {}
        try:
            stamp, overloads = _IndexUnpickler(io.BytesIO(data)).load()
        except Exception:
            self.unreadable = True
            return {}
        return overloads if stamp == self._source_stamp else {}

    def save(self, key, data):
        self._load_index()
        if not self.unreadable:
            super().save(key, data)


class PartKeyedCache(FunctionCache):
    """numba's on-disk cache of one function, each compiled signature's entry keyed also on the
    sources of the parts it holds (``_cache.part_key``): the directory is named after the base
    sources only, so without this a loop compiled with the learned policy would outlive an edit
    of the policy. Located by ``PackageCacheLocator``; its index read by ``IndexFile``."""

    _impl_class = PackageCacheImpl

    def __init__(self, py_func):
        super().__init__(py_func)
        self._cache_file = IndexFile(
            cache_path=self._cache_path,
            filename_base=self._impl.filename_base,
            source_stamp=self._impl.locator.get_source_stamp(),
        )

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


LINK_ONLY = "smsim link-only IR"  # a cache entry's kind (numba's are "object" and "bitcode")


class LinkOnlyLibrary(JITCodeLibrary):
    """The code of a function only compiled code calls (``loop_njit``): LLVM IR to be linked into
    its callers, never optimised as a whole or made machine code on its own.

    numba finalises every function it compiles: it links in the callees' IR, optimises the whole
    module and makes it machine code; then each caller links the same IR again, optimises and
    makes machine code of all of it again, level after level of the loop. Only the loop's entry
    (``play.play_games_nb``, called from Python) runs, so the levels below did that work for
    nothing: about 5 s of a heuristic line-up's 26 s first compile (2-core machine). Here finalising
    links the callees and stops; the entry's module is optimised and made machine code once.
    Should anything ask for this library's machine code (a pointer to a function it defines, its
    assembly), it is made then, as numba would have. The on-disk cache keeps the linked IR
    (``LINK_ONLY``), not machine code."""

    _pending = False  # finalised by linking only: not optimised as a whole, no machine code

    def finalize(self):
        require_global_compiler_lock()
        self._raise_if_finalized()
        for library in dict.fromkeys(self._linking_libraries):
            if hasattr(self, "_reload_init"):  # numba >= 0.61: what to rerun on loading from the cache
                self._reload_init.update(library._reload_init)
            self._final_module.link_in(library._get_module_for_linking(), preserve=True)
        self._finalized = self._pending = True

    def _make_machine_code(self):
        if self._pending:
            self._pending = False
            self._optimize_final_module()
            self._final_module.verify()
            self._finalize_final_module()

    def _defines(self, name: str) -> bool:
        try:
            return not self._final_module.get_function(name).is_declaration
        except NameError:
            return False

    def get_pointer_to_function(self, name):
        # numba asks for the Python wrapper's address after every compile; a loop function has
        # none (the answer is 0, as numba's own library gives for a name it does not define)
        self._ensure_finalized()
        if self._pending and not self._defines(name):
            return 0
        self._make_machine_code()
        return super().get_pointer_to_function(name)

    def _get_module_for_linking(self):
        self._ensure_finalized()
        if not self._pending:
            return super()._get_module_for_linking()
        if self._shared_module is None:
            # as numba's: the definitions may be linked into many callers, inlined and dropped
            module = self._final_module.clone()
            for fn in module.functions:
                if not fn.is_declaration and fn.linkage == llvm.Linkage.external:
                    fn.linkage = "linkonce_odr"
            self._shared_module = module
        return self._shared_module

    def serialize_using_object_code(self):
        self._ensure_finalized()
        if not self._pending:
            return super().serialize_using_object_code()
        return (self.name, LINK_ONLY, self._get_module_for_linking().as_bitcode())

    @classmethod
    def unserialize(cls, codegen, state):
        """The library of a ``LINK_ONLY`` cache entry: its IR, ready to be linked."""
        name, _, bitcode = state
        library = cls(codegen, name)
        library.enable_object_caching()
        library._final_module = library._shared_module = llvm.parse_bitcode(bitcode)
        library._finalized = library._pending = True
        return library

    def get_function(self, name):
        self._make_machine_code()
        return super().get_function(name)

    def get_defined_functions(self):
        self._make_machine_code()
        return super().get_defined_functions()

    def get_llvm_str(self):
        self._make_machine_code()
        return super().get_llvm_str()

    def get_asm_str(self):
        self._make_machine_code()
        return super().get_asm_str()


class LinkOnlyCompiler(Compiler):
    """numba's compiler, writing a ``LinkOnlyLibrary``."""

    def compile_extra(self, func):
        library = LinkOnlyLibrary(self.state.targetctx.codegen(), func.__qualname__)
        library.enable_object_caching()
        self.state.library = library
        return super().compile_extra(func)


def _set_env(self, env_name, env, _set_env=JITCPUCodegen.set_env):
    # numba then points the function's environment (what its Python wrapper uses) at its
    # globals: a link-only library has no machine code, hence no address, and no wrapper to use it
    if self._engine.get_global_value_address(env_name):
        _set_env(self, env_name, env)


JITCPUCodegen.set_env = _set_env


# what makes a function one only compiled code calls (``loop_njit``); also the ``jit_options`` of
# an ``overload`` in the loop, which numba compiles once for its types even where it inlines it
LOOP_OPTIONS = {"no_cpython_wrapper": True, "no_cfunc_wrapper": True, "pipeline_class": LinkOnlyCompiler}
OVERLOAD_OPTIONS = {"_nrt": False, **LOOP_OPTIONS}  # an overload's jit_options: as loop_njit's

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
    options = {**LOOP_OPTIONS, **options}
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
