"""A small transformer learning to reverse sequences of digits, written as a PyTorch program
that runs on chainrule.

    python examples/transformer.py            # on chainrule
    python examples/transformer.py --torch    # the same script on PyTorch, to compare

Each example is 8 random digits, a separator, then the same digits reversed. A 2-layer
causal transformer encoder (a decoder-only language model) reads the sequence and predicts
each next token; only the reversed half is scored, and it is scored on sequences it never saw.
"""
import argparse
import time

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--torch", action="store_true", help="run on PyTorch instead of chainrule")
parser.add_argument("--epochs", type=int, default=10)
parser.add_argument("--seed", type=int, default=0)
args = parser.parse_args()

if args.torch:
    import torch
else:
    import chainrule as torch
nn, F = torch.nn, torch.nn.functional

digits, length = 10, 10
SEP = digits                                   # the separator is one more token


def make(count):
    """`count` sequences `x SEP reversed(x)`."""
    x = torch.randint(0, digits, (count, length))
    return torch.cat([x, torch.full((count, 1), SEP), x.flip(1)], dim=1)


class Reverser(nn.Module):
    def __init__(self, d_model=48, nhead=2, layers=2):
        super().__init__()
        self.embed = nn.Embedding(digits + 1, d_model)
        self.position = nn.Embedding(2 * length, d_model)
        layer = nn.TransformerEncoderLayer(d_model, nhead, dim_feedforward=2 * d_model,
                                           dropout=0.0, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.out = nn.Linear(d_model, digits)

    def forward(self, tokens):
        n = tokens.shape[1]
        h = self.embed(tokens) + self.position(torch.arange(n))
        mask = nn.Transformer.generate_square_subsequent_mask(n)   # -inf above the diagonal
        return self.out(self.encoder(h, mask=mask, is_causal=True))


def reversed_half(model, seqs):
    """Scores and targets of the positions that predict the reversed digits."""
    scores = model(seqs[:, :-1])[:, length:]
    return scores.reshape(-1, digits), seqs[:, length + 1:].reshape(-1)


torch.manual_seed(args.seed)
train, test = make(1024), make(256)
model = Reverser()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
batch_size = 64

print(f"{torch.__name__} {torch.__version__}: transformer encoder (2 layers, d_model 48, "
      f"2 heads, causal) reversing {length} digits ({len(train)} training, {len(test)} test)")
start = time.perf_counter()
for epoch in range(1, args.epochs + 1):
    model.train()
    order = torch.randperm(len(train))
    total = 0.0
    for i in range(0, len(train), batch_size):
        batch = train[order[i:i + batch_size]]
        loss = F.cross_entropy(*reversed_half(model, batch))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        total += loss.item() * len(batch)
    model.eval()
    with torch.no_grad():
        scores, targets = reversed_half(model, test)
        test_loss = F.cross_entropy(scores, targets).item()
        accuracy = (scores.argmax(1) == targets).float().mean().item()
    print(f"epoch {epoch:>2}/{args.epochs}  train loss {total / len(train):.6f}  "
          f"test loss {test_loss:.6f}  test accuracy {accuracy:.2%}")

# Greedy decoding of one test sequence from its first half and the separator.
with torch.no_grad():
    seq = test[:1, :length + 1]
    for _ in range(length):
        seq = torch.cat([seq, model(seq)[:, -1:].argmax(-1)], dim=1)
print(f"reverse {test[0, :length].tolist()} -> {seq[0, length + 1:].tolist()}")
print(f"final test accuracy {accuracy:.2%}, {time.perf_counter() - start:.2f} s")
