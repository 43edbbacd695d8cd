#!/usr/bin/env python3
"""hfbench: measure what a Hugging Face fine-tuning step costs on one GPU.

Each case builds a model from its published shape (random weights: the
arithmetic and the bytes moved do not depend on the values), runs the
Hugging Face Trainer's inner step by hand (bf16 autocast over fp32
weights, AdamW, gradient clipping at 1.0, zero_grad(set_to_none)), and
reads the board's energy counter (NVML nvmlDeviceGetTotalEnergyConsumption)
and the wall clock around a steady window of steps. It prints one JSON line
per case and writes them to $OUT/hfbench.jsonl when OUT is set.

The cases vary one input at a time from a base run, so each effect the
estimator models (attention implementation, torch.compile, fused AdamW,
gradient checkpointing, sequence length, model size, LoRA) is read as a
ratio on one card, one software stack and one day.

    python3 scripts/hfbench/hfbench.py [--budget SECONDS] [--only NAME,...]
"""
import argparse
import gc
import json
import os
import sys
import threading
import time

import torch

try:
    import pynvml
except ImportError:  # nvidia-ml-py installs the module as pynvml
    pynvml = None

T0 = time.time()


def log(*a):
    print(f"[{time.time() - T0:6.1f}s]", *a, flush=True)


# Model shapes from their published configurations (config.json on the
# Hugging Face Hub); the estimator's presets carry the same numbers.
SHAPES = {
    "gpt2": dict(kind="gpt2", n_layer=12, n_embd=768, n_head=12, vocab_size=50257),
    "bert-base": dict(kind="bert", num_hidden_layers=12, hidden_size=768, num_attention_heads=12,
                      intermediate_size=3072, vocab_size=30522),
    "qwen2.5-0.5b": dict(kind="qwen2", num_hidden_layers=24, hidden_size=896, num_attention_heads=14,
                         num_key_value_heads=2, intermediate_size=4864, vocab_size=151936,
                         tie_word_embeddings=True),
    "qwen2.5-1.5b": dict(kind="qwen2", num_hidden_layers=28, hidden_size=1536, num_attention_heads=12,
                         num_key_value_heads=2, intermediate_size=8960, vocab_size=151936,
                         tie_word_embeddings=True),
    "qwen2.5-3b": dict(kind="qwen2", num_hidden_layers=36, hidden_size=2048, num_attention_heads=16,
                       num_key_value_heads=2, intermediate_size=11008, vocab_size=151936,
                       tie_word_embeddings=True),
    "llama-3-8b": dict(kind="llama", num_hidden_layers=32, hidden_size=4096, num_attention_heads=32,
                       num_key_value_heads=8, intermediate_size=14336, vocab_size=128256,
                       tie_word_embeddings=False),
}

# The cases, in the order they run (most needed first: a run cut short by
# its budget keeps the base cases and the one-input changes).
BASE = dict(model="qwen2.5-1.5b", seq=2048, batch=4, attn="sdpa", compile=False, fused=False,
            ckpt=False, method="full", est_s=25)


def case(name, **kw):
    c = dict(BASE)
    c.update(kw)
    c["name"] = name
    return c


CASES = [
    case("base"),
    case("eager", attn="eager"),
    case("fused-adamw", fused=True),
    case("ckpt", ckpt=True),
    case("seq512", seq=512, batch=16),
    case("seq4096", seq=4096, batch=2),
    case("seq4096-eager", seq=4096, batch=2, attn="eager"),
    case("small-0.5b", model="qwen2.5-0.5b"),
    case("gpt2-b16-s1024", model="gpt2", seq=1024, batch=16),
    case("gpt2-b4-s512", model="gpt2", seq=512, batch=4),
    case("bert-b32-s128", model="bert-base", seq=128, batch=32),
    case("bert-b32-s128-eager", model="bert-base", seq=128, batch=32, attn="eager"),
    case("bert-b8-s128", model="bert-base", seq=128, batch=8),
    case("bert-b16-s512", model="bert-base", seq=512, batch=16),
    case("3b", model="qwen2.5-3b", batch=2, est_s=35),
    case("8b-lora", model="llama-3-8b", batch=2, method="lora", est_s=40),
    case("8b-lora-ckpt", model="llama-3-8b", batch=2, method="lora", ckpt=True, est_s=40),
    case("compile", compile=True, est_s=150),
    case("gpt2-compile", model="gpt2", seq=1024, batch=16, compile=True, est_s=100),
]


