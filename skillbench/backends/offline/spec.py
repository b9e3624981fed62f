"""The offline backends' specs: `local` (the MiniLM embedder) and `lexical` (word overlap)."""

from skillbench.backends.spec import FREE, RECORDED_SAMPLES, BackendSpec
from skillbench.extras import LOCAL as LOCAL_EXTRA

LOCAL = BackendSpec(
    name="local",
    summary="offline: the int8 MiniLM embedder on onnxruntime (a proxy, not Claude)",
    judge="skillbench.backends.offline.local:LocalJudge",
    executor=RECORDED_SAMPLES,
    estimator=FREE,
    harness_label="offline embedding router (not Claude)",
    default_workers=1,  # onnxruntime threads: one leaves a core for the rest
    offline=True,
    extra=LOCAL_EXTRA,
    model_param="model_name",
    beside_cache="skillbench.backends.offline.embedding_store:beside_cache",
)

LEXICAL = BackendSpec(
    name="lexical",
    summary="offline: word overlap between query and description (a second proxy)",
    judge="skillbench.backends.offline.lexical:LexicalJudge",
    offline=True,
)
