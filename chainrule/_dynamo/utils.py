"""torch._dynamo.utils.counters: per-category Counters of compilation events (graph breaks,
frames compiled); nothing compiles in chainrule, so every Counter stays empty."""
import collections

counters = collections.defaultdict(collections.Counter)
