"""Quick and controlled runs: `--limit`, `--device`, `--batch-size`, `--epochs`, `--max-train-minutes`.

`RunOptions` turns the CLI's options into (a) keyword options for the backend factory, (b) the part of
the job config that decides results, so that a limited or shortened run never shares a job key with a
full one, and (c) a data source whose test splits are cut to `limit` examples.

What each backend does with them:

    option               baseline                                   hf (mbert, xlmr, hf:<id>, nllb-*)
    --limit N            N test examples of each job: a seeded sample, stratified by label where the
                         examples have one (--limit-first: the first N in file order)  same
    --epochs N           the dependency parser's max epochs         epochs of every fine-tuning
    --max-train-minutes  the parser's wall-clock cap                a wall-clock cap per fine-tuning
    --batch-size N       (no batches: CRF, SVM; rejected)           training batch size
    --device D           cpu only                                   cuda, cuda:1, cpu...

hf-causal: takes --batch-size (inference batch; `auto`: the largest that fits memory) and --device; `--gen-kwargs` and `--model-args` are the icl
backends' (lm-evaluation-harness's `key=value,...` strings, parsed by `icl_options`). Any other backend but
the baseline (a plugin's, hf's) takes `--model-args` for the options its registry entry declares, each value
read as a boolean, an int, a float or else text. An option the backend does not declare is an error that
names the run flag it came from (`--concurrency`, `--model-args top`), not the Python keyword.

A time cap makes results depend on machine speed; it is keyed so that such results stay apart.
"""

from __future__ import annotations

import difflib
import hashlib
import random
import re
from dataclasses import dataclass, replace
from typing import Any

from dialectbench.backends.base import Declared, model_capability

# --gen-kwargs and --model-args: the keys each takes (lm-evaluation-harness's names as aliases)
GEN_KWARGS: dict[str, type] = {"max_tokens": int, "temperature": float, "stop": list}
GEN_ALIASES = {"max_gen_toks": "max_tokens", "max_new_tokens": "max_tokens", "until": "stop"}


def batch_size_value(text: str | int) -> int | str:
    """--batch-size and `--model-args batch_size=`: an int >= 1, or `auto` (hf-causal: the largest batch
    that fits memory)."""
    if str(text).strip().lower() == "auto":
        return "auto"
    value = int(text)
    if value < 1:
        raise ValueError(text)
    return value


batch_size_value.__name__ = "int >= 1 or auto"  # parse_kwargs' error message names the type

MODEL_ARGS: dict[str, dict[str, type]] = {
    "hf-causal": {"dtype": str, "revision": str, "trust_remote_code": bool, "prefix_cache": bool,
                  "batch_size": batch_size_value},  # type: ignore[dict-item]
    "llm": {"model": str, "timeout": float, "retries": int},
}
# the run flag each backend option is given by (icl_options' keys: see `run_flags`)
RUN_FLAGS = {"mode": "--mode", "concurrency": "--concurrency", "max_invalid": "--max-invalid",
             "job_budget_s": "--job-budget", "cache_only": "--rescore", "log_samples": "--log-samples",
             "k_shots": "--num-fewshot", "chat_template": "--chat-template", "system_prompt": "--system-prompt",
             "device": "--device", "batch_size": "--batch-size"}
# options set from other flags (RunOptions.backend_options), named so in the list of what a backend takes
_SET_BY = {"parser": "--epochs, --max-train-minutes", "overrides": "--epochs, --batch-size, --max-train-minutes",
           "crf": ""}


class OptionError(ValueError):
    """An option the chosen backend cannot honour (one line, says what to do)."""


