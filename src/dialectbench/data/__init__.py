"""The data layer: typed examples, format readers, the dataset catalogue, sources, fetching and caching.

>>> from dialectbench.data import open_source
>>> src = open_source()          # the bundled sample suite (or $DIALECTBENCH_DATA)
>>> sorted(src.splits("pos", "english"))
['dev', 'test', 'train']
"""

from dialectbench.data.errors import DataError, DataFormatError, DataNotAvailable
from dialectbench.data.source import DataSource, count_tokens, file_sha256, open_source, sample_dir

__all__ = [
    "DataError", "DataFormatError", "DataNotAvailable", "DataSource", "count_tokens", "file_sha256",
    "open_source", "sample_dir",
]
