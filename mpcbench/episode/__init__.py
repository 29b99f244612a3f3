"""One episode's contract and environment: the agent interface, the tools, context mode and answers.

A home for what an agent sees and sends; the agents themselves live in `mpcbench.agents`."""
