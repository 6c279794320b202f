#!/usr/bin/env python3
"""Small PyTorch training jobs to record with the gpumemsim tracer.

    gpumemsim record --pytorch -o resnet18.gmt -- python3 scripts/examples/train.py resnet18
    gpumemsim record --pytorch -o gpt.gmt -- python3 scripts/examples/train.py gpt --seq-lens 64,128,96

Models have random weights and train on random data for a few iterations:
  resnet18  torchvision ResNet-18, batch 32 of 3x224x224 images, SGD with momentum
  gpt       a small GPT-style decoder (4 layers, d=256, 4 heads, vocab 1000), batch 8, one
            sequence length per iteration from --seq-lens (cycled), AdamW
  mlp       512 -> 1024 -> ReLU -> 10, batch 64, SGD

NVTX: with --nvtx ops (default) every ATen op is an NVTX range
(torch.autograd.profiler.emit_nvtx), so the lifter makes one op per ATen op; each measured
iteration is a range named "gpumemsim:iteration=<input size>" (images per batch, or tokens per
batch for gpt). --warmup iterations run first without an iteration range: the lifter treats them
as setup, so optimizer state created there is constant in the trace.

The last line of output is "gpumemsim-example: {json}" with the numbers tests/gpu/check_trace.py
compares the trace against (parameter and buffer bytes, iteration input sizes).

--device cpu runs the same training without CUDA or NVTX: a dry run that checks the script
itself on a machine without a GPU (it records nothing).
"""
import argparse
import json
import sys
import time


