"""TRL end to end on the CPU: examples/grpo.py (GRPOTrainer on episode rewards) and examples/sft.py
(SFTTrainer on `mpcbench trajectories`), each run as a user runs it, on a tiny Qwen2-architecture
model and a tokenizer built here (nothing downloaded). GRPO: the rewards the trainer logged for
its completions equal the environment's scores for those completions; SFT: the trajectories of a
train split train two steps, and a test split is refused. Needs the `train` extra (skips without)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

from evalkit import shared_build
from mpcbench.cli import app
from mpcbench.harness.episode_spec import EpisodeSpec
from mpcbench.harness.rollout import RolloutPool
from mpcbench.integrations.trl_data import EpisodeReward, _reply

pytest.importorskip("trl", reason="the train extra (TRL) is not installed")
EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
CHAT_TEMPLATE = ("{% for m in messages %}<|{{ m.role }}|>{{ m.content or '' }}"
                 "{% for c in m.tool_calls or [] %}<call>{{ c.function.name }} {{ c.function.arguments }}</call>{% endfor %}"
                 "<|end|>{% endfor %}{% if add_generation_prompt %}<|assistant|>{% endif %}")


QWEN2 = {"hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 1, "num_attention_heads": 2,
         "num_key_value_heads": 1, "max_position_embeddings": 8192}


@pytest.fixture(scope="module")
def tiny_model(db_path, tmp_path_factory) -> Path:
    """A Qwen2-architecture model (one layer, width 32, random weights) and a byte-level BPE
    tokenizer trained here on the build's prompts, saved as a model directory. Written with
    `tokenizers`, NumPy and safetensors, the files `save_pretrained` writes, without importing
    transformers and torch into the test's process (about 13 s of CPU): the examples load it with
    transformers' Auto classes, as a user's model."""
    import numpy as np
    from safetensors.numpy import save_file
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    specials = ["<|pad|>", "<|end|>", "<|system|>", "<|user|>", "<|assistant|>", "<|tool|>"]
    bpe = Tokenizer(models.BPE())
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    bpe.decoder = decoders.ByteLevel()
    pool = RolloutPool(db_path)
    texts = [m["content"] for i, _, _ in pool.instances(1) for m in pool.open(i).messages]
    pool.close()
    bpe.train_from_iterator(texts, trainers.BpeTrainer(vocab_size=600, special_tokens=specials,
                                                       initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    folder = tmp_path_factory.mktemp("tiny-qwen2")
    bpe.save(str(folder / "tokenizer.json"))
    (folder / "tokenizer_config.json").write_text(json.dumps({
        "tokenizer_class": "PreTrainedTokenizerFast", "pad_token": "<|pad|>", "eos_token": "<|end|>",
        "padding_side": "left", "chat_template": CHAT_TEMPLATE}))
    vocab, pad, eos = bpe.get_vocab_size(), bpe.token_to_id("<|pad|>"), bpe.token_to_id("<|end|>")
    (folder / "config.json").write_text(json.dumps({
        "architectures": ["Qwen2ForCausalLM"], "model_type": "qwen2", "vocab_size": vocab, **QWEN2,
        "hidden_act": "silu", "rms_norm_eps": 1e-6, "tie_word_embeddings": False, "dtype": "float32",
        "pad_token_id": pad, "eos_token_id": eos, "bos_token_id": eos}))
    width, inner, kv = QWEN2["hidden_size"], QWEN2["intermediate_size"], 16   # kv: 1 head of 32 / 2
    shapes = {"lm_head.weight": (vocab, width), "model.embed_tokens.weight": (vocab, width),
              "model.layers.0.mlp.down_proj.weight": (width, inner), "model.layers.0.mlp.gate_proj.weight": (inner, width),
              "model.layers.0.mlp.up_proj.weight": (inner, width), "model.layers.0.self_attn.q_proj.weight": (width, width),
              "model.layers.0.self_attn.k_proj.weight": (kv, width), "model.layers.0.self_attn.v_proj.weight": (kv, width),
              "model.layers.0.self_attn.o_proj.weight": (width, width)}
    rng = np.random.default_rng(0)
    weights = {name: (0.02 * rng.standard_normal(shape)).astype(np.float32) for name, shape in shapes.items()}
    weights |= {f"model.layers.0.self_attn.{p}_proj.bias": np.zeros(n, np.float32) for p, n in (("q", width), ("k", kv), ("v", kv))}
    weights |= {name: np.ones(width, np.float32) for name in ("model.layers.0.input_layernorm.weight",
                                                              "model.layers.0.post_attention_layernorm.weight",
                                                              "model.norm.weight")}
    save_file(weights, str(folder / "model.safetensors"), metadata={"format": "pt"})
    return folder


def run_example(script: str, *args: str) -> None:
    done = subprocess.run([sys.executable, str(EXAMPLES / script), *args], capture_output=True, text=True,
                          timeout=600, env={**os.environ, "CUDA_VISIBLE_DEVICES": "", "TRL_EXPERIMENTAL_SILENCE": "1"})
    assert done.returncode == 0, done.stderr[-4000:]


def test_grpo_logged_rewards_are_the_environments_scores(db_path, tiny_model, tmp_path):
    out = tmp_path / "grpo"
    weights = {"f1": 0.5, "exact_match": 0.5, "parse_ok": 0.25}
    run_example("grpo.py", "--model", str(tiny_model), "--db", str(db_path), "--level", "1", "--mode", "tools",
                "--steps", "2", "--generations", "2", "--max-completion-length", "24", "--weights",
                json.dumps(weights), "--learning-rate", "1e-3", "--out", str(out))
    logged = pl.concat([pl.read_parquet(f) for f in sorted((out / "completions").glob("*.parquet"))])
    assert logged.height == 2 * 2 and sorted(set(logged["step"])) == [1, 2]
    pool = RolloutPool(db_path, EpisodeSpec(max_steps=1, weights=weights))
    try:
        by_task = {m["content"]: i for i, _, _ in pool.instances(1) for m in pool.open(i).messages[1:2]}
        reward = EpisodeReward(pool)
        for row in logged.iter_rows(named=True):
            instance_id = by_task[row["prompt"][-1]["content"]]
            assert row["mpcbench"] == reward.score(instance_id, _reply(row["completion"])), row
        # the reward is the episode's score, not a constant: an answer in the prompt's own words scores
        answer = {"role": "assistant", "content": json.dumps({"candidates": [{"start": "2026-01-01T09:00"}]})}
        assert reward.score("L1-0001", answer) == 0.25   # parsed, wrong
    finally:
        pool.close()


def test_sft_trains_on_the_scripted_solvers_trajectories(tiny_model, tmp_path_factory, tmp_path):
    train = shared_build(tmp_path_factory, (1, 2, 3), 8, split="train")   # test_training_envs.py's
    runner = CliRunner()
    result = runner.invoke(app, ["trajectories", "--db", str(train), "--level", "1", "--out", str(tmp_path / "sft")])
    assert result.exit_code == 0, result.output
    from datasets import load_from_disk
    data = load_from_disk(str(tmp_path / "sft"))
    assert data.num_rows == 8 and set(data.column_names) >= {"messages", "tools"}
    first = data[0]
    assert [m["role"] for m in first["messages"][:3]] == ["system", "user", "assistant"]
    assert first["messages"][-2]["tool_calls"][0]["function"]["name"] == "submit_candidates"
    assert {t["function"]["name"] for t in json.loads(first["tools"])} >= {"submit_candidates"}
    run_example("sft.py", "--model", str(tiny_model), "--data", str(tmp_path / "sft"), "--steps", "2",
                "--out", str(tmp_path / "sft-model"))
    history = json.loads((tmp_path / "sft-model" / "log_history.json").read_text())
    assert [h["step"] for h in history if "loss" in h] == [1, 2]
    test = shared_build(tmp_path_factory, (1,), 1, split="test", secret="s3cret")
    refused = runner.invoke(app, ["trajectories", "--db", str(test), "--out", str(tmp_path / "leak")])
    assert refused.exit_code == 1 and "test split" in refused.output and not (tmp_path / "leak").exists()
