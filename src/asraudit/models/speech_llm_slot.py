"""The audio slot of a speech LLM's prompt template: where the clip's audio tokens go.

A module of its own so that the prompt recipe (``speech_llm_prompts``) and the
per-family prompt builders it calls (``speech_llm_voxtral``, ``speech_llm_phi4``)
share the one spelling without importing each other.
"""

AUDIO_SLOT = "{audio}"
