"""Testing support shipped with chainrule: the op database (sample inputs for every op in
the table), used by the test suite to check each op against finite differences and PyTorch."""
