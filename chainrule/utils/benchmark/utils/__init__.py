"""torch.utils.benchmark.utils: the modules behind chainrule.utils.benchmark."""
