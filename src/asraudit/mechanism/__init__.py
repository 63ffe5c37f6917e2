"""Mechanism experiments on the white-box Whisper: steering directions and intervention experiments.

``steering`` (directions) imports torch through the white-box interventions;
``experiment`` (variants through the store, and their readout) does not, so
the readout also serves models that are not white-box.  The core package
never imports either.
"""
