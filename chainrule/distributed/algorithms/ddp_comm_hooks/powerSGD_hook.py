"""PowerSGD gradient compression (Vogels et al., NeurIPS 2019) as DDP communication hooks.

Each gradient matrix M (n x m: a parameter's gradient seen as shape[0] rows) is sent as a
rank-r product P Q^T, (n + m) r numbers instead of n m: with Q from the previous step (warm
start) or random, P = M Q is all-reduced and orthogonalized, then Q = M^T P is all-reduced
and averaged, and M becomes P Q^T. What the approximation misses is kept per bucket and added
to the next step's gradients (error feedback). Gradients too small to gain are all-reduced
as they are, and plain averaging runs for the first start_powerSGD_iter steps.

The algebra runs in NumPy on the bucket's arrays (bucket.gradients() are views of its buffer,
so writing M writes the gradients); random starts come from chainrule's generator seeded as
PyTorch seeds its own, so the same seed starts from PyTorch's Q."""
import logging
import math

import numpy as np

from .... import distributed as dist
from ...._creation import empty, randn, zeros
from ...._random import fork_rng, manual_seed
from ...._tensor import make_tensor
from ... import distributed_c10d
from . import default_hooks as default

__all__ = ["PowerSGDState", "powerSGD_hook", "batched_powerSGD_hook"]

logger = logging.getLogger(__name__)


def _orthogonalize(matrices, epsilon=0):
    """Orthonormalize the columns of each matrix of a (batch, n, r) array, in place, r <= n:
    Gram-Schmidt for r <= 2 (and half precision), else a QR decomposition's Q."""
    if matrices.ndim != 3 or matrices.shape[2] > matrices.shape[1]:
        raise AssertionError
    if matrices.shape[2] <= 2 or matrices.dtype == np.float16:
        _orthogonalize_gram_schmidt(matrices, epsilon)
    else:
        matrices[...] = np.linalg.qr(matrices)[0]


def _orthogonalize_gram_schmidt(matrices, epsilon=0):
    """Gram-Schmidt over the columns of every matrix at once (epsilon keeps a zero column
    from dividing by zero)."""
    for i in range(matrices.shape[2]):
        col = matrices[:, :, i:i + 1]
        col /= np.linalg.norm(col, axis=1, keepdims=True) + epsilon
        if i + 1 < matrices.shape[2]:
            rest = matrices[:, :, i + 1:]
            rest -= np.sum(col * rest, axis=1, keepdims=True) * col


def _should_compress(num_rows, num_cols, matrix_approximation_rank, min_compression_rate):
    """(whether a num_rows x num_cols matrix is worth compressing, its size, its compressed
    size)."""
    uncompressed = num_rows * num_cols
    compressed = (num_rows + num_cols) * matrix_approximation_rank
    return compressed * min_compression_rate < uncompressed, uncompressed, compressed


def _report_compression_stats(bucket, state):
    """Log the compression so far, every compression_stats_logging_frequency steps."""
    if bucket.is_last() and state.iter >= state.next_stats_report:
        rate, before, after = state.compression_stats()
        logger.info("Compression stats: iter %s, total before compression %s, total after "
                    "compression %s, rate %s", state.iter, before, after, rate)
        state.next_stats_report = state.iter + state.compression_stats_logging_frequency


