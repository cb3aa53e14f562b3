"""Borrowed array views for the hot loop.

Every numba array carries a pointer to its reference count (its "meminfo"), and numba
increments and decrements that count, atomically, each time an array is passed to a function,
taken out of a tuple or sliced. In the game loop that happens hundreds of times a turn and was
measured to cost about two thirds of the time of a random game and three fifths of a
``balanced`` one (``_disable_atomicity`` in numba's NRT: 3.2k -> 9.8k and 1.1k -> 2.6k games per
CPU-second, 4 players, one thread).

A borrowed view has the same data, shape and strides but no meminfo, so those updates become a
null check. It owns nothing: its owner must outlive it. ``play_games_nb`` keeps to that by
borrowing only arrays that its caller holds for the whole call (the Python-side inputs and
outputs, and the work buffers allocated one frame up). Borrowed views must never be returned to
Python.
"""

from numba import types
from numba.core import cgutils
from numba.extending import intrinsic


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