def build(c):
    import transformers as tf
    s = dict(SHAPES[c["model"]])
    kind = s.pop("kind")
    if kind == "gpt2":
        cfg = tf.GPT2Config(n_positions=max(1024, c["seq"]), **s)
        cls = tf.GPT2LMHeadModel
    elif kind == "bert":
        cfg = tf.BertConfig(max_position_embeddings=max(512, c["seq"]), num_labels=2, **s)
        cls = tf.BertForSequenceClassification
    elif kind == "qwen2":
        cfg = tf.Qwen2Config(max_position_embeddings=32768, **s)
        cls = tf.Qwen2ForCausalLM
    else:
        cfg = tf.LlamaConfig(max_position_embeddings=8192, **s)
        cls = tf.LlamaForCausalLM
    cfg.use_cache = False
    try:
        cfg._attn_implementation = c["attn"]
    except Exception:
        pass
    with torch.device("cuda"):
        try:
            m = cls._from_config(cfg, attn_implementation=c["attn"])
        except Exception:  # noqa: BLE001  older or newer signatures
            m = cls(cfg)
    got = getattr(m.config, "_attn_implementation", None)
    if c["method"] == "lora":
        from peft import LoraConfig, get_peft_model
        m = m.to(torch.bfloat16)  # the frozen base in bf16, as people load it
        m = get_peft_model(m, LoraConfig(r=16, lora_alpha=32, lora_dropout=0.0,
                                         target_modules=["q_proj", "k_proj", "v_proj", "o_proj",
                                                         "gate_proj", "up_proj", "down_proj"],
                                         task_type="CAUSAL_LM"))
        for p in m.parameters():  # adapters in fp32, as PEFT's examples keep them
            if p.requires_grad:
                p.data = p.data.float()
    if c["ckpt"]:
        m.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
    m.train()
    return m, kind, got


class Power:
    """Board power sampled every 20 ms, and the energy counter."""

    def __init__(self):
        self.h = None
        if pynvml is None:
            return
        try:
            pynvml.nvmlInit()
            self.h = pynvml.nvmlDeviceGetHandleByIndex(0)
        except Exception as e:  # noqa: BLE001
            log("nvml unavailable:", e)
            self.h = None

    def energy_mj(self):
        if self.h is None:
            return None
        try:
            return pynvml.nvmlDeviceGetTotalEnergyConsumption(self.h)
        except Exception:  # noqa: BLE001
            return None

    def watts(self):
        if self.h is None:
            return None
        try:
            return pynvml.nvmlDeviceGetPowerUsage(self.h) / 1000.0
        except Exception:  # noqa: BLE001
            return None

    def clock(self):
        if self.h is None:
            return None
        try:
            return pynvml.nvmlDeviceGetClockInfo(self.h, pynvml.NVML_CLOCK_SM)
        except Exception:  # noqa: BLE001
            return None

    def sample(self, stop, out):
        while not stop.is_set():
            w = self.watts()
            if w is not None:
                out.append((time.time(), w, self.clock()))
            stop.wait(0.02)


