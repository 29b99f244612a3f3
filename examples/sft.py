"""Supervised fine-tuning on the scripted solver's trajectories with TRL's SFTTrainer
(`pip install 'mpcbench[train]'`; docs/training.md).

    mpcbench trajectories --db build/train.duckdb --out build/sft        # a train split's episodes
    python examples/sft.py --model Qwen/Qwen2.5-1.5B-Instruct --data build/sft --out runs/sft

The dataset's rows are conversations (`messages`: the system prompt, the task, one tool call a
reply, the tools' texts, the submission) with the tools offered (`tools`); the loss is on the
assistant's replies only (`assistant_only_loss` needs a chat template that marks them; the
default is the whole conversation). The log history is written to OUT/log_history.json.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import torch
from datasets import load_from_disk
from trl import SFTConfig, SFTTrainer


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", required=True, help="A causal LM: a Hub id or a local directory.")
    parser.add_argument("--data", default="build/sft", help="The directory `mpcbench trajectories` wrote.")
    parser.add_argument("--steps", type=int, default=500)
    parser.add_argument("--batch-size", type=int, default=1)
    parser.add_argument("--learning-rate", type=float, default=1e-5)
    parser.add_argument("--max-length", type=int, default=16384)
    parser.add_argument("--assistant-only-loss", action="store_true")
    parser.add_argument("--out", default="runs/sft")
    args = parser.parse_args(argv)

    dataset = load_from_disk(args.data).select_columns(["messages", "tools"])
    config = SFTConfig(
        output_dir=args.out, max_steps=args.steps, per_device_train_batch_size=args.batch_size,
        learning_rate=args.learning_rate, max_length=args.max_length, assistant_only_loss=args.assistant_only_loss,
        logging_steps=1, save_strategy="no", report_to="none", bf16=torch.cuda.is_available(),
        use_cpu=not torch.cuda.is_available())
    trainer = SFTTrainer(model=args.model, args=config, train_dataset=dataset)
    trainer.train()
    trainer.save_model(args.out)
    (Path(args.out) / "log_history.json").write_text(json.dumps(trainer.state.log_history, indent=1))


if __name__ == "__main__":
    main()
