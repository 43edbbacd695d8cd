#!/usr/bin/env python3
"""trainerbench: what the Hugging Face Trainer adds to a short step.

For each shape, the Trainer (default arguments but bf16; its default
optimizer, adamw_torch_fused, and its default data loader in the main
process) against hfbench.py's hand-written step with the same fused AdamW,
on the same card in the same minute. One JSON line per pair (and
$OUT/trainerbench.jsonl when OUT is set).
"""
import json
import os
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(__file__))
import hfbench as hb  # noqa: E402
import hostbench as hob  # noqa: E402


def main():
    out = os.environ.get("OUT")
    f = open(os.path.join(out, "trainerbench.jsonl"), "w") if out else None
    pw = hb.Power()
    shapes = [("bert-base", 128, 8), ("bert-base", 128, 32), ("bert-base", 512, 16),
              ("gpt2", 512, 4), ("gpt2", 1024, 8), ("qwen2.5-0.5b", 512, 4)]
    t0 = time.time()
    for model, seq, batch in shapes:
        if time.time() - t0 > float(sys.argv[1] if len(sys.argv) > 1 else 150):
            break
        rec = dict(model=model, seq_len=seq, batch=batch)
        try:
            c = hb.case("hand", model=model, seq=seq, batch=batch, fused=True)
            h = hb.run_case(c, pw, 3)
            rec.update(hand_step_s=h["step_s"], hand_power_w=h.get("power_w"))
            torch.cuda.empty_cache()
            tr = hob.trainer_case(pw, model, seq, batch, 160, 60)
            rec.update(trainer_step_s=tr["step_s"], trainer_power_w=tr["power_w"], optim=tr["optim"])
        except Exception as e:  # noqa: BLE001
            rec["error"] = repr(e)[:400]
        rec["t"] = round(time.time() - t0, 1)
        print(json.dumps(rec), flush=True)
        if f:
            f.write(json.dumps(rec) + "\n")
            f.flush()
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
