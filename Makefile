# The two commands a newcomer types: `make demo` and `make test`.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
# Extras the test suite exercises; each is optional for users.
EXTRAS ?= test,hf,ray,datasets,models
comma  := ,
STAMP  := $(VENV)/.installed-$(subst $(comma),-,$(EXTRAS))

.PHONY: venv test demo bench clean

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e ".[$(EXTRAS)]"
	touch $@

venv: $(STAMP)

test: venv
	$(PY) -m pytest -q

# Until `asraudit demo` (the full audit) exists: the calibration on 12 of
# parliament-mini's test sentences in every voice (84 clips, 4 models).
demo: venv
	$(VENV)/bin/asraudit calibrate --sentences 12 --out demo-out

bench: venv
	$(PY) benchmarks/wer_speed.py

clean:
	rm -rf $(VENV) build *.egg-info src/*.egg-info .pytest_cache
