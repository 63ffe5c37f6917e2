"""Case 99: a vLLM server (``scoring = "vllm-prompt-logprobs"``) whose ``prompt_logprobs`` are not usable scores.

The parse of ``prompt_logprobs`` trusted every entry.  A null among the
candidate's tokens (vLLM gives null only for the first prompt token) was read
as a token with no text and log-prob 0.0: the candidate's score was stored
with a sixth, certain token in it, exit 0.  A log-prob of NaN or above 0 was
stored as it came.  An entry without ``logprob``, or whose value is a number
instead of an object, was a ``KeyError`` / ``AttributeError`` traceback.  A
``prompt_token_ids`` list (which newer vLLM returns) that does not match the
entries' token ids was ignored.  Now each is one line naming the server, the
position and what is wrong, exit 1; nothing of that candidate is stored; the
clip scored before it stays, and the rerun scores only the rest.
"""

from __future__ import annotations

import json
import sys
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import numpy as np
import pytest
import soundfile

from asraudit.run.store import ResultStore

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from http_stub import send_json, serving  # noqa: E402

# The stub's chat template: these tokens, then the candidate in 3-character pieces, then the end of the turn.
HEAD = ["<|im_start|>", "user", "\n", "<|audio|>", "<|im_end|>", "\n", "<|im_start|>", "assistant", "\n"]
POISONED = len(HEAD) + 1  # the candidate's second token


class _Scores(BaseHTTPRequestHandler):
    """Scores the first request as vLLM does, then answers as ``mode`` says (``ok``: as vLLM every time)."""

    mode = "ok"
    answered = 0

    def do_POST(self):  # noqa: N802 (the handler's protocol)
        candidate = json.loads(self.rfile.read(int(self.headers["Content-Length"])))["messages"][-1]["content"]
        rendered = HEAD + [candidate[i : i + 3] for i in range(0, len(candidate), 3)] + ["<|im_end|>", "\n"]
        entries = [None] + [{str(100 + k): {"logprob": -0.5, "rank": 1, "decoded_token": token}}
                            for k, token in enumerate(rendered) if k > 0]
        payload = {"choices": [{"message": {"content": "a"}}], "prompt_logprobs": entries}
        cls = type(self)
        mode = "ok" if cls.answered == 0 else cls.mode
        ((key, value),) = entries[POISONED].items()
        if mode == "null inside":  # a position with no log-prob among the candidate's tokens
            entries.insert(POISONED, None)
        elif mode == "nan":
            value["logprob"] = float("nan")
        elif mode == "positive":
            value["logprob"] = 0.7
        elif mode == "no logprob":
            del value["logprob"]
        elif mode == "not an object":
            entries[POISONED] = {key: -0.5}
        elif mode == "other token ids":
            payload["prompt_token_ids"] = [7] + [100 + k for k in range(1, len(rendered))]
            payload["prompt_token_ids"][POISONED] = 31
        cls.answered += 1
        send_json(self, payload)

    def log_message(self, *args):
        pass


CASES = {
    "null inside": f"prompt_logprobs[{POISONED}] is null inside the candidate's tokens (only the first prompt token "
                   "has no log-prob): the candidate cannot be scored",
    "nan": f"prompt_logprobs[{POISONED}]: the logprob of token {100 + POISONED} is nan; a log-probability is a finite "
           "number <= 0: the server's scores are broken",
    "positive": f"prompt_logprobs[{POISONED}]: the logprob of token {100 + POISONED} is 0.7; a log-probability is a "
                "finite number <= 0: the server's scores are broken",
    "no logprob": f"prompt_logprobs[{POISONED}]: the logprob of token {100 + POISONED} is null, not a number",
    "not an object": f"prompt_logprobs[{POISONED}]: the entry of token {100 + POISONED} is -0.5, not an object with "
                     "a logprob",
    "other token ids": f"prompt_logprobs[{POISONED}]: token {100 + POISONED}, but prompt_token_ids[{POISONED}] is 31: "
                       "the scores are not the prompt's tokens",
}


def _inputs(folder: Path) -> tuple[Path, Path]:
    rows, candidates = [], []
    for i in range(2):
        soundfile.write(folder / f"c{i}.wav", np.zeros(1600 * (i + 1), dtype=np.float32), 16000)
        rows.append(json.dumps({"audio_filepath": f"c{i}.wav", "text": f"clip {i}"}))
        candidates.append(json.dumps({"audio_filepath": f"c{i}.wav", "candidates": ["the cat sat"]}))
    (folder / "corpus.jsonl").write_text("\n".join(rows) + "\n", encoding="utf-8")
    (folder / "candidates.jsonl").write_text("\n".join(candidates) + "\n", encoding="utf-8")
    return folder / "corpus.jsonl", folder / "candidates.jsonl"


@pytest.mark.parametrize("mode", list(CASES))
def test_scores_that_are_not_log_probs_are_refused_not_stored(tmp_path, cli, mode):
    corpus, candidates = _inputs(tmp_path)
    _Scores.mode, _Scores.answered = mode, 0
    with serving(_Scores) as url:
        args = ["score", "--corpus", corpus, "--texts", candidates, "--model", url, "--option", "model=m",
                "--option", "scoring=vllm-prompt-logprobs", "--batch-size", "1", "--no-progress",
                "--out", tmp_path / "scores.jsonl"]
        ran = cli(*args)
        assert ran.code == 1 and "Traceback" not in ran.err
        assert ran.error_lines == [f"asraudit: error: {url}/v1/chat/completions: {CASES[mode]}"]
        with ResultStore(tmp_path / "asraudit.sqlite") as store:
            (kept,) = store.results()  # the first clip's scores; nothing of the broken answer
        assert kept.clip_id == "c0.wav" and kept.scores[0].logprobs == (-0.5,) * 5

        _Scores.mode = "ok"  # the server is mended: the rerun scores the one clip left
        assert cli(*args).code == 0
        assert _Scores.answered == 3
        rows = [json.loads(line) for line in (tmp_path / "scores.jsonl").read_text().splitlines()]
        assert [(r["audio_filepath"], r["logprobs"]) for r in rows] == [("c0.wav", [-0.5] * 5), ("c1.wav", [-0.5] * 5)]
