"""The offline backends' specs: `local` (the MiniLM embedder) and `lexical` (word overlap)."""

from skillbench.backends.spec import BackendSpec

LOCAL = BackendSpec(
    name="local",
    summary="offline: the int8 MiniLM embedder on onnxruntime (a proxy, not Claude)",
    judge="skillbench.backends.offline.local:LocalJudge",
    text_model="skillbench.backends.offline.local:LocalTextModel",
    estimator="skillbench.cost.estimate:LocalEstimator",
    default_workers=1,
    offline=True,
    model_param="model_name",
)

LEXICAL = BackendSpec(
    name="lexical",
    summary="offline: word overlap between query and description (a second proxy)",
    judge="skillbench.backends.offline.lexical:LexicalJudge",
    text_model="skillbench.backends.offline.lexical:LexicalTextModel",
    offline=True,
)