def build(args, torch, dev):
    nn = torch.nn
    if args.model == "resnet18":
        import torchvision

        model = torchvision.models.resnet18(weights=None, num_classes=1000)
        batch = args.batch or 32

        def make_batch(i):
            x = torch.randn(batch, 3, 224, 224, device=dev)
            y = torch.randint(0, 1000, (batch,), device=dev)
            return x, y, batch

        return model, make_batch, nn.functional.cross_entropy, "sgd"
    if args.model == "mlp":
        model = nn.Sequential(nn.Linear(512, 1024), nn.ReLU(), nn.Linear(1024, 10))
        batch = args.batch or 64

        def make_batch(i):
            return torch.randn(batch, 512, device=dev), torch.randint(0, 10, (batch,), device=dev), batch

        return model, make_batch, nn.functional.cross_entropy, "sgd"

    # gpt
    vocab, d, heads, layers, max_len = 1000, 256, 4, 4, 1024
    seq_lens = [int(s) for s in args.seq_lens.split(",") if s.strip()]
    if not seq_lens or min(seq_lens) < 1 or max(seq_lens) > max_len:
        sys.exit(f"train.py: --seq-lens must be 1..{max_len}")
    batch = args.batch or 8

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln1 = nn.LayerNorm(d)
            self.attn = nn.MultiheadAttention(d, heads, batch_first=True)
            self.ln2 = nn.LayerNorm(d)
            self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

        def forward(self, x, mask):
            h = self.ln1(x)
            a, _ = self.attn(h, h, h, attn_mask=mask, need_weights=False)
            x = x + a
            return x + self.mlp(self.ln2(x))

    class GPT(nn.Module):
        def __init__(self):
            super().__init__()
            self.tok = nn.Embedding(vocab, d)
            self.pos = nn.Embedding(max_len, d)
            self.blocks = nn.ModuleList(Block() for _ in range(layers))
            self.ln_f = nn.LayerNorm(d)
            self.head = nn.Linear(d, vocab, bias=False)

        def forward(self, idx):
            t = idx.shape[1]
            pos = torch.arange(t, device=idx.device)
            x = self.tok(idx) + self.pos(pos)
            mask = torch.triu(torch.ones(t, t, device=idx.device, dtype=torch.bool), diagonal=1)
            for b in self.blocks:
                x = b(x, mask)
            return self.head(self.ln_f(x))

    def make_batch(i):
        t = seq_lens[i % len(seq_lens)]
        x = torch.randint(0, vocab, (batch, t), device=dev)
        y = torch.randint(0, vocab, (batch, t), device=dev)
        return x, y, batch * t

    def loss_fn(logits, y):
        return nn.functional.cross_entropy(logits.reshape(-1, vocab), y.reshape(-1))

    return GPT(), make_batch, loss_fn, "adamw"


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("model", choices=["resnet18", "gpt", "mlp"])
    p.add_argument("--iters", type=int, default=3, help="measured iterations (default 3)")
    p.add_argument("--warmup", type=int, default=1, help="setup iterations before them (default 1)")
    p.add_argument("--batch", type=int, default=None, help="batch size (model default)")
    p.add_argument("--seq-lens", default="64,128,96", help="gpt: sequence length per iteration, cycled")
    p.add_argument("--nvtx", choices=["ops", "none"], default="ops", help="ATen op ranges (default ops)")
    p.add_argument("--time", action="store_true",
                   help="print 'gpumemsim-step-ms: N MS' per measured step (synchronised wall time)")
    p.add_argument("--device", choices=["cuda", "cpu"], default="cuda",
                   help="cpu: a dry run of the script without a GPU (no NVTX, nothing to record)")
    args = p.parse_args()
    if args.iters < 1 or args.warmup < 0:
        sys.exit("train.py: --iters must be >= 1 and --warmup >= 0")

    import torch

    cuda = args.device == "cuda"
    if cuda and not torch.cuda.is_available():
        sys.exit("train.py: no CUDA device visible to PyTorch (--device cpu for a dry run)")
    torch.manual_seed(0)
    torch.backends.cudnn.benchmark = False  # no autotuning allocations inside the iterations
    dev = torch.device(args.device)
    sync = torch.cuda.synchronize if cuda else (lambda: None)

    def push(name):
        if cuda:
            torch.cuda.nvtx.range_push(name)

    def pop():
        if cuda:
            torch.cuda.nvtx.range_pop()
    model, make_batch, loss_fn, opt_name = build(args, torch, dev)
    model = model.to(dev).train()
    if opt_name == "adamw":
        opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    else:
        opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)

    def step(i):
        x, y, size = make_batch(i)
        opt.zero_grad(set_to_none=True)
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        return size, loss

    for i in range(args.warmup):
        step(i)
    sync()

    sizes = []
    with torch.autograd.profiler.emit_nvtx(enabled=cuda and args.nvtx == "ops", record_shapes=False):
        for i in range(args.iters):
            # the range is opened before the batch exists, so its size is computed up front
            expected = _peek_size(args, i)
            if args.time:
                sync()
                t0 = time.perf_counter()
            push(f"gpumemsim:iteration={expected}")
            size, loss = step(args.warmup + i)
            pop()
            if args.time:
                sync()
                print(f"gpumemsim-step-ms: {i} {(time.perf_counter() - t0) * 1e3:.4f}", flush=True)
            assert size == expected, (size, expected)
            sizes.append(size)
    sync()

    params = list(model.parameters())
    buffers = list(model.buffers())
    state = [t for s in opt.state.values() for t in s.values()
             if torch.is_tensor(t) and t.device.type == dev.type]
    info = {
        "model": args.model,
        "iterations": args.iters,
        "sizes": sizes,
        "param_count": len(params),
        "param_bytes": sum(t.numel() * t.element_size() for t in params),
        "buffer_count": len(buffers),
        "buffer_bytes": sum(t.numel() * t.element_size() for t in buffers),
        "optimizer_state_count": len(state),
        "optimizer_state_bytes": sum(t.numel() * t.element_size() for t in state),
        "loss": float(loss),
        "torch": torch.__version__,
        "alloc_conf": __import__("os").environ.get("PYTORCH_CUDA_ALLOC_CONF", ""),
    }
    print("gpumemsim-example: " + json.dumps(info), flush=True)


def _peek_size(args, i):
    """The input size of measured iteration i (what make_batch will report)."""
    if args.model == "gpt":
        seq_lens = [int(s) for s in args.seq_lens.split(",") if s.strip()]
        return (args.batch or 8) * seq_lens[(args.warmup + i) % len(seq_lens)]
    return args.batch or (32 if args.model == "resnet18" else 64)


if __name__ == "__main__":
    main()
