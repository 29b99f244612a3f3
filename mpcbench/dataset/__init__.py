"""The dataset files (docs/dataset.md): rows in and out of the raw tables, export, import and its checks."""
