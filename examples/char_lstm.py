"""A character-level LSTM language model, written as a PyTorch program that runs on chainrule.

    python examples/char_lstm.py              # on chainrule
    python examples/char_lstm.py --torch      # the same script on PyTorch, to compare

The text is a few paragraphs written into the script. The model (embedding, 2-layer LSTM,
linear read-out) learns to predict each next character of the first nine tenths, trained by
truncated backpropagation through time on parallel streams; it is scored on the last tenth,
then writes a few characters greedily from a prompt.
"""
import argparse
import time

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--torch", action="store_true", help="run on PyTorch instead of chainrule")
parser.add_argument("--epochs", type=int, default=20)
parser.add_argument("--seed", type=int, default=0)
args = parser.parse_args()

if args.torch:
    import torch
else:
    import chainrule as torch
nn, F = torch.nn, torch.nn.functional

TEXT = """\
The river came down from the hills in the spring, brown and loud, and the people of the \
valley went out to watch it pass. They stood on the old stone bridge and counted the trees \
that the water carried, and the children threw sticks from one side and ran to the other \
side to see them come out again. In the summer the river was low and clear, and the same \
children waded in it and looked for the small grey fish that hid under the stones.
The miller lived at the bend of the river, where the water was deep and slow. He was an old \
man with a white beard and a slow voice, and he knew the names of all the birds that came \
to the valley. In the evening he sat at his door and told the children which bird was \
singing, and why it sang, and where it would go when the cold came back to the hills.
In the autumn the leaves fell into the river and the water turned red and gold. The miller \
ground the grain that the farmers brought him, and the wheel turned all day and all night. \
The sound of the wheel was the sound of the valley, and when it stopped in the winter the \
people said that the year was over and that the river was asleep under the ice.
When the snow was deep the people stayed by their fires and told the old stories again: \
the story of the flood that took the first bridge, the story of the wolf that came down to \
the mill, and the story of the girl who walked up the river to find where it began. She \
walked for seven days, they said, and on the last day she found a small spring under a \
rock, so small that she could cover it with her hand. She drank from it and came home, and \
she never told anyone what the water tasted like.
"""

# Characters to indices; the model sees the first 90% of the text, the rest is held out.
chars = sorted(set(TEXT))
index = {c: i for i, c in enumerate(chars)}
data = torch.tensor([index[c] for c in TEXT])
split = len(data) * 9 // 10
train_data, test_data = data[:split], data[split:]

# Truncated BPTT: the training text as `streams` parallel rows, cut into windows of
# `seq_len` steps; the hidden state carries over from one window to the next, detached.
streams, seq_len = 8, 32
train_data = train_data[:len(train_data) // streams * streams].view(streams, -1)


class CharLSTM(nn.Module):
    def __init__(self, vocab, embed=32, hidden=64, layers=2):
        super().__init__()
        self.embed = nn.Embedding(vocab, embed)
        self.lstm = nn.LSTM(embed, hidden, layers, batch_first=True)
        self.out = nn.Linear(hidden, vocab)

    def forward(self, x, state=None):
        y, state = self.lstm(self.embed(x), state)
        return self.out(y), state


torch.manual_seed(args.seed)
model = CharLSTM(len(chars))
optimizer = torch.optim.Adam(model.parameters(), lr=0.01)

print(f"{torch.__name__} {torch.__version__}: character LSTM (2 layers, hidden 64) on "
      f"{len(TEXT)} characters ({len(chars)} distinct), {split} for training")
start = time.perf_counter()
for epoch in range(1, args.epochs + 1):
    model.train()
    state, total, count = None, 0.0, 0
    for i in range(0, train_data.shape[1] - 1, seq_len):
        n = min(seq_len, train_data.shape[1] - 1 - i)
        x, y = train_data[:, i:i + n], train_data[:, i + 1:i + 1 + n]
        if state is not None:
            state = tuple(s.detach() for s in state)
        scores, state = model(x, state)
        loss = F.cross_entropy(scores.reshape(-1, len(chars)), y.reshape(-1))
        optimizer.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        total += loss.item() * y.numel()
        count += y.numel()
    model.eval()
    with torch.no_grad():
        scores, _ = model(test_data[None, :-1])
        scores = scores[0]
        test_loss = F.cross_entropy(scores, test_data[1:]).item()
        accuracy = (scores.argmax(1) == test_data[1:]).float().mean().item()
    print(f"epoch {epoch:>2}/{args.epochs}  train loss {total / count:.6f}  "
          f"held-out loss {test_loss:.6f}  held-out accuracy {accuracy:.2%}")

# Greedy generation: feed the prompt, then each most likely character back in.
with torch.no_grad():
    prompt = "The river "
    scores, state = model(torch.tensor([[index[c] for c in prompt]]))
    text = prompt
    for _ in range(60):
        c = scores[0, -1].argmax().item()
        text += chars[c]
        scores, state = model(torch.tensor([[c]]), state)
print(f"sample: {text!r}")
print(f"final held-out accuracy {accuracy:.2%}, {time.perf_counter() - start:.2f} s")
