"""The generated worlds: configs, the generator of worlds and candidate instances, prose and tags."""
