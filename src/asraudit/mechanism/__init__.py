"""Mechanism experiments on the white-box Whisper: activation patching and steering.

Importing these modules imports torch; the core package never does.
"""
