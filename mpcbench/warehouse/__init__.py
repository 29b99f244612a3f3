"""The warehouse: the DuckDB file, its tables and SQL views (`db`), `mpcbench build` and `mpcbench explain`."""
