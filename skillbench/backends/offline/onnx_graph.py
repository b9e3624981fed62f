"""A lean form of an int8 ONNX model: the same floats out, about 100 MB less at peak to load.

The local backend's model stores each weight as int8 plus a per-row float scale, dequantised by
`Cast` then `Mul`. onnxruntime folds those constants when the session loads, so the word
embedding table (30522 x 384, 11.7 M values: half the model) becomes a 47 MB float table, and
the fold briefly holds two float copies of it. Yet each text reads only its few tokens' rows.
`lean_model` rewrites every

    Gather(Mul(Cast(Q), S), ids)          Q, S initializers; S one scale per row of Q (or one)

into

    Mul(Cast(Gather(Q, ids)), Gather(S, ids))

which gives the same floats bit for bit: the cast of an int8 is exact, and row i's elements are
multiplied by row i's scale either way (one IEEE multiplication per element, nothing summed).
Only the gathered rows are ever dequantised, so the table stays int8 in memory.

It also leaves the weights' bytes in the model file (ONNX external data: each large initializer
names the file, the offset and the length of its bytes there), so the session reads them from the
file instead of from a copy of the whole model held in Python plus its parsed copy.

The model is edited at the protobuf wire level (field numbers of onnx.proto), so the `onnx`
package is not needed: only graph nodes and initializer entries change, every other byte is
copied. A model with anything this editor does not follow (subgraphs, a value used twice, a scale
of another shape) keeps those nodes as they are; one it cannot read at all gives None.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

# onnx.proto field numbers
_MODEL_GRAPH = 7
_GRAPH_NODE, _GRAPH_INITIALIZER, _GRAPH_OUTPUT, _GRAPH_VALUE_INFO = 1, 5, 12, 13
_NODE_INPUT, _NODE_OUTPUT, _NODE_NAME, _NODE_OP_TYPE, _NODE_ATTRIBUTE, _NODE_DOMAIN = (
    1,
    2,
    3,
    4,
    5,
    7,
)
_ATTR_NAME, _ATTR_INT, _ATTR_GRAPH, _ATTR_GRAPHS = 1, 3, 6, 11
_TENSOR_DIMS, _TENSOR_SEGMENT, _TENSOR_NAME, _TENSOR_RAW_DATA = 1, 3, 8, 9
_TENSOR_EXTERNAL_DATA, _TENSOR_DATA_LOCATION, _LOCATION_EXTERNAL = 13, 14, 1
_ENTRY_KEY, _ENTRY_VALUE = 1, 2
EXTERNAL_MIN_BYTES = 1024
_VALUE_INFO_NAME = 1
_VARINT, _I64, _LEN, _I32 = 0, 1, 2, 5


class WireError(ValueError):
    """The bytes are not a protobuf message this editor can walk."""


def _read_varint(buf: memoryview, pos: int) -> tuple[int, int]:
    result = shift = 0
    while True:
        if pos >= len(buf) or shift > 63:
            raise WireError("truncated or overlong varint")
        byte = buf[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if byte < 0x80:
            return result, pos
        shift += 7


def _varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte, value = value & 0x7F, value >> 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


@dataclass(frozen=True)
class _Field:
    number: int
    wire: int
    start: int  # the whole entry, key included
    value: int  # the value (a length-delimited field's payload)
    end: int


def _fields(buf: memoryview, start: int = 0, end: int | None = None) -> Iterator[_Field]:
    pos, end = start, len(buf) if end is None else end
    while pos < end:
        entry = pos
        key, pos = _read_varint(buf, pos)
        number, wire = key >> 3, key & 7
        value = pos
        if wire == _VARINT:
            _, pos = _read_varint(buf, pos)
        elif wire == _I64:
            pos += 8
        elif wire == _LEN:
            size, value = _read_varint(buf, pos)
            pos = value + size
        elif wire == _I32:
            pos += 4
        else:
            raise WireError(f"unsupported wire type {wire}")
        if pos > end:
            raise WireError("field runs past its message")
        yield _Field(number, wire, entry, value, pos)


def _text(buf: memoryview, field: _Field) -> str:
    return bytes(buf[field.value : field.end]).decode("utf-8")


def _entry(number: int, payload: bytes) -> bytes:
    return _varint(number << 3 | _LEN) + _varint(len(payload)) + payload


@dataclass
class _Node:
    field: _Field
    inputs: list[str]
    outputs: list[str]
    name: str
    op_type: str
    domain: str
    attributes: list[bytes]  # encoded AttributeProto entries, key included
    has_subgraph: bool


def _node(buf: memoryview, field: _Field) -> _Node:
    node = _Node(field, [], [], "", "", "", [], False)
    for f in _fields(buf, field.value, field.end):
        if f.number == _NODE_INPUT:
            node.inputs.append(_text(buf, f))
        elif f.number == _NODE_OUTPUT:
            node.outputs.append(_text(buf, f))
        elif f.number == _NODE_NAME:
            node.name = _text(buf, f)
        elif f.number == _NODE_OP_TYPE:
            node.op_type = _text(buf, f)
        elif f.number == _NODE_DOMAIN:
            node.domain = _text(buf, f)
        elif f.number == _NODE_ATTRIBUTE:
            node.attributes.append(bytes(buf[f.start : f.end]))
            inner = _fields(buf, f.value, f.end)
            node.has_subgraph |= any(a.number in (_ATTR_GRAPH, _ATTR_GRAPHS) for a in inner)
    return node


def _attribute(encoded: bytes) -> tuple[str, int | None]:
    """(name, integer value or None) of one encoded AttributeProto entry."""
    buf = memoryview(encoded)
    entry = next(_fields(buf))
    name, value = "", None
    for f in _fields(buf, entry.value, entry.end):
        if f.number == _ATTR_NAME:
            name = _text(buf, f)
        elif f.number == _ATTR_INT and f.wire == _VARINT:
            value = _read_varint(buf, f.value)[0]
    return name, value


def _dims(buf: memoryview, field: _Field) -> tuple[str, list[int]]:
    name, dims = "", []
    for f in _fields(buf, field.value, field.end):
        if f.number == _TENSOR_NAME:
            name = _text(buf, f)
        elif f.number == _TENSOR_DIMS and f.wire == _VARINT:
            dims.append(_read_varint(buf, f.value)[0])
        elif f.number == _TENSOR_DIMS and f.wire == _LEN:
            pos = f.value
            while pos < f.end:
                dim, pos = _read_varint(buf, pos)
                dims.append(dim)
    return name, dims


def _encode_node(
    name: str, op_type: str, inputs: list[str], outputs: list[str], attributes: list[bytes]
) -> bytes:
    body = b"".join(_entry(_NODE_INPUT, i.encode()) for i in inputs)
    body += b"".join(_entry(_NODE_OUTPUT, o.encode()) for o in outputs)
    body += _entry(_NODE_NAME, name.encode()) + _entry(_NODE_OP_TYPE, op_type.encode())
    body += b"".join(attributes)
    return _entry(_GRAPH_NODE, body)


@dataclass(frozen=True)
class _Match:
    gather: int
    mul: int
    cast: int
    quantised: str
    scale: str
    per_row_scale: bool
    scale_first: bool  # Mul(S, Cast(Q)) rather than Mul(Cast(Q), S)


def _matches(
    nodes: list[_Node], initializers: dict[str, list[int]], graph_outputs: set[str]
) -> list[_Match]:
    producer: dict[str, int] = {}
    uses: dict[str, int] = {}
    for index, node in enumerate(nodes):
        for output in node.outputs:
            producer[output] = index
        for name in node.inputs:
            uses[name] = uses.get(name, 0) + 1
    found = []
    for index, gather in enumerate(nodes):
        if gather.op_type != "Gather" or gather.domain or len(gather.inputs) != 2:
            continue
        if any(_attribute(a) not in (("axis", 0), ("axis", None)) for a in gather.attributes):
            continue
        mul_index = producer.get(gather.inputs[0])
        if mul_index is None:
            continue
        mul = nodes[mul_index]
        if mul.op_type != "Mul" or mul.domain or len(mul.inputs) != 2:
            continue
        for scale_first in (False, True):
            cast_out, scale = mul.inputs[::-1] if scale_first else mul.inputs
            cast_index = producer.get(cast_out)
            if cast_index is None:
                continue
            cast = nodes[cast_index]
            if cast.op_type != "Cast" or cast.domain or len(cast.inputs) != 1:
                continue
            quantised = cast.inputs[0]
            q_dims, s_dims = initializers.get(quantised), initializers.get(scale)
            if q_dims is None or s_dims is None or not q_dims or len(s_dims) > len(q_dims):
                continue
            per_row = len(s_dims) == len(q_dims) and s_dims[0] == q_dims[0]
            if not per_row and any(d != 1 for d in s_dims):
                continue  # a scale that mixes rows: gathering first would not be exact
            if per_row and any(
                d not in (1, q) for d, q in zip(s_dims[1:], q_dims[1:], strict=True)
            ):
                continue
            private = (uses.get(cast_out), uses.get(mul.outputs[0])) == (1, 1)
            if not private or {cast_out, mul.outputs[0]} & graph_outputs:
                continue
            found.append(
                _Match(index, mul_index, cast_index, quantised, scale, per_row, scale_first)
            )
            break
    return found


def _external(buf: memoryview, field: _Field, location: str) -> bytes | None:
    """The initializer `field` with its raw data left in the file (`location`, at the offset it
    has in `buf`), or None to keep it as it is (small, typed fields, or already external)."""
    inner = list(_fields(buf, field.value, field.end))
    raw = [f for f in inner if f.number == _TENSOR_RAW_DATA]
    unusual = {_TENSOR_SEGMENT, _TENSOR_EXTERNAL_DATA, _TENSOR_DATA_LOCATION}
    if len(raw) != 1 or raw[0].end - raw[0].value < EXTERNAL_MIN_BYTES:
        return None
    if any(f.number in unusual for f in inner):
        return None
    body = b"".join(bytes(buf[f.start : f.end]) for f in inner if f.number != _TENSOR_RAW_DATA)
    for key, value in (
        ("location", location),
        ("offset", str(raw[0].value)),
        ("length", str(raw[0].end - raw[0].value)),
    ):
        pair = _entry(_ENTRY_KEY, key.encode()) + _entry(_ENTRY_VALUE, value.encode())
        body += _entry(_TENSOR_EXTERNAL_DATA, pair)
    body += _varint(_TENSOR_DATA_LOCATION << 3 | _VARINT) + _varint(_LOCATION_EXTERNAL)
    return _entry(_GRAPH_INITIALIZER, body)


def lean_model(model: bytes, *, data_file: str | None = None) -> bytes | None:
    """`model` (the bytes of an .onnx file) rewritten to load in less memory, the same floats out:

    - each dequantise-then-Gather becomes Gather-then-dequantise (see the module docstring);
    - with `data_file` (that .onnx file's name, which the session finds in the folder given by
      its `session.model_external_initializers_file_folder_path`), every initializer of 1 KiB or
      more points at its bytes in that file instead of carrying a copy, so the session reads them
      from the file rather than from a second, parsed copy of the whole model.

    None when the model is not understood, or there is nothing to change.
    """
    buf = memoryview(model)
    try:
        graphs = [f for f in _fields(buf) if f.number == _MODEL_GRAPH and f.wire == _LEN]
        if len(graphs) != 1:
            return None
        graph = graphs[0]
        entries = list(_fields(buf, graph.value, graph.end))
        nodes = [_node(buf, f) for f in entries if f.number == _GRAPH_NODE]
        if any(node.has_subgraph for node in nodes):
            return None
        initializers = dict(_dims(buf, f) for f in entries if f.number == _GRAPH_INITIALIZER)
        graph_outputs = {
            _text(buf, g)
            for f in entries
            if f.number == _GRAPH_OUTPUT
            for g in _fields(buf, f.value, f.end)
            if g.number == _VALUE_INFO_NAME
        }
        matches = _matches(nodes, initializers, graph_outputs)
        external = {
            i: moved
            for i, f in enumerate(entries)
            if data_file is not None and f.number == _GRAPH_INITIALIZER
            for moved in [_external(buf, f, data_file)]
            if moved is not None
        }
    except (WireError, UnicodeDecodeError, IndexError):
        return None
    if not matches and not external:
        return None
    replaced, dropped_nodes, dropped_values = _rewrite(nodes, initializers, matches)

    parts: list[bytes | memoryview] = []
    node_index = 0
    for entry_index, f in enumerate(entries):
        if f.number == _GRAPH_NODE:
            index, node_index = node_index, node_index + 1
            if index in replaced:
                parts.append(replaced[index])
                continue
            if index in dropped_nodes:
                continue
        elif f.number == _GRAPH_VALUE_INFO:
            names = {
                _text(buf, g) for g in _fields(buf, f.value, f.end) if g.number == _VALUE_INFO_NAME
            }
            if names & dropped_values:
                continue  # the shape of a value that no longer exists
        elif entry_index in external:
            parts.append(external[entry_index])
            continue
        parts.append(buf[f.start : f.end])
    body_size = sum(len(p) for p in parts)
    head = _varint(_MODEL_GRAPH << 3 | _LEN) + _varint(body_size)
    return b"".join([buf[: graph.start], head, *parts, buf[graph.end :]])


def _rewrite(
    nodes: list[_Node], initializers: dict[str, list[int]], matches: list[_Match]
) -> tuple[dict[int, bytes], set[int], set[str]]:
    """(new nodes by the index of the Gather they replace, nodes dropped, values dropped)."""
    taken = {n for node in nodes for n in (*node.inputs, *node.outputs, node.name)}
    taken |= set(initializers)

    def fresh(base: str) -> str:
        name, count = base, 1
        while name in taken:
            name, count = f"{base}_{count}", count + 1
        taken.add(name)
        return name

    replaced: dict[int, bytes] = {}
    dropped_nodes: set[int] = set()
    dropped_values: set[str] = set()
    for match in matches:
        gather, mul, cast = nodes[match.gather], nodes[match.mul], nodes[match.cast]
        ids, output = gather.inputs[1], gather.outputs[0]
        rows_q = fresh(f"{match.quantised}_gathered")
        rows_f = fresh(f"{match.quantised}_gathered_f")
        new = _encode_node(
            fresh(f"{gather.name or output}_q"),
            "Gather",
            [match.quantised, ids],
            [rows_q],
            gather.attributes,
        )
        scale = match.scale
        if match.per_row_scale:
            scale = fresh(f"{match.scale}_gathered")
            new += _encode_node(
                fresh(f"{gather.name or output}_scale"),
                "Gather",
                [match.scale, ids],
                [scale],
                gather.attributes,
            )
        new += _encode_node(
            fresh(f"{cast.name or rows_f}_gathered"), "Cast", [rows_q], [rows_f], cast.attributes
        )
        operands = [scale, rows_f] if match.scale_first else [rows_f, scale]
        new += _encode_node(
            fresh(f"{mul.name or output}_gathered"), "Mul", operands, [output], mul.attributes
        )
        replaced[match.gather] = new
        dropped_nodes |= {match.mul, match.cast}
        dropped_values |= {cast.outputs[0], mul.outputs[0]}
    return replaced, dropped_nodes, dropped_values