def run_case(c, pw, window_s):
    gc.collect()
    torch.cuda.empty_cache()
    torch.cuda.reset_peak_memory_stats()
    t_build = time.time()
    m, kind, got_attn = build(c)
    n_all = sum(p.numel() for p in m.parameters())
    n_train = sum(p.numel() for p in m.parameters() if p.requires_grad)
    params = [p for p in m.parameters() if p.requires_grad]
    opt = torch.optim.AdamW(params, lr=1e-5, fused=True) if c["fused"] else torch.optim.AdamW(params, lr=1e-5)
    fwd = torch.compile(m) if c["compile"] else m
    vocab = SHAPES[c["model"]]["vocab_size"]
    b, s = c["batch"], c["seq"]
    ids = torch.randint(0, vocab, (b, s), device="cuda")
    if kind == "bert":
        labels = torch.randint(0, 2, (b,), device="cuda")
    else:
        labels = ids

    def step():
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = fwd(input_ids=ids, labels=labels).loss
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, 1.0)
        opt.step()
        opt.zero_grad(set_to_none=True)
        return loss

    t_warm = time.time()
    warm = 0
    # Warm up until two consecutive steps agree within 5 % (at least 3).
    prev = None
    while True:
        t = time.time()
        step()
        torch.cuda.synchronize()
        dt = time.time() - t
        warm += 1
        if warm >= 3 and prev is not None and abs(dt - prev) < 0.05 * prev:
            break
        if warm >= 30:
            break
        prev = dt
    warm_s = time.time() - t_warm
    # Timed window: whole steps until window_s has passed (at least 5).
    samples, stop = [], threading.Event()
    th = threading.Thread(target=pw.sample, args=(stop, samples), daemon=True)
    th.start()
    torch.cuda.synchronize()
    e0, t0 = pw.energy_mj(), time.time()
    steps = 0
    while steps < 5 or time.time() - t0 < window_s:
        step()
        steps += 1
        if steps % 4 == 0:
            torch.cuda.synchronize()
    torch.cuda.synchronize()
    t1, e1 = time.time(), pw.energy_mj()
    stop.set()
    th.join()
    el = t1 - t0
    tokens = steps * b * s
    win = [w for (ts, w, _) in samples if t0 <= ts <= t1]
    clk = [k for (ts, _, k) in samples if t0 <= ts <= t1 and k]
    r = dict(c)
    r.update(
        kind=kind,
        attn_got=got_attn,
        params=n_all,
        trainable=n_train,
        steps=steps,
        tokens=tokens,
        seconds=el,
        step_s=el / steps,
        tokens_per_s=tokens / el,
        energy_j=(e1 - e0) / 1000.0 if (e0 is not None and e1 is not None) else None,
        power_mean_w=sum(win) / len(win) if win else None,
        power_samples=len(win),
        sm_clock_mhz_median=sorted(clk)[len(clk) // 2] if clk else None,
        warm_steps=warm,
        warm_s=warm_s,
        build_s=t_warm - t_build,
        peak_mem_gb=torch.cuda.max_memory_allocated() / 1e9,
    )
    if r["energy_j"] is not None:
        r["j_per_token"] = r["energy_j"] / tokens
        r["power_w"] = r["energy_j"] / el
    del m, fwd, opt, params, ids, labels
    torch.cuda.empty_cache()
    return r


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--budget", type=float, default=420, help="seconds for all cases together")
    ap.add_argument("--window", type=float, default=6, help="seconds of timed steps per case")
    ap.add_argument("--only", default="", help="comma-separated case names")
    a = ap.parse_args()
    out = os.environ.get("OUT")
    f = open(os.path.join(out, "hfbench.jsonl"), "w") if out else None
    pw = Power()
    env = dict(name="env", torch=torch.__version__, cuda=torch.version.cuda,
               gpu=torch.cuda.get_device_name(0))
    try:
        import transformers
        env["transformers"] = transformers.__version__
        from transformers import TrainingArguments
        ta = TrainingArguments(output_dir="/tmp/ta")
        env["trainer_default_optim"] = str(ta.optim)
        env["trainer_default_max_grad_norm"] = ta.max_grad_norm
    except Exception as e:  # noqa: BLE001
        env["trainer_error"] = repr(e)[:300]
    try:
        import peft
        env["peft"] = peft.__version__
    except Exception:  # noqa: BLE001
        pass
    if pw.h is not None:
        try:
            env["driver"] = pynvml.nvmlSystemGetDriverVersion()
            env["power_limit_w"] = pynvml.nvmlDeviceGetEnforcedPowerLimit(pw.h) / 1000.0
            env["idle_power_w"] = [pw.watts() for _ in range(1)][0]
            time.sleep(0.5)
            idle = []
            for _ in range(20):
                idle.append(pw.watts())
                time.sleep(0.05)
            env["idle_power_w_median"] = sorted(idle)[len(idle) // 2]
        except Exception as e:  # noqa: BLE001
            env["nvml_error"] = repr(e)[:300]
    # Matmul ceiling on this card today (bf16, 8192³, ten after three).
    x = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
    for _ in range(3):
        x @ x
    torch.cuda.synchronize()
    t = time.time()
    for _ in range(10):
        x @ x
    torch.cuda.synchronize()
    env["matmul_bf16_tflops"] = 10 * 2 * 8192 ** 3 / (time.time() - t) / 1e12
    del x
    print(json.dumps(env), flush=True)
    if f:
        f.write(json.dumps(env) + "\n")
        f.flush()
    only = set(filter(None, a.only.split(",")))
    for c in CASES:
        if only and c["name"] not in only:
            continue
        left = a.budget - (time.time() - T0)
        if left < c["est_s"]:
            log("skip", c["name"], f"(left {left:.0f}s < {c['est_s']}s)")
            rec = dict(name=c["name"], skipped="budget")
        else:
            log("run", c["name"])
            try:
                rec = run_case(c, pw, a.window)
            except Exception as e:  # noqa: BLE001
                rec = dict(c, error=repr(e)[:500])
                torch.cuda.empty_cache()
        print(json.dumps(rec), flush=True)
        if f:
            f.write(json.dumps(rec) + "\n")
            f.flush()
    # Short table last.
    log("done")


if __name__ == "__main__":
    sys.exit(main())
