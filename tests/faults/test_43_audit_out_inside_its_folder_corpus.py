"""Case 43: an audit's ``out`` inside its folder corpus is refused by ``--check``.

A folder corpus is every audio file under the folder.  With ``out = "o"``
inside it and the report's audio written as files (``audio_budget_mb = 0``,
or a corpus beyond the budget), the next run read
``o/report-audio/n1.wav.ogg`` as a third clip (``2 clips`` became ``3
clips``), with no reference, transcribed and counted: a silently different
corpus.
"""

from __future__ import annotations

import numpy as np
import pytest
import soundfile as sf

MODELS = "".join(f'[[model]]\nspec = "pocketsphinx"\nname = "p{i}"\npanel = true\noptions = {{ beam = {b} }}\n'
                 for i, b in enumerate((1e-48, 1e-50, 1e-52)))


@pytest.mark.parametrize("out", ["o", ".", "sub/o"])
def test_out_inside_the_folder_corpus_is_refused(tmp_path, cli, out):
    clips = tmp_path / "clips"
    clips.mkdir()
    sf.write(clips / "n1.wav", np.zeros(16_000, dtype=np.float32), 16_000)
    (clips / "n1.txt").write_text("nothing at all\n")
    spec = clips / "audit.toml"
    spec.write_text(f'out = "{out}"\n[corpus]\nfolder = "."\n[refdis]\nmajority = 0.66\nmin_panel = 2\n{MODELS}',
                    encoding="utf-8")
    ran = cli("audit", spec, "--check")
    assert (ran.code, ran.error_lines) == (2, [
        f"asraudit: error: {spec}: out {out} is inside the corpus folder ., whose every audio file is a clip: the "
        "report's audio (report-audio/) would be read as clips by the next run: choose an out outside it"])

    spec.write_text(f'out = "../out"\n[corpus]\nfolder = "."\n[refdis]\nmajority = 0.66\nmin_panel = 2\n{MODELS}',
                    encoding="utf-8")
    assert cli("audit", spec, "--check").code == 0
