"""The `anthropic` backend's spec: the Messages API through the official SDK."""

from skillbench.backends.spec import BackendSpec

ANTHROPIC = BackendSpec(
    name="anthropic",
    summary="the Anthropic Messages API (official SDK); trigger harnesses replay and minimal",
    judge="skillbench.backends.anthropic.replay:ReplayJudge",
    text_model="skillbench.backends.anthropic.sdk:AnthropicTextModel",
    executor="skillbench.behavior.executors:TextModelExecutor",
    estimator="skillbench.cost.estimate:AnthropicEstimator",
    harnesses={
        "replay": "skillbench.backends.anthropic.replay:ReplayJudge",
        "minimal": "skillbench.backends.anthropic.sdk:AnthropicJudge",
    },
    default_harness="replay",
    default_workers=16,
    key_variable="ANTHROPIC_API_KEY",
    aliases=("api",),
)
