"""Case 275: one variant asked for twice: ``steer induce --alpha 1 --alpha 1.0``, ``steer ablate --rank 1 --rank 1``,
``patch --block-attention 0-0.5 --block-attention 0.0-0.50``; and two scales one label showed alike (``%g`` of
1000000 and 1000001 is ``1e+06``).  Each was refused (``variant labels repeat: [...]``) only once the model had
loaded and the result store been made; an audit's ``alphas = [1000000, 1000001]`` in its mechanism stage, the
last.  The repeats are refused with the options, before the corpus and the model; the labels show every digit
where ``%g`` drops one."""

from __future__ import annotations

import pytest

from tests.faults.conftest import MODEL_LOADED, mechanism_folder_without_a_model



@pytest.fixture()
def here(tmp_path, monkeypatch):
    mechanism_folder_without_a_model(tmp_path, monkeypatch)
    return tmp_path


STEER = ("--corpus", "m.jsonl", "--direction", "d.safetensors", "--no-progress")
ONCE = "each value is one variant of the table, with its control: give each once"


@pytest.mark.parametrize("args, line", [
    (("steer", "induce", *STEER, "--alpha", "1", "--alpha", "2", "--alpha", "1.0"), f"--alpha 1 is given twice: {ONCE}"),
    (("steer", "induce", *STEER, "--alpha", "0", "--alpha", "-0"), f"--alpha -0 is given twice (as 0 before): {ONCE}"),
    (("steer", "ablate", *STEER, "--rank", "1", "--rank", "1"), f"--rank 1 is given twice: {ONCE}"),
    (("patch", "--corpus", "m.jsonl", "--block-attention", "0-0.5", "--block-attention", "0.0-0.50"),
     "--block-attention 0.0-0.50 is the span of --block-attention 0-0.5 again (0.0-0.5s): each span is one variant "
     "of the table: give each once"),
    (("patch", "--corpus", "m.jsonl", "--block-attention", "0-0.5", "--block-attention", "0-0.5"),
     "--block-attention 0-0.5 is given twice (0.0-0.5s): each span is one variant of the table: give each once"),
])
def test_a_variant_asked_twice_is_refused_before_the_model_loads(here, cli, args, line):
    ran = cli(*args)
    assert ran.code == 2, ran.err
    assert ran.error_lines == [f"asraudit: error: {line}"]
    assert not list(here.glob("*.sqlite*"))  # the store was made before


def test_scales_that_print_alike_get_labels_of_their_own():
    from asraudit.mechanism.steering import alpha_label

    assert [alpha_label(a) for a in (1.0, 0.5, -2.0, 1e6, 1000001.0, 0.1234567)] == \
        ["1", "0.5", "-2", "1e+06", "1000001.0", "0.1234567"]


def test_distinct_scales_still_reach_the_model(here, cli):
    with pytest.raises(AssertionError, match=MODEL_LOADED):
        cli("steer", "induce", *STEER, "--alpha", "1000000", "--alpha", "1000001")
