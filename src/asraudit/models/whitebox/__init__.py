"""The white-box Whisper: the embedded CTranslate2 models as PyTorch modules you can hook.

* ``convert``: CTranslate2 ``model.bin`` -> transformers ``WhisperForConditionalGeneration``
  (+ tokenizer, generation config), cached under ``$ASRAUDIT_CACHE/whitebox/<name>``
  (a folder given by path: ``<name>-<digest of its path>``);
* ``model.WhiteboxWhisper``: that model behind asraudit's model protocol, decoding
  exactly like the CTranslate2 backend;
* ``interventions``: activation patching, cross-attention masking, steering.

Everything here needs the ``hf`` extra (torch, transformers); importing this
package itself does not import torch, so ``asraudit`` can list the commands
without it.
"""

from __future__ import annotations


def load(name: str = "whisper-tiny.en", **kwargs):
    """``WhiteboxWhisper.load`` without importing torch until it is called."""
    from asraudit.models.whitebox.model import WhiteboxWhisper

    return WhiteboxWhisper.load(name, **kwargs)
