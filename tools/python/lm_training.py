"""The training loop the bundled language models share (tools/python/train_byte_llama.py,
tools/python/train_bpe_llama.py): a torch_modules Llama with llama2.c's initialisation, AdamW with
warm-up and cosine decay, random windows of a token array, held-out scoring. Deterministic for a
seed and --steps (same torch and threads).

Progress goes to stderr through the caller's log function (step, loss, learning rate, elapsed
seconds, tokens per second)."""
import math
import os
import time

# Before torch starts its OpenMP pool: workers that sleep instead of spinning while they wait.
# On a 2-core machine shared with other work, spinning threads made 2-thread steps several
# times slower than 1-thread ones (a descheduled worker holds the others at every barrier).
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import numpy as np  # noqa: E402
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import export_torch  # noqa: E402  (loads tools/python/torch_modules.py)

tm = export_torch.tm
MAX_TRAIN_SECONDS = 780


# (option, type, default, help) of the options whose defaults both models share.
_SHARED_OPTIONS = (
    ("--seed", int, 1234, None), ("--threads", int, 2, None),
    ("--n-layers", int, 4, None), ("--n-heads", int, 4, None), ("--n-kv-heads", int, 2, None),
    ("--max-seq-len", int, 256, None), ("--batch", int, 8, None),
    ("--seq", int, 256, "training window (<= max-seq-len)"),
    ("--short-seq", int, 128,
     "window for the first --short-fraction of the steps (cheaper attention)"),
    ("--short-fraction", float, 0.6, None), ("--lr", float, 4e-3, None),
    ("--min-lr-ratio", float, 0.1, None), ("--warmup", int, 20, None),
    ("--weight-decay", float, 0.1, None),
    ("--eval-tokens", int, 32768,
     "tokens of each split scored at the end (windows of --max-seq-len)"),
    ("--log-every", float, 15.0, "seconds between progress lines"),
)


def add_arguments(ap, dim, hidden_dim, rope_style, train_seconds=560.0):
    """The options of the model, the optimiser and the schedule; the defaults that differ
    between the models are parameters."""
    ap.add_argument("--train-seconds", type=float, default=train_seconds,
                    help=f"wall-clock budget of the training loop (at most {MAX_TRAIN_SECONDS})")
    ap.add_argument("--steps", type=int, help="fixed number of steps (deterministic schedule)")
    ap.add_argument("--dim", type=int, default=dim)
    ap.add_argument("--hidden-dim", type=int, default=hidden_dim)
    ap.add_argument("--rope-style", choices=tm.ROPE_STYLES, default=rope_style)
    for option, kind, default, help_text in _SHARED_OPTIONS:
        ap.add_argument(option, type=kind, default=default, help=help_text)
    ap.add_argument("--attnrt", help="the attnrt whose llama record the config follows (default: "
                    f"${tm.runtime.ENV}, else attnrt on PATH)")


def check_arguments(ap, args):
    """Refuses bad values (ap.error) and finds attnrt's llama record before any training."""
    if args.attnrt is not None:
        tm.runtime.use(args.attnrt)
    try:
        tm.architectures()  # before training, not after it
    except tm.runtime.AttnrtUnavailable as e:
        ap.error(str(e))
    if not 0 < args.train_seconds <= MAX_TRAIN_SECONDS:
        ap.error(f"--train-seconds must be in (0, {MAX_TRAIN_SECONDS}]")
    if args.steps is not None and args.steps <= 0:
        ap.error("--steps must be positive")
    if not 0 < args.short_seq <= args.seq <= args.max_seq_len:
        ap.error("need 0 < --short-seq <= --seq <= --max-seq-len")


def build(args, vocab_size):
    """(model, resolved llama config): tied embeddings, llama2.c's initialisation."""
    config = tm.resolve_config("llama", {
        "dim": args.dim, "n_layers": args.n_layers, "n_heads": args.n_heads,
        "n_kv_heads": args.n_kv_heads, "vocab_size": vocab_size, "hidden_dim": args.hidden_dim,
        "max_seq_len": args.max_seq_len, "rope_style": args.rope_style})
    torch.manual_seed(args.seed)
    model = tm.Llama(config, tie_embeddings=True)
    # llama2.c's initialisation: N(0, 0.02), the residual projections (wo, w3) scaled down.
    with torch.no_grad():
        for name, p in model.named_parameters():
            if p.dim() == 2:
                std = 0.02 / math.sqrt(2 * args.n_layers) if name.endswith(("wo.weight", "w3.weight")) \
                    else 0.02
                torch.nn.init.normal_(p, 0.0, std)
    return model, config


