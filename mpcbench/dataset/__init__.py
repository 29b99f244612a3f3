"""The dataset files (DESIGN.md section 5): rows in and out of the raw tables, export, import and its checks."""