@dataclass(frozen=True)
class RunOptions:
    limit: int | None = None
    limit_first: bool = False  # --limit-first: the first N test examples instead of a stratified sample
    device: str | None = None
    batch_size: int | str | None = None  # an int, or "auto" (hf-causal only)
    epochs: int | None = None
    max_train_minutes: float | None = None

    def __post_init__(self) -> None:
        for name in ("limit", "batch_size", "epochs"):
            value = getattr(self, name)
            if value is not None and not (name == "batch_size" and value == "auto") and value < 1:
                raise OptionError(f"--{name.replace('_', '-')} must be at least 1 (got {value})")
        if self.device is not None and not re.fullmatch(r"cpu|cuda(:\d+)?|mps", self.device):
            raise OptionError(f"--device is cpu, cuda, cuda:N or mps, not {self.device!r}")
        if self.max_train_minutes is not None and self.max_train_minutes <= 0:
            raise OptionError(f"--max-train-minutes must be positive (got {self.max_train_minutes})")

    def marks(self) -> str:
        """What a model's stored name says about a non-default run ("limit 50, epochs 1"; "" for a plain
        run): a shortened or limited run's scores must never pass for, or shadow, a plain run's."""
        parts = [f"limit {self.limit}{' first' if self.limit_first else ''}" if self.limit is not None else "",
                 f"epochs {self.epochs}" if self.epochs is not None else "",
                 f"batch {self.batch_size}" if self.batch_size is not None else "",
                 f"max {self.max_train_minutes:g} min" if self.max_train_minutes is not None else ""]
        return ", ".join(p for p in parts if p)

    def key_config(self) -> dict[str, Any]:
        """What joins the job config (only options that are set: keys of plain runs do not change).
        The training options reach the key through the backend's own config; the limit is added here."""
        if self.limit is None:
            return {}
        return {"limit": self.limit, "limit_sample": "first" if self.limit_first else "stratified"}

    def backend_options(self, model: str) -> dict[str, Any]:
        """Keyword options for `get_backend(model, **options)`."""
        if model.strip().partition(":")[0] == "baseline":  # first: the hf package imports torch
            return self._baseline_options()
        from dialectbench.backends.hf.loading import is_hf_model

        if is_hf_model(model):
            return self._hf_options()
        # any other family (hf-causal, llm, a plugin) gets --device and --batch-size when its registry entry
        # declares them (hf-causal: in-process inference, a batch size and a device, no training)
        from dialectbench.backends.registry import entry

        found = entry(model)
        takes = [n for n in ("device", "batch_size") if found is not None and n in (found.options or ())]
        asked = [f"--{n.replace('_', '-')}" for n in ("device", "batch_size", "epochs", "max_train_minutes")
                 if getattr(self, n) is not None and n not in takes]
        if asked:
            flags = ", ".join(f"--{n.replace('_', '-')}" for n in takes)
            raise OptionError(f"{', '.join(asked)} apply to the baseline and hf backends"
                              f"{f' ({found.prefix}: {flags})' if takes else ''}, not to {model!r}")
        return {n: getattr(self, n) for n in takes if getattr(self, n) is not None}

    def _hf_options(self) -> dict[str, Any]:
        overrides: dict[str, Any] = {}
        if self.epochs is not None:
            overrides["epochs"] = self.epochs
        if self.batch_size == "auto":
            raise OptionError("--batch-size auto applies to hf-causal (inference); give hf a number")
        if self.batch_size is not None:
            overrides["batch_size"] = self.batch_size
        if self.max_train_minutes is not None:
            overrides["max_minutes"] = float(self.max_train_minutes)
        options: dict[str, Any] = {"overrides": overrides} if overrides else {}
        if self.device is not None:
            options["device"] = self.device
        return options

    def _baseline_options(self) -> dict[str, Any]:
        from dialectbench.backends.baseline import ParserConfig

        if self.device is not None and self.device != "cpu":
            raise OptionError(f"the baseline backend runs on the CPU; drop --device {self.device} "
                              "(or use an hf model for the GPU)")
        if self.batch_size is not None:
            raise OptionError("--batch-size does not apply to the baseline backend (its CRF, SVM and parser "
                              "do not train in fixed-size batches); drop it or use an hf model")
        parser = ParserConfig()
        if self.epochs is not None:
            parser = replace(parser, max_epochs=self.epochs)
        if self.max_train_minutes is not None:
            parser = replace(parser, max_seconds=60.0 * self.max_train_minutes)
        return {"parser": parser} if parser != ParserConfig() else {}


def _kind(model: str) -> str:
    return model.strip().partition(":")[0].lower()


def parse_kwargs(text: str, option: str, kinds: dict[str, type], aliases: dict[str, str] | None = None) -> dict[str, Any]:
    """`key=value,key=value` (lm-evaluation-harness's format) -> typed options; a list value is `a|b`,
    and `\\n` / `\\t` in a value are a newline / tab. Unknown keys and bad values are one-line errors."""
    aliases = aliases or {}
    out: dict[str, Any] = {}
    for item in filter(None, (part.strip() for part in text.split(","))):
        key, eq, raw = item.partition("=")
        key = aliases.get(key.strip(), key.strip())
        if not eq or key not in kinds:
            known = [*kinds, *aliases]
            close = difflib.get_close_matches(key, known, n=3, cutoff=0.5)
            hint = f" Did you mean: {', '.join(close)}?" if close else ""
            raise OptionError(f"{option}: {'unknown key ' + repr(key) if eq else repr(item) + ' is not key=value'}; "
                              f"keys: {', '.join(kinds)}.{hint}")
        value = raw.strip().replace("\\n", "\n").replace("\\t", "\t")
        kind = kinds[key]
        try:
            if kind is bool:
                if value.lower() not in ("true", "false", "1", "0"):
                    raise ValueError(value)
                out[key] = value.lower() in ("true", "1")
            elif kind is list:
                out[key] = [v for v in value.split("|") if v]
            else:
                out[key] = kind(value)
        except ValueError:
            raise OptionError(f"{option}: {key}={raw.strip()!r} is not {'true or false' if kind is bool else 'a ' + kind.__name__}") from None
    return out


