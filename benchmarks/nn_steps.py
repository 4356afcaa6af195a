"""Training steps of issue 9's modules: chainrule against PyTorch, one thread each.

    python benchmarks/nn_steps.py                 # all three, 15 repeats
    python benchmarks/nn_steps.py lstm --quick    # some of: lstm, transformer, decoder
    python benchmarks/nn_steps.py --wall          # wall time, not process CPU time
    python benchmarks/nn_steps.py --profile lstm  # cProfile of chainrule's step, top costs

- lstm: a language model: Embedding(1000, 64), LSTM(64, 128, num_layers=2), Linear(128,
  1000), cross_entropy over a sequence of 35 and a batch of 20 (zero initial state), SGD;
- transformer: TransformerEncoder of 4 TransformerEncoderLayer(d_model=128, nhead=4,
  dim_feedforward=512, dropout=0, batch_first), batch 16 of sequence 64, MSE to a target,
  Adam;
- decoder: a DCGAN-style decoder from 64x4x4 to 1x32x32: ConvTranspose2d 64->32->16->1
  (kernel 4, stride 2, padding 1) with BatchNorm2d + ReLU between, tanh, MSE, batch 16, Adam.

Each step is forward, loss, backward and the optimizer's step. Every program is written once
as `program(lib)`; both libraries get the same parameters (drawn once with NumPy, copied into
each model: constant-initialised ones, norm weights and biases, keep their value) and the
same data, and the first step's losses are printed side by side. The libraries alternate
within each repeat and medians are printed (benchmarks/workloads.py's `alternate`), timed in
process CPU time on one thread each (torch's pool, NumPy's BLAS through threadpoolctl).
"""
import argparse
import cProfile
import pstats
import sys

import numpy as np

from workloads import Threads, alternate

VOCAB, EMBED, HIDDEN, LAYERS, SEQ, BATCH = 1000, 64, 128, 2, 35, 20


def _init_like(lib, model, seed=0):
    """Copies NumPy draws into every randomly initialised parameter of `model`, in
    parameter order, so both libraries start from the same values."""
    rng = np.random.default_rng(seed)
    with lib.no_grad():
        for p in model.parameters():
            shape = tuple(p.shape)
            fan_in = int(np.prod(shape[1:])) if len(shape) > 1 else shape[0]
            bound = 1 / np.sqrt(fan_in)
            draw = rng.uniform(-bound, bound, shape).astype(np.float32)
            current = p.detach().numpy()
            if current.size > 1 and (current == current.flat[0]).all():
                continue        # ones or zeros by construction (norm layers): kept
            p.copy_(lib.tensor(draw))


def lstm_program(lib):
    nn, F = lib.nn, lib.nn.functional
    rng = np.random.default_rng(1)
    tokens = lib.tensor(rng.integers(0, VOCAB, (SEQ + 1, BATCH)))
    inputs, targets = tokens[:-1], tokens[1:]
    embed, lstm, head = nn.Embedding(VOCAB, EMBED), nn.LSTM(EMBED, HIDDEN, LAYERS), \
        nn.Linear(HIDDEN, VOCAB)
    model = nn.ModuleList([embed, lstm, head])
    _init_like(lib, model)
    opt = lib.optim.SGD(model.parameters(), lr=0.1)

    def step():
        opt.zero_grad()
        out, _ = lstm(embed(inputs))
        loss = F.cross_entropy(head(out).reshape(-1, VOCAB), targets.reshape(-1))
        loss.backward()
        opt.step()
        return loss.detach()
    return step


def transformer_program(lib):
    nn = lib.nn
    rng = np.random.default_rng(2)
    x = lib.tensor(rng.standard_normal((16, 64, 128)).astype(np.float32))
    y = lib.tensor(rng.standard_normal((16, 64, 128)).astype(np.float32))
    layer = nn.TransformerEncoderLayer(128, 4, dim_feedforward=512, dropout=0.0,
                                       batch_first=True)
    model = nn.TransformerEncoder(layer, 4, enable_nested_tensor=False)
    return _adam_mse_step(lib, model, x, y)


