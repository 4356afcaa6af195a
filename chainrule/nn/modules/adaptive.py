"""AdaptiveLogSoftmaxWithLoss (torch.nn.modules.adaptive).

Classes are split by `cutoffs` into a shortlist of frequent classes and tail clusters. The head
scores the shortlist plus one token per cluster; a sample of cluster k also gets the
log-probability of its class within the cluster, from that cluster's two-layer low-rank tail
(hidden size in_features // div_value**(k+1)). The computation (ops and their order) is
PyTorch's, so outputs, gradients and graphs agree."""
from collections import namedtuple

from .. import functional as F
from .container import ModuleList, Sequential
from .linear import Linear
from .module import Module

__all__ = ["AdaptiveLogSoftmaxWithLoss"]

# PyTorch's result type: a namedtuple of that name with fields output and loss.
_ASMoutput = namedtuple("_ASMoutput", ["output", "loss"])


def _check_cutoffs(cutoffs, n_classes):
    if not cutoffs:
        raise ValueError("cutoffs should be a sequence of length larger than 0")
    # checked in PyTorch's order, which decides the error for odd input (inf, unsortable)
    if (sorted(cutoffs) != cutoffs or min(cutoffs) <= 0 or max(cutoffs) > n_classes - 1
            or len(set(cutoffs)) < len(cutoffs) or not all(c == int(c) for c in cutoffs)):
        raise ValueError("cutoffs should be a sequence of unique, positive integers sorted "
                         "in an increasing order, where each value is between 1 and "
                         "n_classes-1")


def _batched(input, target):
    """Whether the call is batched (1-D target); raises PyTorch's errors on bad shapes."""
    if target.dim() == 1:
        if input.size(0) != target.size(0):
            raise RuntimeError("Input and target should have the same size in the batch "
                               "dimension.")
        if input.dim() != 2:
            raise RuntimeError("1D target tensor expects 2D input tensors, but found "
                               f"inputs with size {input.size()}")
        return True
    if target.dim() == 0:
        if input.dim() != 1:
            raise RuntimeError("0D target tensor expects 1D input tensors, but found "
                               f"inputs with size {input.size()}")
        return False
    raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")


class AdaptiveLogSoftmaxWithLoss(Module):
    """Efficient softmax approximation for many classes (Grave et al., 2016)."""

    def __init__(self, in_features, n_classes, cutoffs, div_value=4.0, head_bias=False,
                 device=None, dtype=None):
        where = {"device": device, "dtype": dtype}
        super().__init__()
        cutoffs = list(cutoffs)
        _check_cutoffs(cutoffs, n_classes)
        self.in_features = in_features
        self.n_classes = n_classes
        self.cutoffs = cutoffs + [n_classes]
        self.div_value = div_value
        self.head_bias = head_bias
        self.shortlist_size = cutoffs[0]
        self.n_clusters = len(cutoffs)
        self.head_size = self.shortlist_size + self.n_clusters
        self.head = Linear(in_features, self.head_size, bias=head_bias, **where)
        self.tail = ModuleList()
        for k in range(self.n_clusters):
            hidden = int(in_features // (div_value ** (k + 1)))
            classes = self.cutoffs[k + 1] - self.cutoffs[k]
            self.tail.append(Sequential(Linear(in_features, hidden, bias=False, **where),
                                        Linear(hidden, classes, bias=False, **where)))

    def reset_parameters(self):
        self.head.reset_parameters()
        for projection in self.tail:
            for layer in projection:
                layer.reset_parameters()

    def forward(self, input_, target_):
        batched = _batched(input_, target_)
        x = input_ if batched else input_.unsqueeze(0)
        target = target_ if batched else target_.unsqueeze(0)
        n = target.size(0)
        # per sample: its class's log-prob within its cluster (0 in the shortlist) and the
        # head column it reads (its class in the shortlist, else its cluster's token)
        in_cluster = x.new_zeros(n)
        head_column = target.new_empty(n)
        seen = 0
        bounds = [0] + self.cutoffs
        for k, (lo, hi) in enumerate(zip(bounds[:-1], bounds[1:])):
            member = (target >= lo) & (target < hi)
            rows = member.nonzero().squeeze()
            if rows.numel() == 0:
                continue
            if k == 0:
                head_column.index_copy_(0, rows, target[member])
            else:
                offset = target[member] - lo
                logp = F.log_softmax(self.tail[k - 1](x.index_select(0, rows)), dim=1)
                head_column.index_fill_(0, rows, self.shortlist_size + k - 1)
                in_cluster.index_copy_(0, rows, logp.gather(1, offset.unsqueeze(1)).squeeze(1))
            seen += rows.numel()
        if seen != n:
            raise RuntimeError(f"Target values should be in [0, {self.n_classes - 1}], but "
                               f"values in range [{target.min().item()}, "
                               f"{target.max().item()}] were found. ")
        head_logp = F.log_softmax(self.head(x), dim=1)
        in_cluster += head_logp.gather(1, head_column.unsqueeze(1)).squeeze()
        loss = (-in_cluster).mean()
        return _ASMoutput(in_cluster if batched else in_cluster.squeeze(0), loss)

    def _get_full_log_prob(self, input, head_output):
        """Log-probabilities of every class: shortlist from the head, each cluster's classes
        as cluster token + within-cluster log-prob."""
        rows = head_output.size(0)
        table = input.new_empty((rows, self.n_classes))
        head_logp = F.log_softmax(head_output, dim=1)
        short = self.shortlist_size
        table[:, :short] = head_logp[:, :short]
        for k, projection in enumerate(self.tail):
            token = head_logp[:, short + k].unsqueeze(1)
            table[:, self.cutoffs[k]:self.cutoffs[k + 1]] = (
                F.log_softmax(projection(input), dim=1) + token)
        return table

    def log_prob(self, input):
        """The log-probabilities of all the classes."""
        return self._get_full_log_prob(input, self.head(input))

    def predict(self, input):
        """The most likely class of each sample (the tails computed only where needed)."""
        head_output = self.head(input)
        best = head_output.argmax(dim=1)
        clustered = best >= self.shortlist_size
        if not clustered.any():
            return best
        if clustered.all():
            return self._get_full_log_prob(input, head_output).argmax(dim=1)
        best[clustered] = self._get_full_log_prob(
            input[clustered], head_output[clustered]).argmax(dim=1)
        return best