class _Literal:
    """A declared option's value from --model-args: true/false, an int, a float, else the text itself (an
    entry declares option names, not types)."""

    __name__ = "value"

    def __new__(cls, text: str) -> Any:  # type: ignore[misc]
        if text.lower() in ("true", "false"):
            return text.lower() == "true"
        for kind in (int, float):
            try:
                return kind(text)
            except ValueError:
                pass
        return text


def icl_options(model: str, *, gen_kwargs: str | None = None, model_args: str | None = None) -> dict[str, Any]:
    """Backend options from --gen-kwargs (the icl backends, llm: and hf-causal:) and --model-args (the icl
    backends' typed keys; any other backend but the baseline: the options its registry entry declares)."""
    from dialectbench.backends.registry import entry

    kind = _kind(model)
    found = entry(model) if kind not in MODEL_ARGS else None
    declared = tuple(found.options or ()) if found is not None and kind != "baseline" else ()
    if gen_kwargs and kind not in MODEL_ARGS:
        raise OptionError(f"--gen-kwargs apply to the icl backends (llm:, hf-causal:), not to {model!r}")
    if model_args and kind not in MODEL_ARGS and not declared:
        raise OptionError(f"--model-args apply to the icl backends (llm:, hf-causal:) and to a backend that "
                          f"declares options (`dialectbench models`), not to {model!r}")
    out = parse_kwargs(gen_kwargs, "--gen-kwargs", GEN_KWARGS, GEN_ALIASES) if gen_kwargs else {}
    if model_args:
        kinds = MODEL_ARGS[kind] if kind in MODEL_ARGS else dict.fromkeys(declared, _Literal)
        out.update(parse_kwargs(model_args, "--model-args", kinds))  # type: ignore[arg-type]
    if out.get("max_tokens", 1) < 1 or out.get("temperature", 0.0) < 0:
        raise OptionError("--gen-kwargs: max_tokens must be at least 1 and temperature at least 0")
    return out


def run_flags(*, gen_kwargs: str | None = None, model_args: str | None = None) -> dict[str, str]:
    """Each backend option's run flag, for an error that names what was typed: the fixed flags
    (RUN_FLAGS), then `--gen-kwargs KEY` and `--model-args KEY` for the keys those strings give."""
    def keys(text: str | None) -> list[str]:
        return [part.partition("=")[0].strip() for part in (text or "").split(",") if part.strip()]

    return {**RUN_FLAGS, **{GEN_ALIASES.get(k, k): f"--gen-kwargs {k}" for k in keys(gen_kwargs)},
            **{k: f"--model-args {k}" for k in keys(model_args)}}


def check_declared(model: str, options: dict[str, Any], flags: dict[str, str]) -> None:
    """OptionError when the registry entry of `model` declares options and `options` holds one it does
    not; the message names the run flags (`flags`: option -> flag) and what the backend takes. --log-samples
    is left out: the runner logs the predictions of a backend that has no prompts to log."""
    from dialectbench.backends.registry import entry

    found = entry(model)
    if found is None or found.options is None:
        return
    unknown = [k for k in options if k not in found.options and k != "log_samples"]
    if not unknown:
        return
    named = [flags.get(k, k) for k in unknown]
    close = difflib.get_close_matches(unknown[0], found.options, n=3, cutoff=0.5)
    hint = f"; did you mean: {', '.join(flags.get(c, '--model-args ' + c) for c in close)}?" if close else ""
    takes = ", ".join(filter(None, (_SET_BY.get(o, flags.get(o, f"--model-args {o}")) for o in found.options)))
    takes = takes or "none"
    raise OptionError(f"backend {found.prefix!r} does not take the option(s) {', '.join(named)}{hint} "
                      f"(options it takes: {takes})")


