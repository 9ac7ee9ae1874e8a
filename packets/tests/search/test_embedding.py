"""The embedding of packets and queries (packets.search.embedding), with the model that ships
inside the wordllama wheel: loaded with no network, the same vector for the same text."""

import importlib.util
import socket
from pathlib import Path

import numpy as np

from packets.search import embedding


def test_the_model_loads_from_the_wheel_without_the_network(monkeypatch):
    def refused(*args, **kwargs):
        raise AssertionError(f"the model tried to reach the network: {args}")

    monkeypatch.setattr(socket.socket, "connect", refused)
    monkeypatch.setattr(socket, "getaddrinfo", refused)
    monkeypatch.setattr(embedding, "_model", None)
    vector = embedding.text_vector("tests hang when the suite runs in parallel")
    assert vector.shape == (embedding.DIMENSIONS,)
    assert abs(float(np.linalg.norm(vector)) - 1) < 1e-5


def test_the_vectors_are_wordllamas_own(monkeypatch):
    """The hub reads WordLlama's files itself (embedding._Model); what it computes, pooled as
    WordLlama pools (a plain mean), must stay what WordLlama computes, given the package's folder as
    its cache and no download."""
    from wordllama import WordLlama

    folder = Path(importlib.util.find_spec("wordllama").origin).parent
    wordllama = WordLlama.load(config="l2_supercat", dim=256, cache_dir=folder, disable_download=True)
    texts = ["Stop pytest-xdist workers from deadlocking", "é ü ∑ 🙂 accents", ""]
    assert np.allclose(embedding.model().embed(texts, weighted=False), wordllama.embed(texts), atol=1e-6)


def test_a_text_leans_to_its_rare_words_more_than_a_plain_mean_would():
    """Tokens weigh the log of one plus their id, their rank in the tokenizer's vocabulary (most
    frequent first): the words most texts share count for less than those that tell a text apart."""
    model = embedding.model()
    text, rare, common = "we then ran the migration again", "migration", "we then ran again"
    weighted, plain = (model.embed([text, rare, common], weighted=w) for w in (True, False))
    weighted, plain = (v / np.linalg.norm(v, axis=1, keepdims=True) for v in (weighted, plain))
    assert weighted[0] @ weighted[1] > plain[0] @ plain[1]
    assert weighted[0] @ weighted[2] < plain[0] @ plain[2]


def test_the_model_is_loaded_once_per_process():
    assert embedding.model() is embedding.model()


def test_a_packet_vector_is_a_stored_unit_vector_of_its_texts():
    packet = {
        "goal": "Stop pytest-xdist workers from deadlocking on the shared SQLite file",
        "next_step": "Give each worker its own database file",
        "decisions": [{"what": "One file per worker", "why": "SQLite locks the whole file", "locked": True}],
        "attempts": [{"tried": "A longer busy timeout", "outcome": "failed", "learned": "It only waits longer"}],
        "open_questions": ["Do migrations run per worker?"],
        "tags": ["pytest", "sqlite"],
    }
    assert embedding.packet_texts(packet) == [
        packet["goal"],
        packet["next_step"],
        "One file per worker SQLite locks the whole file",
        "A longer busy timeout It only waits longer",
        "Do migrations run per worker?",
        "pytest sqlite",
    ]
    stored = embedding.packet_vector(packet)
    assert len(stored) == embedding.VECTOR_BYTES
    vector = embedding.from_bytes(stored)
    assert abs(float(np.linalg.norm(vector)) - 1) < 1e-3
    assert stored == embedding.packet_vector(dict(packet))  # the same packet, the same vector


def test_a_packet_is_nearer_to_a_query_about_it_than_to_one_about_something_else():
    packet = embedding.from_bytes(
        embedding.packet_vector(
            {"goal": "Photos uploaded from phones appear sideways", "next_step": "Apply EXIF orientation"}
        )
    )
    about = embedding.text_vector("pictures from mobile cameras display tilted")
    other = embedding.text_vector("invoice totals are off by a cent")
    assert float(packet @ about) > float(packet @ other)


def test_a_lone_surrogate_or_a_nul_is_embedded_not_refused():
    assert embedding.text_vector("lone \ud800 surrogate").shape == (embedding.DIMENSIONS,)
    assert embedding.text_vector("nul\x00byte").shape == (embedding.DIMENSIONS,)
    assert len(embedding.packet_vector({"goal": "a \udfff b", "next_step": "c"})) == embedding.VECTOR_BYTES


def test_texts_of_other_types_are_left_out():
    assert embedding.packet_texts({"goal": "g", "next_step": " ", "tags": "not-a-list", "attempts": ["x"]}) == ["g"]
