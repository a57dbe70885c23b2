"""A score's signature as an object (sacrebleu's `Signature`): the metric, the library that computed it,
its version and its options, beside the signature string stored with the score, which stays unchanged.

Every metric builds its signature as an object (`Signature.build`, `Signature.from_sacrebleu`); its string
(`str(sig)`) is what the store keeps. `from_string` only reads a string back (a stored score, or a
signature a plugin's code wrote as text).

    >>> sig = Signature.build("uas", "uas", ("punct", "included"), library="dialectbench")
    >>> (str(sig), sig.options, sig.components)
    ('uas|punct:included', {'punct': 'included'}, ('uas',))
    >>> sig = Signature.from_string("ref:human|nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:2.6.0", "bleu")
    >>> (sig.metric, sig.library, sig.version, sig.options["tok"], str(sig) == sig.text)
    ('bleu', 'sacrebleu', '2.6.0', '13a', True)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import cache
from typing import Any

# libraries a signature may name, with the distribution name a run records their versions under
LIBRARIES = {"sacrebleu": "sacrebleu", "sklearn": "scikit-learn", "seqeval": "seqeval", "jiwer": "jiwer"}

# one part of a signature: a bare component ("sklearn", "max-over-golds") or a (key, value) option
Part = str | tuple[str, Any]


@cache
def library_version(library: str) -> str | None:
    """The installed version of a library a signature names (dialectbench: the package's own)."""
    if library == "dialectbench":
        from dialectbench import __version__

        return __version__
    from importlib import metadata

    try:
        return metadata.version(LIBRARIES.get(library, library))
    except metadata.PackageNotFoundError:
        return None


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
    def build(cls, metric: str, *parts: Part, library: str = "dialectbench",
              version: str | None = None) -> Signature:
        """The signature of `metric` from its parts in order (the string joins them with `|`, an option as
        `key:value`), computed by `library` (its installed version unless `version` says). A bare component
        holds no `:`, so that reading the string back (`from_string`) gives the same parts."""
        options: dict[str, Any] = {}
        components: list[str] = []
        texts: list[str] = []
        for part in parts:
            if isinstance(part, tuple):
                key, value = part[0], str(part[1])
                options[key] = [*(options[key] if isinstance(options[key], list) else [options[key]]), value] \
                    if key in options else value
                texts.append(f"{key}:{value}")
            else:
                if ":" in part:
                    raise ValueError(f"signature component {part!r} holds ':'; give it as a (key, value) option")
                components.append(part)
                texts.append(part)
        return cls(metric, library, version or library_version(library), options, tuple(components),
                   "|".join(texts))

    @classmethod
    def from_sacrebleu(cls, signature: Any, metric: str) -> Signature:
        """sacrebleu's own signature object as ours: its `info` items in sacrebleu's order (`version` last,
        None left out, booleans yes/no), so that the string is byte for byte `str(signature)`."""
        info = dict(signature.info)
        version = info.pop("version", None)
        options = {k: ("yes" if v else "no") if isinstance(v, bool) else str(v) for k, v in info.items()
                   if v is not None}
        text = "|".join([*(f"{k}:{v}" for k, v in options.items()), *([f"version:{version}"] if version else [])])
        if text != str(signature):  # a sacrebleu whose format changed: its string is still what is stored
            raise ValueError(f"sacrebleu signature {str(signature)!r} does not read as {text!r}")
        return cls(metric, "sacrebleu", version, options, (), text)

    def prefixed(self, *parts: Part) -> Signature:
        """This signature with `parts` ahead of its own (`multiple-choice|` ahead of the classification's)."""
        head = Signature.build(self.metric, *parts, library=self.library or "dialectbench")
        options = dict(head.options)
        for key, value in self.options.items():
            options[key] = [*(options[key] if isinstance(options[key], list) else [options[key]]),
                            *(value if isinstance(value, list) else [value])] if key in options else value
        return replace(self, options=options, components=(*head.components, *self.components),
                       text="|".join(filter(None, (head.text, self.text))))

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