class PowerSGDState:
    """The hooks' configuration and what they carry between steps: per bucket, the error
    left by the last approximation (error_dict) and the last P and Q (p_memory_dict,
    q_memory_dict); the step count (iter) and the compression counts."""
    __slots__ = ["process_group", "matrix_approximation_rank", "start_powerSGD_iter",
                 "min_compression_rate", "orthogonalization_epsilon", "use_error_feedback",
                 "warm_start", "batch_tensors_with_same_shape", "rng", "error_dict",
                 "p_memory_dict", "q_memory_dict", "iter", "total_numel_before_compression",
                 "total_numel_after_compression", "compression_stats_logging_frequency",
                 "next_stats_report"]

    def __init__(self, process_group, matrix_approximation_rank=1, start_powerSGD_iter=1_000,
                 min_compression_rate=2, use_error_feedback=True, warm_start=True,
                 orthogonalization_epsilon=0, random_seed=0,
                 compression_stats_logging_frequency=10_000,
                 batch_tensors_with_same_shape=False):
        logger.info("PowerSGD config: matrix_approximation_rank = %s; start_powerSGD_iter = %s; "
                    "min_compression_rate = %s; orthogonalization_epsilon = %s; "
                    "use_error_feedback = %s; warm_start = %s; random_seed = %s; "
                    "compression_stats_logging_frequency = %s; batch_tensors_with_same_shape "
                    "= %s", matrix_approximation_rank, start_powerSGD_iter, min_compression_rate,
                    orthogonalization_epsilon, use_error_feedback, warm_start, random_seed,
                    compression_stats_logging_frequency, batch_tensors_with_same_shape)
        if (use_error_feedback or warm_start) and start_powerSGD_iter <= 1:
            raise ValueError("Expect `start_powerSGD_iter` > 1 if `use_error_feedback` or "
                             "`warm_start` is enabled, because PowerSGD can only be applied "
                             "after the first two iterations in DDP.")
        self.process_group = process_group
        self.matrix_approximation_rank = matrix_approximation_rank
        self.start_powerSGD_iter = start_powerSGD_iter
        self.min_compression_rate = min_compression_rate
        self.use_error_feedback = use_error_feedback
        self.warm_start = warm_start
        self.orthogonalization_epsilon = orthogonalization_epsilon
        # NumPy's generator, as PyTorch's: it draws the seeds of the random starts
        self.rng = np.random.RandomState(random_seed)
        self.error_dict = {}
        self.p_memory_dict = {}
        self.q_memory_dict = {}
        self.iter = 0
        self.total_numel_before_compression = 0
        self.total_numel_after_compression = 0
        self.compression_stats_logging_frequency = max(1, compression_stats_logging_frequency)
        self.next_stats_report = 0
        self.batch_tensors_with_same_shape = batch_tensors_with_same_shape

    def __getstate__(self):
        """Everything but the process group, which cannot be saved."""
        logger.warning("NOTE: Process group is not serializable and excluded from a saved "
                       "state.")
        return {k: getattr(self, k) for k in self.__slots__ if k != "process_group"}

    def __setstate__(self, state):
        """A loaded state runs on the default group."""
        self.process_group = distributed_c10d._default()
        logger.warning("NOTE: Process group will be set to a default group (i.e. the world "
                       "size). If a different group is desired, please set "
                       "`self.process_group` after PowerSGD state is loaded.")
        for k, v in state.items():
            setattr(self, k, v)

    def maybe_increase_iter(self, bucket):
        """Count a step when its last bucket is done."""
        if bucket.is_last():
            self.iter += 1
        if self.iter == self.start_powerSGD_iter:
            logger.info("Start to apply PowerSGD after %s iterations.", self.iter)

    def compression_stats(self):
        """(compression rate, numbers before compression, numbers after) so far."""
        after = self.total_numel_after_compression
        rate = self.total_numel_before_compression / after if after > 0 else 0
        return rate, self.total_numel_before_compression, after


def _group_of(state):
    return state.process_group if state.process_group is not None else dist.group.WORLD


def _error_feedback(state, index, flat):
    """Add the bucket's last error to its gradients (a zero one the first time); a copy
    of the result, to measure the new error against."""
    if not state.use_error_feedback:
        return None
    if index in state.error_dict:
        flat += state.error_dict[index]._data
    else:
        logger.info("A zero tensor of length %s that represents local error is created.",
                    flat.size)
        state.error_dict[index] = zeros(flat.size, dtype=make_tensor(flat).dtype)
    return flat.copy()


def _random_start(state, arrays, dtype):
    """Fill the arrays with standard normal numbers, in turn, from chainrule's generator
    seeded once from state.rng (the global generator's state is left as it was)."""
    with fork_rng(devices=[]):
        manual_seed(state.rng.randint(1_000_000_000))
        for a in arrays:
            a[...] = randn(*a.shape, dtype=dtype)._data


def _start(state, bucket):
    """(group, its size, the bucket's buffer, the future of plain averaging while PowerSGD
    still warms up, else None): what both hooks do first."""
    group = _group_of(state)
    buffer = bucket.buffer()
    warming_up = None
    if state.iter < state.start_powerSGD_iter:
        state.maybe_increase_iter(bucket)
        warming_up = default._average(group, buffer)
    return group, group.size(), buffer, warming_up


