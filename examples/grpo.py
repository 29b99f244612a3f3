"""GRPO on MPCBench rewards with TRL's GRPOTrainer (`pip install 'mpcbench[train]'`; docs/training.md).

    mpcbench build --split train --db build/train.duckdb --instances 200
    python examples/grpo.py --model Qwen/Qwen2.5-1.5B-Instruct --db build/train.duckdb --level 1 --out runs/grpo

Each prompt is an instance's opening (eval's system prompt and task; `--mode context`, the default,
puts every source into the prompt so one reply can answer); each completion is played as the
policy's one reply in an episode of that instance and scored by the grader, as `mpcbench eval`
scores the same answer (mpcbench.integrations.trl_data.EpisodeReward): reward = F1 by default,
`--weights` to change it. The trainer logs every completion with its reward under
OUT/completions/ (`log_completions`). A test split is refused.
"""

from __future__ import annotations

import argparse
import json

import torch
from datasets import Dataset
from trl import GRPOConfig, GRPOTrainer

from mpcbench.harness.episode_spec import EpisodeSpec
from mpcbench.harness.rollout import RolloutPool
from mpcbench.integrations.trl_data import EpisodeReward, grpo_rows


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", required=True, help="A causal LM: a Hub id or a local directory.")
    parser.add_argument("--db", default="build/train.duckdb", help="The warehouse (a train or dev split).")
    parser.add_argument("--level", type=int, default=1)
    parser.add_argument("--instances", type=int, default=None, help="The level's first N instances.")
    parser.add_argument("--mode", default="context", choices=("context", "tools"))
    parser.add_argument("--weights", type=json.loads, default=None, help='e.g. \'{"f1": 0.5, "exact_match": 0.5}\'')
    parser.add_argument("--steps", type=int, default=100, help="Training steps.")
    parser.add_argument("--generations", type=int, default=8, help="Completions per prompt (the group).")
    parser.add_argument("--max-completion-length", type=int, default=512)
    parser.add_argument("--learning-rate", type=float, default=1e-6)
    parser.add_argument("--out", default="runs/grpo")
    args = parser.parse_args(argv)

    pool = RolloutPool(args.db, EpisodeSpec(mode=args.mode, max_steps=1, weights=args.weights))
    if pool.split() == "test":
        parser.error(f"{args.db} holds the test split: train on train (or dev), report on test")
    dataset = Dataset.from_list(grpo_rows(pool, args.level, args.instances))
    config = GRPOConfig(
        output_dir=args.out, max_steps=args.steps, num_generations=args.generations,
        per_device_train_batch_size=args.generations, max_completion_length=args.max_completion_length,
        learning_rate=args.learning_rate, logging_steps=1, log_completions=True, save_strategy="no",
        report_to="none", bf16=torch.cuda.is_available(), use_cpu=not torch.cuda.is_available())
    trainer = GRPOTrainer(model=args.model, reward_funcs=[EpisodeReward(pool)], args=config, train_dataset=dataset)
    trainer.train()
    trainer.save_model(args.out)
    pool.close()


if __name__ == "__main__":
    main()
