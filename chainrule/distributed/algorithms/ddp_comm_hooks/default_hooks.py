"""The standard communication hooks: average the gradients with an all-reduce, in the
gradients' dtype or compressed to float16/bfloat16 on the wire. Each returns a
chainrule.futures.Future of the bucket's averaged 1-D gradient tensor."""
from .... import distributed as dist
from ...._dtype import bfloat16, float16

__all__ = ["allreduce_hook", "fp16_compress_hook", "bf16_compress_hook",
           "fp16_compress_wrapper", "bf16_compress_wrapper"]


def _group(process_group):
    return process_group if process_group is not None else dist.group.WORLD


def _average(process_group, tensor):
    """Divide by the group's size, then sum over the group: a future of `tensor`, averaged
    in place."""
    group = _group(process_group)
    tensor.div_(group.size())
    work = dist.all_reduce(tensor, group=group, async_op=True)
    return work.get_future().then(lambda fut: fut.value()[0])


def allreduce_hook(process_group, bucket):
    """The average of the bucket over the group: what DistributedDataParallel does with no
    hook registered."""
    return _average(process_group, bucket.buffer())


def _compressed(dtype, process_group, bucket):
    """Average a copy of the bucket cast to `dtype` (divided before the sum, so the narrow
    type does not overflow), then write it back into the bucket's own buffer."""
    group = _group(process_group)
    buffer = bucket[0] if isinstance(bucket, tuple) else bucket.buffer()
    narrow = buffer.to(dtype).div_(group.size())

    def decompress(fut):
        buffer.copy_(fut.value()[0])
        return buffer
    return dist.all_reduce(narrow, group=group, async_op=True).get_future().then(decompress)


def fp16_compress_hook(process_group, bucket):
    """allreduce_hook with the gradients sent as float16 (half the bytes) and cast back."""
    return _compressed(float16, process_group, bucket)


def bf16_compress_hook(process_group, bucket):
    """allreduce_hook with the gradients sent as bfloat16 and cast back."""
    return _compressed(bfloat16, process_group, bucket)


def _compress_wrapper(dtype, hook):
    def wrapped(hook_state, bucket):
        bucket.set_buffer(bucket.buffer().to(dtype))
        fut = hook(hook_state, bucket)

        def decompress(fut):
            out = bucket.buffer()
            out.copy_(fut.value())
            return out
        return fut.then(decompress)
    return wrapped


def fp16_compress_wrapper(hook):
    """A hook that runs `hook` on the bucket cast to float16 (the result is cast back by
    DistributedDataParallel): fp16_compress_wrapper(allreduce_hook) is fp16_compress_hook."""
    wrapped = _compress_wrapper(float16, hook)
    wrapped.__name__ = wrapped.__qualname__ = "fp16_compress_wrapper_hook"
    return wrapped


def bf16_compress_wrapper(hook):
    """fp16_compress_wrapper with bfloat16."""
    wrapped = _compress_wrapper(bfloat16, hook)
    wrapped.__name__ = wrapped.__qualname__ = "bf16_compress_wrapper_hook"
    return wrapped
