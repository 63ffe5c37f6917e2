"""Audio: decoding to 16 kHz mono (io), and the conditions applied before a model hears it."""
