"""A small CNN classifying scikit-learn's handwritten digits (8x8 images, 10 classes), written as
a PyTorch program that runs on chainrule.

    python examples/digits_cnn.py             # on chainrule
    python examples/digits_cnn.py --torch     # the same script on PyTorch, to compare

Needs scikit-learn for the data: pip install "chainrule[examples]".
"""
import argparse
import time

from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--torch", action="store_true", help="run on PyTorch instead of chainrule")
parser.add_argument("--epochs", type=int, default=15)
parser.add_argument("--seed", type=int, default=0)
args = parser.parse_args()

if args.torch:
    import torch
else:
    import chainrule as torch
nn, F = torch.nn, torch.nn.functional

# 1797 images, pixels 0..16; the same split for both libraries.
digits = load_digits()
x_train, x_test, y_train, y_test = train_test_split(
    digits.data / 16, digits.target, test_size=0.25, random_state=0, stratify=digits.target)
# images as (batch, channels, height, width)
x_train = torch.tensor(x_train, dtype=torch.float32).view(-1, 1, 8, 8)
x_test = torch.tensor(x_test, dtype=torch.float32).view(-1, 1, 8, 8)
y_train, y_test = torch.tensor(y_train), torch.tensor(y_test)

torch.manual_seed(args.seed)
model = nn.Sequential(
    nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),    # 16 x 4 x 4
    nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),   # 32 x 2 x 2
    nn.Flatten(),
    nn.Linear(32 * 2 * 2, 10),
)
optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
batch_size = 64

print(f"{torch.__name__} {torch.__version__}: CNN (conv-relu-pool x2, linear) on scikit-learn's "
      f"digits ({len(x_train)} training, {len(x_test)} test images)")
start = time.perf_counter()
for epoch in range(1, args.epochs + 1):
    model.train()
    order = torch.randperm(len(x_train))
    total = 0.0
    for i in range(0, len(x_train), batch_size):
        batch = order[i:i + batch_size]
        loss = F.cross_entropy(model(x_train[batch]), y_train[batch])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        total += loss.item() * len(batch)
    model.eval()
    with torch.no_grad():
        scores = model(x_test)
        test_loss = F.cross_entropy(scores, y_test).item()
        accuracy = (scores.argmax(1) == y_test).float().mean().item()
    print(f"epoch {epoch:>2}/{args.epochs}  train loss {total / len(x_train):.6f}  "
          f"test loss {test_loss:.6f}  test accuracy {accuracy:.2%}")
print(f"final test accuracy {accuracy:.2%}, {time.perf_counter() - start:.2f} s")