def powerSGD_hook(state, bucket):
    """Compress each large enough gradient of the bucket to rank
    state.matrix_approximation_rank (module docstring); returns a future of the bucket's
    averaged, approximated gradients."""
    group, size, buffer, warming_up = _start(state, bucket)
    if warming_up is not None:
        return warming_up
    index, dtype = bucket.index(), buffer.dtype
    before = _error_feedback(state, index, buffer._data)
    matrices, plain, p_size, q_size = [], [], 0, 0
    for g in bucket.gradients():
        m = g._data.reshape(g._data.shape[0], -1)      # a view of the buffer
        n, k = m.shape
        rank = min(n, k, state.matrix_approximation_rank)
        worth, full, small = _should_compress(n, k, rank, state.min_compression_rate)
        state.total_numel_before_compression += full
        if worth:
            matrices.append(m)
            p_size, q_size = p_size + n * rank, q_size + k * rank
            state.total_numel_after_compression += small
        else:
            plain.append(g._data)
            state.total_numel_after_compression += full
    _report_compression_stats(bucket, state)
    plain_flat = make_tensor(np.concatenate([a.reshape(-1) for a in plain]) if plain
                             else np.zeros(0, buffer._data.dtype))
    fresh = not state.warm_start or index not in state.p_memory_dict
    if fresh:
        if state.warm_start:
            logger.info("Allocating contiguous memory of length %s for Ps, and of length %s "
                        "for Qs, respectively.", p_size, q_size)
        state.p_memory_dict[index] = empty(p_size, dtype=dtype)
        state.q_memory_dict[index] = empty(q_size, dtype=dtype)
    # matrices of one shape, in order of first appearance; stacked into one batch when
    # batch_tensors_with_same_shape (a copy, written back at the end), else one each
    by_shape = {}
    for m in matrices:
        by_shape.setdefault(m.shape, []).append(m)
    batches = []
    for same in by_shape.values():
        if state.batch_tensors_with_same_shape and len(same) > 1:
            batches.append((np.stack(same), same))
        else:
            batches.extend((m[None], None) for m in same)
    ps, qs, p_at, q_at = [], [], 0, 0
    p_mem, q_mem = state.p_memory_dict[index]._data, state.q_memory_dict[index]._data
    for batch, _ in batches:
        b, n, k = batch.shape
        rank = min(n, k, state.matrix_approximation_rank)
        ps.append(p_mem[p_at:p_at + b * n * rank].reshape(b, n, rank))
        qs.append(q_mem[q_at:q_at + b * k * rank].reshape(b, k, rank))
        p_at, q_at = p_at + b * n * rank, q_at + b * k * rank
    if fresh:
        _random_start(state, qs, dtype)
    for q in qs:
        _orthogonalize(q, state.orthogonalization_epsilon)
    for (batch, _), q, p in zip(batches, qs, ps):
        np.matmul(batch, q, out=p)

    def average_plain_then_ps(fut):
        averaged = fut.value()[0]._data / size
        at = 0
        for a in plain:
            a[...] = averaged[at:at + a.size].reshape(a.shape)
            at += a.size
        ps_sum = state.p_memory_dict[index]
        return dist.all_reduce(ps_sum, group=group, async_op=True).get_future().wait()[0]

    def qs_from_ps(fut):
        for p in ps:
            _orthogonalize(p, state.orthogonalization_epsilon)
        for (batch, _), p, q in zip(batches, ps, qs):
            np.matmul(batch.transpose(0, 2, 1), p, out=q)
        qs_sum = state.q_memory_dict[index]
        return dist.all_reduce(qs_sum, group=group, async_op=True).get_future().wait()[0]

    def decompress(fut):
        q_mem[...] /= size
        for (batch, originals), p, q in zip(batches, ps, qs):
            np.matmul(p, q.transpose(0, 2, 1), out=batch)
            for original, approximated in zip(originals or (), batch):
                original[...] = approximated
        if before is not None:
            state.error_dict[index] = make_tensor(before - buffer._data)
        if not state.warm_start:
            state.p_memory_dict.clear()
            state.q_memory_dict.clear()
        state.maybe_increase_iter(bucket)
        return buffer
    first = dist.all_reduce(plain_flat, group=group, async_op=True).get_future()
    return first.then(average_plain_then_ps).then(qs_from_ps).then(decompress)


def batched_powerSGD_hook(state, bucket):
    """PowerSGD on the whole bucket at once, as one square matrix (zero-padded): one P and
    one Q per bucket, faster and coarser than powerSGD_hook. (PyTorch 2.13's own fails its
    orthogonalization's shape check once compression starts; this one runs.)"""
    group, size, buffer, warming_up = _start(state, bucket)
    if warming_up is not None:
        return warming_up
    length = buffer.numel()
    side = math.ceil(math.sqrt(length))
    rank = state.matrix_approximation_rank
    state.total_numel_before_compression += length
    state.total_numel_after_compression += side * rank * 2
    padded = np.zeros(side * side, buffer._data.dtype)
    padded[:length] = buffer._data
    _report_compression_stats(bucket, state)
    index = bucket.index()
    before = _error_feedback(state, index, padded)
    matrix = padded.reshape(side, side)
    if not state.warm_start or index not in state.p_memory_dict:
        if state.warm_start:
            logger.info("Initializing low-rank tensors P and Q, each of which has a shape of "
                        "%s x %s.", side, rank)
        state.p_memory_dict[index] = empty(side, rank, dtype=buffer.dtype)
        state.q_memory_dict[index] = empty(side, rank, dtype=buffer.dtype)
        _random_start(state, [state.q_memory_dict[index]._data], buffer.dtype)
    p, q = state.p_memory_dict[index]._data, state.q_memory_dict[index]._data
    _orthogonalize(q[None])
    np.matmul(matrix, q, out=p)

    def q_from_p(fut):
        _orthogonalize(p[None])
        np.matmul(matrix.T, p, out=q)
        q_sum = state.q_memory_dict[index]
        return dist.all_reduce(q_sum, group=group, async_op=True).get_future().wait()[0]

    def decompress(fut):
        q[...] /= size
        np.matmul(p, q.T, out=matrix)
        if before is not None:
            state.error_dict[index] = make_tensor(before - padded)
        if not state.warm_start:
            state.p_memory_dict.clear()
            state.q_memory_dict.clear()
        state.maybe_increase_iter(bucket)
        buffer._data[...] = padded[:length]
        return buffer
    p_sum = state.p_memory_dict[index]
    return dist.all_reduce(p_sum, group=group, async_op=True).get_future().then(
        q_from_p).then(decompress)
