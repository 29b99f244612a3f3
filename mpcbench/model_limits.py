"""A model's limits, told apart from the endpoint's faults.

    model_limit(400, 'request (9412 tokens) exceeds the available context size (8192 tokens)')
    # -> "context_exceeded"

Some refusals are about the model, not the endpoint: the conversation no longer fits the model's
context (`context_exceeded`, an HTTP 4xx), or the server could not parse what the model itself
produced, such as a malformed tool call (`model_output_rejected`, an HTTP 5xx, after the usual
retries). `llm.ChatClient` raises `errors.ModelLimitError` for these, and the episode ends as the
model's failure, scored (docs/evaluating.md). Every other refusal, timeout or connection error is
the endpoint's: an infrastructure error.

The wordings are matched lower-cased anywhere in the error's text (its message and JSON body), by
the server that says them; docs/evaluating.md lists them and a test keeps the two equal.
"""

from __future__ import annotations

CONTEXT_EXCEEDED = "context_exceeded"
MODEL_OUTPUT_REJECTED = "model_output_rejected"
CAUSES = (CONTEXT_EXCEEDED, MODEL_OUTPUT_REJECTED)

CONTEXT_WORDINGS: dict[str, tuple[str, ...]] = {
    "OpenAI": ("context_length_exceeded",),  # the error's `code`
    "llama.cpp": ("exceed_context_size_error", "exceeds the available context size"),
    "vLLM": ("maximum context length is", "is longer than the maximum model length"),
    "SGLang": ("is longer than the model's context length", "requested token count exceeds the model's maximum context"),
}
OUTPUT_WORDINGS: dict[str, tuple[str, ...]] = {
    "llama.cpp": ("the model produced output that does not match the expected", "failed to parse input at pos"),
    "vLLM": ("harmonyerror", "unexpected tokens remaining in message header", "while expecting start token"),
}


def _says(text: str, wordings: dict[str, tuple[str, ...]]) -> bool:
    return any(w in text for group in wordings.values() for w in group)


def model_limit(status: int, text: str) -> str | None:
    """The model's limit behind an HTTP error (its status and its text), or None: the endpoint's
    fault. A context refusal is a 4xx other than 429; an output rejection a 5xx."""
    text = text.lower()
    if 400 <= status < 500 and status != 429 and _says(text, CONTEXT_WORDINGS):
        return CONTEXT_EXCEEDED
    if status >= 500 and _says(text, OUTPUT_WORDINGS):
        return MODEL_OUTPUT_REJECTED
    return None
