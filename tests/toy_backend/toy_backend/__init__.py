"""A skillbench backend plugin: its spec, registered by the `skillbench.backends` entry point
in this folder's pyproject.toml. The parts are named by string and imported when used."""

from skillbench.backends.spec import BackendSpec

TOY = BackendSpec(
    name="toy",
    summary="a deterministic offline toy: keyword routing, a word-mining proposer, echo runs",
    judge="toy_backend.parts:ToyJudge",
    text_model="toy_backend.parts:ToyTextModel",
    executor="toy_backend.parts:ToyExecutor",
    default_workers=2,
    harness_label="toy keyword router",
    aliases=("toybox",),
)