class LimitedSource:
    """A data source whose test splits hold at most `limit` examples: a sample seeded by (seed, task,
    variety), stratified by gold label where the examples have one (proportional allocation, largest
    remainders), kept in file order; or, with `first`, the first `limit` in file order (a test split sorted
    by label, as TSAC's is, then holds one label only). Fingerprints are those of the full data; the limit
    and the sampling are part of the job config instead."""

    def __init__(self, source: Any, limit: int, *, seed: int = 0, first: bool = False) -> None:
        self._source, self.limit, self.seed, self.first = source, limit, seed, first

    def __getattr__(self, name: str) -> Any:  # everything else as the wrapped source does it
        if name.startswith("__") or name == "_source":  # unpickling (a Ray worker) asks before _source is set
            raise AttributeError(name)
        return getattr(self._source, name)

    def __repr__(self) -> str:
        return f"{self._source!r} (test limited to {self.limit})"

    def varieties(self, task: str) -> list[str]:
        return self._source.varieties(task)

    def splits(self, task: str, variety: str) -> set[str]:
        return self._source.splits(task, variety)

    def fingerprint(self, task: str, variety: str, split: str) -> str:
        return self._source.fingerprint(task, variety, split)

    def load(self, task: str, variety: str, split: str) -> list[Any]:
        examples = self._source.load(task, variety, split)
        if split != "test" or len(examples) <= self.limit:
            return examples
        if self.first:
            return list(examples[:self.limit])
        digest = hashlib.sha256(f"{self.seed}:{task}:{variety}".encode()).digest()
        return stratified_sample(examples, self.limit, random.Random(int.from_bytes(digest[:8], "big")))


def stratified_sample(examples: list[Any], n: int, rng: random.Random) -> list[Any]:
    """`n` of `examples` in their order: each gold label's share of the sample is its share of the set
    (largest remainders decide the rounding); examples without a label are one stratum."""
    from dialectbench.runner.flags import label_of

    strata: dict[str | None, list[int]] = {}
    for i, ex in enumerate(examples):
        strata.setdefault(label_of(ex), []).append(i)
    exact = {label: n * len(idx) / len(examples) for label, idx in strata.items()}
    counts = {label: int(q) for label, q in exact.items()}
    by_remainder = sorted(exact, key=lambda label: (-(exact[label] - counts[label]), str(label)))
    for label in by_remainder[:n - sum(counts.values())]:
        counts[label] += 1
    chosen = [i for label, idx in sorted(strata.items(), key=lambda kv: str(kv[0]))
              for i in rng.sample(idx, counts[label])]
    return [examples[i] for i in sorted(chosen)]


class MarkedBackend(Declared):
    """The backend, with what its models report as (MT's "copy") carrying the run's marks too."""

    def __init__(self, backend: Any, marks: str) -> None:
        super().__init__(backend)
        self.marks = marks

    def fit(self, *args: Any, **kwargs: Any) -> Any:
        model = self._backend.fit(*args, **kwargs)
        reports_as = model_capability(model, "reports_as")
        if reports_as:
            try:
                model.reports_as = f"{reports_as} ({self.marks})"
            except AttributeError:  # a read-only property: the name stays as the model has it
                pass
        return model


def input_text(example: Any) -> str:
    """An example's input as one readable text (what a logged sample shows for a backend without prompts)."""
    if getattr(example, "text", ""):
        return example.text
    for words in ("words", "tokens"):
        if getattr(example, words, None):
            return " ".join(getattr(example, words))
    if hasattr(example, "premise"):
        return f"{example.premise}\n{example.hypothesis}"
    if hasattr(example, "question"):
        context = getattr(example, "context", None) or getattr(example, "passage", "")
        options = getattr(example, "options", ())
        return "\n".join(filter(None, [context, example.question, *options]))
    return str(getattr(example, "source", example))


class SampleLoggingBackend:
    """--log-samples for a backend without prompts (baseline, hf): each fitted model records, per example,
    its input text and its prediction, as lm-evaluation-harness logs samples for every model type."""

    def __init__(self, backend: Any) -> None:
        self._backend = backend

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") or name == "_backend":
            raise AttributeError(name)
        return getattr(self._backend, name)

    def fit(self, *args: Any, **kwargs: Any) -> Any:
        return _LoggingModel(self._backend.fit(*args, **kwargs))


class _LoggingModel:
    log_samples = True

    def __init__(self, model: Any) -> None:
        self._model = model
        self.last_samples: list[dict[str, Any]] = []

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") or name == "_model":
            raise AttributeError(name)
        return getattr(self._model, name)

    def predict(self, examples: Any, variety: str | None = None) -> list[Any]:
        import inspect

        examples = list(examples)
        takes_variety = "variety" in inspect.signature(self._model.predict).parameters
        predictions = list(self._model.predict(examples, variety=variety) if takes_variety
                           else self._model.predict(examples))
        self.last_samples = [{"prompt": input_text(ex), "reply": _plain(p)} for ex, p in zip(examples, predictions)]
        return predictions


def _plain(prediction: Any) -> Any:
    """A prediction as JSON can store it (tag sequences and trees as lists)."""
    if isinstance(prediction, tuple):
        return [_plain(p) for p in prediction]
    if isinstance(prediction, (str, int, float, bool, list, dict)) or prediction is None:
        return prediction
    return str(prediction)