def optimizer(model, args):
    decay = [p for p in model.parameters() if p.dim() >= 2]
    no_decay = [p for p in model.parameters() if p.dim() < 2]
    return torch.optim.AdamW([{"params": decay, "weight_decay": args.weight_decay},
                              {"params": no_decay, "weight_decay": 0.0}],
                             lr=args.lr, betas=(0.9, 0.95))


def learning_rate(args, step, progress):
    if step < args.warmup:
        return args.lr * (step + 1) / args.warmup
    cosine = 0.5 * (1.0 + math.cos(math.pi * min(1.0, progress)))
    return args.lr * (args.min_lr_ratio + (1.0 - args.min_lr_ratio) * cosine)


def batch(data, rng, size, seq):
    starts = rng.randint(0, len(data) - seq - 1, size=size)
    rows = np.stack([data[s:s + seq + 1] for s in starts]).astype(np.int64)
    x = torch.from_numpy(rows)
    return x[:, :-1], x[:, 1:]


def loss_of(model, x, y):
    logits = model(x)
    return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), y.reshape(-1))


def evaluate(model, data, tokens, seq):
    """Mean loss (nats per token) over consecutive windows of seq tokens from the start of data."""
    windows = min(tokens // seq, (len(data) - 1) // seq)
    total, count = 0.0, 0
    with torch.no_grad():
        for i in range(0, windows, 8):
            rows = [data[w * seq:w * seq + seq + 1] for w in range(i, min(windows, i + 8))]
            x = torch.from_numpy(np.stack(rows).astype(np.int64))
            loss = loss_of(model, x[:, :-1], x[:, 1:])
            total += float(loss) * x[:, 1:].numel()
            count += x[:, 1:].numel()
    return total / count


def train(model, train_data, args, log, unit="bytes"):
    """Runs the schedule (--steps, else the clock) on random windows of train_data; returns
    (steps, seconds, per-step losses)."""
    opt = optimizer(model, args)
    rng = np.random.RandomState(args.seed)
    total = args.steps
    started = time.monotonic()
    last_log, step, losses = started - args.log_every, 0, []
    while True:
        elapsed = time.monotonic() - started
        if total is not None and step >= total:
            break
        if elapsed >= args.train_seconds:
            if total is not None:
                log(f"warning: the {args.train_seconds:.0f} s budget ended the run at step {step} "
                    f"of {total}")
            break
        progress = step / total if total is not None else elapsed / args.train_seconds
        lr = learning_rate(args, step, progress)
        for group in opt.param_groups:
            group["lr"] = lr
        seq = args.short_seq if progress < args.short_fraction else args.seq
        x, y = batch(train_data, rng, args.batch * args.seq // seq, seq)
        loss = loss_of(model, x, y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        losses.append(float(loss))
        step += 1
        now = time.monotonic()
        if now - last_log >= args.log_every:
            last_log = now
            recent = sum(losses[-20:]) / len(losses[-20:])
            log(f"step {step}{'/' + str(total) if total else ''} loss {recent:.4f} lr {lr:.2e} seq {seq} "
                f"elapsed {now - started:.1f} s ({step * args.batch * args.seq / (now - started):.0f} "
                f"{unit}/s)")
    seconds = time.monotonic() - started
    log(f"trained {step} steps in {seconds:.1f} s; mean loss of the last 20 steps "
        f"{sum(losses[-20:]) / len(losses[-20:]):.4f}")
    return step, seconds, losses


def schedule_note(args, steps):
    """The README's sentence on reproducing the run."""
    if args.steps is not None:
        return f"`--steps {steps}` reproduces these weights exactly (same torch and threads)."
    return (f"Without `--steps` the schedule followed the clock and the step count the "
            f"machine's speed, so a rerun differs a little; "
            f"`--steps {steps}` runs as many steps on a schedule that follows the step "
            f"count alone, the same weights every time (same torch and threads).")


def windows_note(args, unit="bytes"):
    if args.short_seq < args.seq:
        return (f"windows of {args.short_seq} {unit} for the first {args.short_fraction:.0%} of "
                f"the schedule, then {args.seq}")
    return f"windows of {args.seq}"


def training_paragraph(args, steps, train_seconds, wall_seconds, unit="bytes"):
    """The README's paragraph on the optimiser, the schedule, the machine and the time."""
    from machine_info import cpu_model
    return f"""{steps} steps of AdamW (lr {args.lr:g}, warm-up, cosine decay to {args.min_lr_ratio:g}x,
weight decay {args.weight_decay:g}, gradient clip 1.0), {args.batch * args.seq} {unit} a step
({windows_note(args, unit)}), seed {args.seed}, {args.threads} threads, torch {torch.__version__},
on {cpu_model()} (a 2-core machine shared with other work). Training {train_seconds:.0f} s,
the whole run {wall_seconds:.0f} s. {schedule_note(args, steps)}"""
