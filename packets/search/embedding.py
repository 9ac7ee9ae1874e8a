"""Packets as vectors of their meaning, for recall by meaning (docs/search.md).

The model is WordLlama's `l2_supercat` at 256 dimensions: a static model (a vector per token,
averaged) whose weights ship inside the `wordllama` wheel, so the hub embeds with no download,
no key and no GPU, in about a millisecond of one core per packet or less. It was chosen by measurement on the
eval set beside the search tests; docs/search.md has the figures against the other candidates.

A text's vector is its tokens' vectors averaged with a weight each, the log of one plus the token's
id: the tokenizer numbers its tokens from the most frequent on, so by Zipf's law that is the
token's self-information up to a constant, fixed by the model (it does not drift as a hub's packets
grow). Words most texts share weigh less than the rare ones that tell packets apart.

What is embedded: the goal, the next step, each decision (what, why, consequences), each attempt
(what was tried and what was learned), each open question and the tags, each text on its own;
the packet's vector is the mean of their unit vectors. Embedded apart, a packet's twin written in
other words was found more often than with one vector of the whole text, and paraphrases as often.

The model is loaded once per process, on first use (a process that never embeds never loads it).
Vectors are stored as little-endian float16 unit vectors, 512 bytes a packet."""

import importlib.util
import json
import mmap
import threading
from pathlib import Path

import numpy as np

from packets.search import blas

blas.one_thread()

DIMENSIONS = 256
VECTOR_BYTES = DIMENSIONS * 2
_STORED = np.dtype("<f2")

_model = None
_loading = threading.Lock()


def model() -> "_Model":
    """The model, loaded on first use, once per process."""
    global _model
    if _model is None:
        with _loading:
            if _model is None:
                _model = _Model()
    return _model


class _Model:
    """WordLlama's l2_supercat: its tokenizer, read with `tokenizers` as WordLlama reads it, and its
    token vectors, float16 as the wheel stores them, mapped from the file rather than read into
    memory: a process holds only the pages of the tokens it has met, shared with every other
    process of the machine, and the kernel may drop them under pressure (they are the file's).
    WordLlama.load() would read them into memory as float32, import requests and its pydantic
    configuration, and look for its tokenizer in a folder the wheel does not have, then download
    it: more than the hub's smallest profile has to spare (docs/explanation/trade-offs.md: where
    the hub goes around a library). The file's layout is the safetensors format's: an 8-byte
    little-endian length, a JSON header of that length naming each tensor's dtype, shape and byte
    range, then the data."""

    def __init__(self):
        from tokenizers import Tokenizer

        folder = Path(importlib.util.find_spec("wordllama").origin).parent
        self.tokenizer = Tokenizer.from_file(str(folder / "tokenizers" / "l2_supercat_tokenizer_config.json"))
        self.tokenizer.no_padding()
        self.tokenizer.no_truncation()
        self.vectors = _mapped(folder / "weights" / f"l2_supercat_{DIMENSIONS}.safetensors", "embedding.weight")
        self.weights = np.log1p(np.arange(len(self.vectors), dtype=np.float32))

    def embed(self, texts: list[str], *, weighted: bool = True) -> np.ndarray:
        """Each text's vector, float32: the weighted mean of its tokens' vectors (the module's
        docstring), or their plain mean (WordLlama's own pooling) when not `weighted`."""
        out = np.zeros((len(texts), DIMENSIONS), dtype=np.float32)
        for row, text in enumerate(texts):
            # One at a time: encode_batch would start a pool of threads, each holding memory.
            ids = np.asarray(self.tokenizer.encode(text, add_special_tokens=False).ids, dtype=np.intp)
            ids = np.minimum(ids, len(self.vectors) - 1)  # not np.clip, whose checks cost more than the rest
            weights = self.weights[ids] if weighted else np.ones(len(ids), dtype=np.float32)
            if weights.sum() > 0:
                # Through float64: numpy converts float16 to it about twice as fast as to float32.
                out[row] = weights @ self.vectors[ids].astype(np.float64) / weights.sum()
        return out


def _mapped(path: Path, name: str) -> np.ndarray:
    """The float16 tensor `name` of the safetensors file at `path`, mapped read-only."""
    with open(path, "rb") as file:
        length = int.from_bytes(file.read(8), "little")
        tensor = json.loads(file.read(length))[name]
        mapped = mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ)
    if tensor["dtype"] != "F16":
        raise ValueError(f"{path.name}: {name} is {tensor['dtype']}, not F16")
    # Rows are read here and there: without this, the kernel would read ahead the pages around
    # each one, and the process would soon hold the whole file.
    mapped.madvise(mmap.MADV_RANDOM)
    start, end = tensor["data_offsets"]
    vectors = np.frombuffer(mapped, dtype="<f2", count=(end - start) // 2, offset=8 + length + start)
    return vectors.reshape(tuple(tensor["shape"]))


def packet_texts(packet: dict) -> list[str]:
    """The texts of a packet that are embedded, each on its own."""

    def joined(item: dict, *names: str) -> str:
        return " ".join(item[name] for name in names if isinstance(item.get(name), str))

    def items(key: str) -> list:
        value = packet.get(key)
        return value if isinstance(value, list) else []

    texts = [packet.get("goal"), packet.get("next_step")]
    texts += [joined(d, "what", "why", "consequences") for d in items("decisions") if isinstance(d, dict)]
    texts += [joined(a, "tried", "learned") for a in items("attempts") if isinstance(a, dict)]
    texts += [q for q in items("open_questions")]
    texts.append(" ".join(tag for tag in items("tags") if isinstance(tag, str)))
    return [text for text in texts if isinstance(text, str) and text.strip()]


def packet_vector(packet: dict) -> bytes:
    """The packet's stored vector: the mean of its texts' unit vectors, itself made unit."""
    texts = [_encodable(text) for text in packet_texts(packet)] or [""]
    return to_bytes(_unit(_unit(model().embed(texts)).mean(axis=0)))


def text_vector(text: str) -> np.ndarray:
    """A query's unit vector (float32)."""
    return _unit(model().embed([_encodable(text)])[0])


def to_bytes(vector: np.ndarray) -> bytes:
    return np.asarray(vector, dtype=_STORED).tobytes()


def from_bytes(data: bytes) -> np.ndarray:
    """A stored vector, as float32."""
    return np.frombuffer(data, dtype=_STORED).astype(np.float32)


def _encodable(text: str) -> str:
    """The text with any lone surrogate (which JSON may carry) replaced: the tokenizer refuses them."""
    return text.encode("utf-8", "replace").decode("utf-8")


def _unit(vectors: np.ndarray) -> np.ndarray:
    vectors = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=-1, keepdims=True)
    return vectors / np.where(norms == 0, 1, norms)
