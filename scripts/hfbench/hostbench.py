#!/usr/bin/env python3
"""hostbench: the host's share of a short training step, on one GPU.

Two sets of cases, each printed as one JSON line (and written to
$OUT/hostbench.jsonl when OUT is set):

- "floor": narrow GPT-2-shaped models (width 256) at a small batch, so the
  GPU's arithmetic is negligible and the step time is the host's dispatch
  of the step's operations, over 2 to 48 layers, with AdamW's foreach and
  fused implementations;
- "trainer": the Hugging Face Trainer itself (default arguments, bf16,
  its default optimizer and data loader) against the hand-written step of
  hfbench.py, on BERT-base and Qwen2.5-0.5B shapes.

Energy from NVML's counter, as in hfbench.py.
"""
import json
import os
import platform
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(__file__))
import hfbench as hb  # noqa: E402

T0 = time.time()
OUTF = None


def emit(rec):
    print(json.dumps(rec), flush=True)
    if OUTF:
        OUTF.write(json.dumps(rec) + "\n")
        OUTF.flush()


def floor_case(pw, layers, fused, window):
    import transformers as tf
    cfg = tf.GPT2Config(n_layer=layers, n_embd=256, n_head=4, vocab_size=8192, n_positions=512)
    with torch.device("cuda"):
        m = tf.GPT2LMHeadModel._from_config(cfg, attn_implementation="sdpa")
    m.train()
    params = [p for p in m.parameters() if p.requires_grad]
    opt = torch.optim.AdamW(params, lr=1e-5, fused=fused) if fused else torch.optim.AdamW(params, lr=1e-5)
    ids = torch.randint(0, 8192, (4, 128), device="cuda")

    def step():
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = m(input_ids=ids, labels=ids).loss
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, 1.0)
        opt.step()
        opt.zero_grad(set_to_none=True)

    for _ in range(10):
        step()
    torch.cuda.synchronize()
    e0, t0, n = pw.energy_mj(), time.time(), 0
    while n < 20 or time.time() - t0 < window:
        step()
        n += 1
    torch.cuda.synchronize()
    t1, e1 = time.time(), pw.energy_mj()
    return dict(set="floor", layers=layers, fused=fused, n_tensors=len(params), steps=n, step_s=(t1 - t0) / n,
                power_w=(e1 - e0) / 1000 / (t1 - t0) if e0 is not None else None)


class Ids(torch.utils.data.Dataset):
    def __init__(self, n, seq, vocab, label):
        g = torch.Generator().manual_seed(0)
        self.x = torch.randint(0, vocab, (n, seq), generator=g)
        self.label = label

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        ids = self.x[i].tolist()  # lists, as a tokenised dataset holds them
        d = {"input_ids": ids, "attention_mask": [1] * len(ids)}
        d["labels"] = (i % 2) if self.label == "class" else ids
        return d


def trainer_case(pw, model, seq, batch, steps, skip):
    import transformers as tf
    c = dict(hb.BASE, model=model, seq=seq, batch=batch, name="trainer")
    m, kind, _ = hb.build(c)
    vocab = hb.SHAPES[model]["vocab_size"]
    ds = Ids(batch * steps, seq, vocab, "class" if kind == "bert" else "lm")
    marks = {}

    class Clock(tf.TrainerCallback):
        def on_step_end(self, args, state, control, **kw):
            if state.global_step in (skip, steps):
                torch.cuda.synchronize()
                marks[state.global_step] = (time.time(), pw.energy_mj())

    ta = tf.TrainingArguments(output_dir="/tmp/hostbench", per_device_train_batch_size=batch, bf16=True,
                              max_steps=steps, logging_steps=50, save_strategy="no", report_to="none",
                              disable_tqdm=True, learning_rate=1e-5)
    tr = tf.Trainer(model=m, args=ta, train_dataset=ds, callbacks=[Clock()])
    tr.train()
    (ta0, ea), (tb, eb) = marks[skip], marks[steps]
    n = steps - skip
    return dict(set="trainer", model=model, seq=seq, batch=batch, optim=str(ta.optim), steps=n,
                step_s=(tb - ta0) / n, tokens_per_s=n * batch * seq / (tb - ta0),
                power_w=(eb - ea) / 1000 / (tb - ta0) if ea is not None else None,
                j_per_token=(eb - ea) / 1000 / (n * batch * seq) if ea is not None else None)


def main():
    global OUTF
    out = os.environ.get("OUT")
    OUTF = open(os.path.join(out, "hostbench.jsonl"), "w") if out else None
    pw = hb.Power()
    emit(dict(set="env", kernel=platform.release(), cpu=platform.processor(), cpus=os.cpu_count(),
              torch=torch.__version__))
    budget = float(sys.argv[1]) if len(sys.argv) > 1 else 200
    jobs = [("trainer", ("bert-base", 128, 8, 300, 100)),
            ("trainer", ("bert-base", 128, 32, 200, 50)),
            ("hand", ("bert-base", 128, 8, True)),
            ("trainer", ("qwen2.5-0.5b", 2048, 4, 60, 20))]
    for L in (2, 6, 12, 24, 48):
        jobs.append(("floor", (L, False)))
    for L in (12, 48):
        jobs.append(("floor", (L, True)))
    for kind, a in jobs:
        if time.time() - T0 > budget:
            emit(dict(set=kind, args=list(a), skipped="budget"))
            continue
        try:
            if kind == "floor":
                rec = floor_case(pw, a[0], a[1], 3)
            elif kind == "trainer":
                rec = trainer_case(pw, *a)
            else:
                c = hb.case("bert-b8-s128-fused", model=a[0], seq=a[1], batch=a[2], fused=a[3])
                rec = hb.run_case(c, pw, 4)
                rec["set"] = "hand"
        except Exception as e:  # noqa: BLE001
            rec = dict(set=kind, args=list(a), error=repr(e)[:600])
        rec["t"] = round(time.time() - T0, 1)
        emit(rec)
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