def decoder_program(lib):
    nn = lib.nn
    rng = np.random.default_rng(3)
    z = lib.tensor(rng.standard_normal((16, 64, 4, 4)).astype(np.float32))
    y = lib.tensor(rng.uniform(-1, 1, (16, 1, 32, 32)).astype(np.float32))
    model = nn.Sequential(
        nn.ConvTranspose2d(64, 32, 4, 2, 1), nn.BatchNorm2d(32), nn.ReLU(),
        nn.ConvTranspose2d(32, 16, 4, 2, 1), nn.BatchNorm2d(16), nn.ReLU(),
        nn.ConvTranspose2d(16, 1, 4, 2, 1), nn.Tanh())
    return _adam_mse_step(lib, model, z, y)


def _adam_mse_step(lib, model, x, y):
    """One training step of `model` (initialized as _init_like does) on x -> y: Adam on
    the mean squared error."""
    _init_like(lib, model)
    opt = lib.optim.Adam(model.parameters(), lr=1e-3)

    def step():
        opt.zero_grad()
        loss = lib.nn.functional.mse_loss(model(x), y)
        loss.backward()
        opt.step()
        return loss.detach()
    return step


PROGRAMS = {
    "lstm": ("lstm: LM step, embed 64, LSTM 128 x2, seq 35, batch 20, SGD", lstm_program),
    "transformer": ("transformer: encoder 4 x d128 h4, seq 64, batch 16, Adam",
                    transformer_program),
    "decoder": ("decoder: ConvTranspose2d 64-32-16-1, 4x4->32x32, batch 16, Adam",
                decoder_program),
}


def profile(name, chainrule, top):
    step = PROGRAMS[name][1](chainrule)
    step()
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(3):
        step()
    prof.disable()
    stats = pstats.Stats(prof, stream=sys.stdout).strip_dirs()
    print(f"chainrule {name}: 3 steps, by own time")
    stats.sort_stats("tottime").print_stats(top)
    print(f"chainrule {name}: 3 steps, by cumulative time")
    stats.sort_stats("cumulative").print_stats(top)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("which", nargs="*", default=list(PROGRAMS), metavar="NAME",
                        help="some of: " + ", ".join(PROGRAMS))
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--quick", action="store_true", help="5 repeats (default 15)")
    parser.add_argument("--wall", action="store_true",
                        help="time in wall time, not process CPU time")
    parser.add_argument("--profile", choices=list(PROGRAMS),
                        help="profile chainrule's step of this program instead of timing")
    parser.add_argument("--top", type=int, default=25, help="rows of the profile")
    args = parser.parse_args(argv)
    unknown = set(args.which) - set(PROGRAMS)
    if unknown:
        parser.error(f"unknown benchmark(s) {', '.join(sorted(unknown))}")
    repeats = 5 if args.quick else args.repeats
    import torch
    import chainrule
    threads = Threads(torch, wall=args.wall)
    mode = threads.one()
    if args.profile:
        profile(args.profile, chainrule, args.top)
        threads.default()
        return
    print(f"python {sys.version.split()[0]}, numpy {np.__version__}, torch {torch.__version__}, "
          f"chainrule {chainrule.__version__}, {repeats} repeats, {mode}")
    print(f"{'benchmark':<66} {'chainrule':>10} {'pytorch':>10} {'ratio':>6}  first losses")
    for name in args.which:
        description, program = PROGRAMS[name]
        fns = {"chainrule": program(chainrule), "torch": program(torch)}
        first = {label: fn().item() for label, fn in fns.items()}
        med = alternate(fns, repeats, warmup=1, clock=threads.clock)
        ours, theirs = med["chainrule"], med["torch"]
        print(f"{description:<66} {ours * 1e3:>8.2f}ms {theirs * 1e3:>8.2f}ms "
              f"{ours / theirs:>6.2f}  {first['chainrule']:.6f} / {first['torch']:.6f}",
              flush=True)
    threads.default()


if __name__ == "__main__":
    main()
