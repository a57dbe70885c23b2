"""A score's signature as an object (sacrebleu's `Signature`): the metric, the library that computed it,
its version and its options, beside the signature string stored with the score, which stays unchanged.

    >>> sig = Signature.from_string("ref:human|nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:2.6.0", "bleu")
    >>> (sig.metric, sig.library, sig.version, sig.options["tok"], str(sig) == sig.text)
    ('bleu', 'sacrebleu', '2.6.0', '13a', True)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

# libraries a signature may name, with the distribution name a run records their versions under
LIBRARIES = {"sacrebleu": "sacrebleu", "sklearn": "scikit-learn", "seqeval": "seqeval", "jiwer": "jiwer"}


@dataclass(frozen=True)
class Signature:
    """`metric` (the stored metric's name), `library` (that computed it: sacrebleu, sklearn, seqeval, jiwer,
    else dialectbench's own code; None for an empty signature), its `version` (the signature's own
    `version:` for sacrebleu, else the run's recorded library or package version), `options` (every
    `key:value` part: the model's answering mode, the reference kind, the metric's options; a key given
    twice keeps both values, in a list), `components` (the bare parts, in order) and `text`, the string
    stored with the score, which `str()` returns unchanged."""

    metric: str
    library: str | None
    version: str | None
    options: dict[str, Any] = field(default_factory=dict)
    components: tuple[str, ...] = ()
    text: str = ""

    def __str__(self) -> str:
        return self.text

    @classmethod
    def from_string(cls, text: str | None, metric: str = "", *, library_versions: Mapping[str, str] | None = None,
                    package_version: str | None = None) -> Signature:
        options: dict[str, Any] = {}
        components: list[str] = []
        for part in filter(None, (text or "").split("|")):
            key, sep, value = part.partition(":")
            if not sep:
                components.append(part)
            elif key in options:
                options[key] = [*(options[key] if isinstance(options[key], list) else [options[key]]), value]
            else:
                options[key] = value
        versions = library_versions or {}
        library: str | None
        version: str | None
        if "nrefs" in options and isinstance(options.get("version"), str):
            library, version = "sacrebleu", options.pop("version")
        else:
            library = next((lib for lib in LIBRARIES if lib in components or lib in options), None)
            if library is not None:
                version = versions.get(LIBRARIES[library])
            elif text:
                library, version = "dialectbench", package_version
            else:
                version = None
        return cls(metric, library, version, options, tuple(components), text or "")

    def as_dict(self) -> dict[str, Any]:
        """The structure stored beside the string (results.json's `signature_parsed`; the metric is `name`
        there, as results format 2 defined it)."""
        return {"name": self.metric, "library": self.library, "version": self.version, "options": self.options,
                "components": list(self.components)}
