"""The profiler modules import in any order in a fresh interpreter: autograd.profiler and
profiler import each other (autograd.profiler's KinetoStepTracker is torch.profiler's too)."""
import os
import subprocess
import sys

import pytest


@pytest.mark.parametrize("program", [
    "import chainrule; chainrule.autograd.profiler.profile",
    "import chainrule.autograd.profiler",
    "from chainrule.autograd.profiler import profile, KinetoStepTracker",
    "import chainrule; chainrule.autograd.profiler_legacy.profile",
    "import chainrule; chainrule.profiler.profile; chainrule.autograd.profiler.profile",
    "from chainrule.profiler import KinetoStepTracker",
])
def test_fresh_import(program):
    check = ("\nimport chainrule\n"
             "assert chainrule.profiler.KinetoStepTracker is "
             "chainrule.autograd.profiler.KinetoStepTracker\n"
             "assert 'KinetoStepTracker' in dir(chainrule.profiler)\n")
    done = subprocess.run([sys.executable, "-c", program + check], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr


def test_optimizer_steps_count_with_the_daemon_variable():
    # chainrule.profiler registers its optimizer hook at import under KINETO_USE_DAEMON
    program = ("import chainrule\n"
               "p = chainrule.nn.Parameter(chainrule.ones(1))\n"
               "opt = chainrule.optim.SGD([p], lr=0.1)\n"
               "K = chainrule.autograd.profiler.KinetoStepTracker\n"
               "opt.step(); opt.step()\n"
               "print(K.current_step())\n")
    env = dict(os.environ, KINETO_USE_DAEMON="1")
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True,
                          timeout=120, env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["2"]
