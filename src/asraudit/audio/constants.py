"""Audio constants every layer agrees on.

They live at the bottom of the package (``audio/``), not with the models,
because the readers (``audio.io``, ``data.corpus``) and the conditions
decide the sample format long before any model is loaded: a model is one
consumer of that format, not its owner.
"""

# Every clip is mono float32 at 16 kHz once decoded: what Whisper, wav2vec2
# and pocketsphinx's en-us model were trained on, so no backend resamples.
SAMPLE_RATE = 16_000

# Float audio lives in [-1, 1]; mixing and resampling overshoot it a little, never by 2x.
# Peaks above this are integer sample values stored as float (a WAV of int16 values
# written with subtype FLOAT peaks near 32767), which every model hears as noise.
FLOAT_PEAK_LIMIT = 2.0
