"""foreach_map: a user function over zipped lists, as PyTorch's eager path runs it."""
import itertools

__all__ = ["foreach_map"]


def foreach_map(op, *operands, **kwargs):
    """`op` applied to the elements of the list operands taken together (an operand that is
    not a list is passed to every call); a list of the results, or op's result when no operand
    is a list. Keyword arguments are taken and not passed on, as by PyTorch's eager path."""
    args = []
    at_least_one_list = False
    for arg in operands:
        if isinstance(arg, (list, tuple)):
            at_least_one_list = True
            args.append(arg)
        else:
            args.append(itertools.repeat(arg))
    if not at_least_one_list:
        return op(*operands)
    return [op(*unpacked) for unpacked in zip(*args)]
