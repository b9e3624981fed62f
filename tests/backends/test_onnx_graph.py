"""The lean model rewrite: the same floats as the model as it is, in less memory.

Small models are written here as raw protobuf (field numbers of onnx.proto), so neither these
tests nor the code need the onnx package."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnxruntime as ort
import pytest

from skillbench.backends.offline import local
from skillbench.backends.offline.onnx_graph import EXTERNAL_MIN_BYTES, lean_model

FLOAT, INT8, INT64 = 1, 3, 7
FOLDER_KEY = "session.model_external_initializers_file_folder_path"


def _varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte, value = value & 0x7F, value >> 7
        out.append(byte | 0x80 if value else byte)
        if not value:
            return bytes(out)


def ld(number: int, payload: bytes | str) -> bytes:
    data = payload.encode() if isinstance(payload, str) else payload
    return _varint(number << 3 | 2) + _varint(len(data)) + data


def vi(number: int, value: int) -> bytes:
    return _varint(number << 3) + _varint(value)


def tensor(name: str, array: np.ndarray, data_type: int) -> bytes:
    body = b"".join(vi(1, d) for d in array.shape) + vi(2, data_type) + ld(8, name)
    return ld(5, body + ld(9, array.tobytes()))


def node(op: str, inputs: list[str], outputs: list[str], *attrs: tuple[str, int]) -> bytes:
    body = b"".join(ld(1, i) for i in inputs) + b"".join(ld(2, o) for o in outputs)
    body += ld(3, f"{op}_{outputs[0]}") + ld(4, op)
    body += b"".join(ld(5, ld(1, k) + vi(3, v) + vi(20, 2)) for k, v in attrs)
    return ld(1, body)


def value(number: int, name: str, elem_type: int, dims: list[int | str]) -> bytes:
    shape = b"".join(ld(1, vi(1, d) if isinstance(d, int) else ld(2, d)) for d in dims)
    return ld(number, ld(1, name) + ld(2, ld(1, vi(1, elem_type) + ld(2, shape))))


def model(nodes: list[bytes], inits: list[bytes], outputs: list[bytes]) -> bytes:
    graph = b"".join(nodes) + ld(2, "g") + b"".join(inits)
    graph += value(11, "ids", INT64, ["n"]) + b"".join(outputs)
    return vi(1, 8) + ld(8, ld(1, "") + vi(2, 17)) + ld(7, graph)


ROWS, COLS = 64, 32  # the int8 table is 2 KiB, over EXTERNAL_MIN_BYTES
RNG = np.random.default_rng(7)
Q = RNG.integers(-127, 128, size=(ROWS, COLS), dtype=np.int8)
PER_ROW = (RNG.random((ROWS, 1), dtype=np.float32) / 37).astype(np.float32)
OUT = value(12, "out", FLOAT, ["n", COLS])


def dequantise_then_gather(
    scale: np.ndarray = PER_ROW, *, scale_first: bool = False, axis: int = 0
) -> bytes:
    operands = ["s", "f"] if scale_first else ["f", "s"]
    return model(
        [
            node("Cast", ["q"], ["f"], ("to", FLOAT)),
            node("Mul", operands, ["w"]),
            node("Gather", ["w", "ids"], ["out"], ("axis", axis)),
        ],
        [tensor("q", Q, INT8), tensor("s", scale, FLOAT)],
        [OUT],
    )


def run(model_bytes: bytes, folder: Path | None = None) -> np.ndarray:
    options = ort.SessionOptions()
    if folder is not None:
        options.add_session_config_entry(FOLDER_KEY, str(folder))
    session = ort.InferenceSession(model_bytes, options, providers=["CPUExecutionProvider"])
    ids = np.array([3, 0, 63, 3, 17, -1], dtype=np.int64)
    out: np.ndarray = session.run(None, {"ids": ids})[0]
    return out


@pytest.mark.parametrize(
    ("scale", "scale_first"),
    [
        (PER_ROW, False),
        (PER_ROW, True),
        (np.full((1, 1), 0.0123, dtype=np.float32), False),
        (np.array(0.0123, dtype=np.float32), False),
    ],
)
def test_gather_first_gives_the_same_floats(scale: np.ndarray, scale_first: bool) -> None:
    plain = dequantise_then_gather(scale, scale_first=scale_first)
    lean = lean_model(plain)
    assert lean is not None and b"q_gathered" in lean
    assert run(lean).tobytes() == run(plain).tobytes()


def test_initializers_read_from_the_file_give_the_same_floats(tmp_path: Path) -> None:
    plain = dequantise_then_gather()
    (tmp_path / "m.onnx").write_bytes(plain)
    lean = lean_model(plain, data_file="m.onnx")
    assert lean is not None
    assert len(lean) < len(plain) - Q.nbytes + 200  # the table's bytes stay in the file
    assert run(lean, tmp_path).tobytes() == run(plain).tobytes()


@pytest.mark.parametrize(
    "plain",
    [
        dequantise_then_gather(axis=1),  # a gather across rows' scales
        dequantise_then_gather(np.full((1, COLS), 0.5, dtype=np.float32)),  # a scale per column
        model(  # the dequantised table is used twice
            [
                node("Cast", ["q"], ["f"], ("to", FLOAT)),
                node("Mul", ["f", "s"], ["w"]),
                node("Gather", ["w", "ids"], ["out"]),
                node("Identity", ["w"], ["w2"]),
            ],
            [tensor("q", Q, INT8), tensor("s", PER_ROW, FLOAT)],
            [OUT, value(12, "w2", FLOAT, [ROWS, COLS])],
        ),
        model(  # the scale is computed, not an initializer
            [
                node("Cast", ["q"], ["f"], ("to", FLOAT)),
                node("Identity", ["s"], ["s2"]),
                node("Mul", ["f", "s2"], ["w"]),
                node("Gather", ["w", "ids"], ["out"]),
            ],
            [tensor("q", Q, INT8), tensor("s", PER_ROW, FLOAT)],
            [OUT],
        ),
        b"not a model",
        b"",
    ],
)
def test_anything_else_is_left_alone(plain: bytes) -> None:
    assert lean_model(plain) is None


def test_small_initializers_stay_inline() -> None:
    small = model(
        [node("Gather", ["t", "ids"], ["out"])],
        [tensor("t", np.ones((2, 4), dtype=np.float32), FLOAT)],
        [OUT],
    )
    assert EXTERNAL_MIN_BYTES > 2 * 4 * 4
    assert lean_model(small, data_file="m.onnx") is None


def test_the_packaged_model_loads_lean_with_the_same_embeddings() -> None:
    onnx, tokenizer = local.model_files()
    lean = local.Embedder(onnx, tokenizer)
    assert lean.lean
    raw = onnx.read_bytes()
    slim = lean_model(raw, data_file=onnx.name)
    assert slim is not None and len(slim) < len(raw) // 50
    texts = ["my csv export will not load in pandas", "", "word " * 400, "Ünïcödé ✓"]
    plain = local.Embedder.__new__(local.Embedder)
    plain.tokenizer, plain.inputs, plain.lock = lean.tokenizer, lean.inputs, lean.lock
    options = ort.SessionOptions()
    options.intra_op_num_threads = options.inter_op_num_threads = local.DEFAULT_THREADS
    plain.session = ort.InferenceSession(str(onnx), options, providers=["CPUExecutionProvider"])
    assert lean.encode(texts).tobytes() == plain.encode(texts).tobytes()


def test_an_onnxruntime_that_refuses_the_lean_model_loads_the_file(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(local, "lean_model", lambda model, data_file: b"not a model")
    onnx, tokenizer = local.model_files()
    embedder = local.Embedder(onnx, tokenizer)
    assert not embedder.lean
    assert embedder.encode(["fix my csv"]).shape == (1, local.DIMENSION)
